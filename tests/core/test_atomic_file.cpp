#include "core/util/AtomicFile.h"
#include "core/util/FileKind.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <QtTest>

#include <csignal>
#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace post;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> entries(const fs::path& dir)
{
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT

private slots:
    void createsAndReplacesWithoutLeftovers()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = dir.path().toStdString();
        const std::string path = (root / "out.json").string();
        writeFileAtomically(path, "first version, rather long\n");
        QCOMPARE(readFileText(path), std::string("first version, rather long\n"));
        writeFileAtomically(path, "second");
        QCOMPARE(readFileText(path), std::string("second")); // shorter content: no stale tail
        writeFileAtomically(path, "");
        QCOMPARE(readFileText(path), std::string());
        QCOMPARE(entries(root), std::vector<std::string>{"out.json"});
    }

    void keepsPermissionsOfTheReplacedFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("private.txt").toStdString();
        writeFileAtomically(path, "a");
        QCOMPARE(::chmod(path.c_str(), 0600), 0);
        writeFileAtomically(path, "b");
        struct stat st { };
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
    }

    void failuresNamePathAndReasonAndLeaveNoTemp()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const std::string missingDir = (root / "no-such-dir" / "x.json").string();
        try {
            writeFileAtomically(missingDir, "x");
            QFAIL("writing into a missing directory succeeded");
        } catch (const InputError& e) {
            const QString message = e.what();
            QVERIFY2(message.startsWith(QString::fromStdString(missingDir)), qPrintable(message));
            QVERIFY2(message.contains("its folder " + QString::fromStdString((root / "no-such-dir").string())
                                      + " does not exist"),
                     qPrintable(message));
        }
        // A directory is refused before any temporary file is made.
        fs::create_directory(root / "taken");
        fs::create_directory(root / "taken" / "inner");
        try {
            writeFileAtomically((root / "taken").string(), "x");
            QFAIL("replacing a directory succeeded");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("is a directory, not a regular file: refusing to replace it"), e.what());
        }
        QCOMPARE(entries(root), std::vector<std::string>{"taken"});
    }

    // Special files are never replaced (as root, `--out /dev/null` once replaced /dev/null).
    void refusesSpecialFiles()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("pipe").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        try {
            writeFileAtomically(fifo, "x");
            QFAIL("replaced a FIFO");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), fifo);
            QVERIFY2(e.message().find("is a FIFO (named pipe), not a regular file") != std::string::npos, e.what());
        }
        struct stat st { };
        QCOMPARE(::lstat(fifo.c_str(), &st), 0);
        QVERIFY(S_ISFIFO(st.st_mode));
        QCOMPARE(entries(dir.path().toStdString()), std::vector<std::string>{"pipe"});
        // Checked only (never written, whatever this test's privileges).
        QVERIFY_THROWS_EXCEPTION(InputError, checkWriteTarget("/dev/null"));
        QVERIFY_THROWS_EXCEPTION(InputError, checkWriteTarget("/dev/null", true)); // --force is for read-only files
    }

    void readOnlyNeedsForce()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("ro.txt").toStdString();
        writeFileAtomically(path, "old");
        QCOMPARE(::chmod(path.c_str(), 0444), 0);
        try {
            writeFileAtomically(path, "new");
            QFAIL("replaced a read-only file");
        } catch (const InputError& e) {
            QVERIFY2(e.message().find("is read-only") != std::string::npos, e.what());
        }
        QCOMPARE(readFileText(path), std::string("old"));
        writeFileAtomically(path, "new", true);
        QCOMPARE(readFileText(path), std::string("new"));
        struct stat st { };
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0444); // still read-only
    }

    // A symlink is written through: the link stays and its target gets the content.
    void writesThroughSymlinks()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        fs::create_directory(root / "real");
        writeFileAtomically((root / "real" / "file.txt").string(), "old");
        fs::create_symlink("real/file.txt", root / "link.txt"); // relative, resolved from the link's folder
        fs::create_symlink(root / "link.txt", root / "chain.txt");
        writeFileAtomically((root / "chain.txt").string(), "new");
        QVERIFY(fs::is_symlink(root / "link.txt"));
        QVERIFY(fs::is_symlink(root / "chain.txt"));
        QCOMPARE(readFileText((root / "real" / "file.txt").string()), std::string("new"));
        QCOMPARE(writeTargetOf((root / "chain.txt").string()), (root / "real" / "file.txt").string());
        QCOMPARE(entries(root / "real"), std::vector<std::string>{"file.txt"});
        // A link to nothing: refused, the link left alone.
        fs::create_symlink(root / "nowhere" / "x", root / "dangling.txt");
        QVERIFY_THROWS_EXCEPTION(InputError, writeFileAtomically((root / "dangling.txt").string(), "x"));
        QVERIFY(fs::is_symlink(root / "dangling.txt"));
        // A loop.
        fs::create_symlink(root / "b", root / "a");
        fs::create_symlink(root / "a", root / "b");
        QVERIFY_THROWS_EXCEPTION(InputError, writeFileAtomically((root / "a").string(), "x"));
    }

    // Inputs that are not regular files are refused before open() could block on them.
    void readingRefusesSpecialFiles()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("in").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        try {
            readFileText(fifo); // without the check: blocked until a writer came, forever
            QFAIL("read a FIFO");
        } catch (const InputError& e) {
            QCOMPARE(e.message(), std::string("is a FIFO (named pipe), not a regular file"));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, readFileText("/dev/zero"));
        QVERIFY_THROWS_EXCEPTION(InputError, readFileText(dir.path().toStdString()));
        requireRegularInput("-"); // standard input: its reader decides
        QVERIFY_THROWS_EXCEPTION(InputError, readFileText(dir.filePath("missing").toStdString()));
    }

    void sameFileSeesThroughLinks()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFileAtomically((root / "a").string(), "x");
        fs::create_symlink(root / "a", root / "s");
        fs::create_hard_link(root / "a", root / "h");
        QVERIFY(sameFile((root / "a").string(), (root / "s").string()));
        QVERIFY(sameFile((root / "s").string(), (root / "h").string()));
        QVERIFY(sameFile((root / "new").string(), (root / "." / "new").string())); // neither exists
        QVERIFY(!sameFile((root / "a").string(), (root / "new").string()));
    }

    // SIGTERM (and SIGINT) during a write removes its temporary file, then ends the process
    // as the signal would. A child writes 256 MB (the fsync gives time); the parent sends the
    // signal once the temporary file appears.
    void signalRemovesTemporaryFile()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const std::string target = (root / "big.bin").string();
        for (int attempt = 0; attempt < 5; ++attempt) {
            const pid_t child = ::fork();
            QVERIFY(child >= 0);
            if (child == 0) {
                removeTemporaryFilesOnSignals();
                try {
                    writeFileAtomically(target, std::string(std::size_t(256) << 20, 'x'));
                } catch (...) {
                    ::_exit(3);
                }
                ::_exit(0);
            }
            bool sawTemp = false;
            for (int i = 0; i < 20000 && !sawTemp; ++i) {
                for (const std::string& name : entries(root))
                    sawTemp = sawTemp || name.find(".tmp-") != std::string::npos;
                if (!sawTemp)
                    ::usleep(100);
            }
            if (sawTemp)
                ::kill(child, SIGTERM);
            int status = 0;
            QCOMPARE(::waitpid(child, &status, 0), child);
            if (WIFEXITED(status)) { // the write finished first: no signal landed in it
                QCOMPARE(WEXITSTATUS(status), 0);
                fs::remove(target);
                continue;
            }
            QVERIFY(WIFSIGNALED(status));
            QCOMPARE(WTERMSIG(status), SIGTERM);
            for (const std::string& name : entries(root))
                QVERIFY2(name.find(".tmp-") == std::string::npos, name.c_str());
            return;
        }
        QSKIP("every write finished before the signal could land");
    }
};

QTEST_APPLESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
