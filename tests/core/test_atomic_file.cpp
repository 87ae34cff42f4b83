#include "core/util/AtomicFile.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <QtTest>

#include <filesystem>
#include <sys/stat.h>

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
            QVERIFY2(message.contains("No such file or directory"), qPrintable(message));
        }
        // The rename fails when the target is a directory: the temp file must be gone.
        fs::create_directory(root / "taken");
        fs::create_directory(root / "taken" / "inner");
        try {
            writeFileAtomically((root / "taken").string(), "x");
            QFAIL("replacing a directory succeeded");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("cannot replace"), e.what());
        }
        QCOMPARE(entries(root), std::vector<std::string>{"taken"});
    }
};

QTEST_APPLESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
