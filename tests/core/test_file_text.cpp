// readFileText's gzip support: files written by gzip itself are read as their text, a
// bomb (decompressed text over the limit) and a corrupt or truncated stream are refused
// naming the file.
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include "tests/support/TestData.h"

#include <QProcess>
#include <QtTest>

using namespace post;

namespace {

// `content` compressed by the gzip program (Debian's essential gzip), in `dir`/`name`.
QString writeGzip(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    QProcess gzip;
    gzip.start("gzip", {"-c", "-n"});
    if (!gzip.waitForStarted())
        qFatal("gzip did not start");
    gzip.write(content);
    gzip.closeWriteChannel();
    if (!gzip.waitForFinished(60000) || gzip.exitCode() != 0)
        qFatal("gzip failed");
    return testdata::writeFile(dir, name, gzip.readAllStandardOutput());
}

std::string errorOf(const std::string& path, std::size_t maxBytes = kMaxFileTextBytes)
{
    try {
        readFileText(path, maxBytes);
    } catch (const InputError& e) {
        return std::string(e.what());
    }
    return "(read without an error)";
}

} // namespace

class TestFileText : public QObject {
    Q_OBJECT

private slots:
    void gzipIsReadAsItsText()
    {
        QTemporaryDir dir;
        QByteArray text;
        for (int i = 0; i < 20000; ++i)
            text += "{\"name\": \"aten::conv2d\", \"ph\": \"X\", \"ts\": " + QByteArray::number(i) + "},\n";
        const QString path = writeGzip(dir, "trace.pt.trace.json.gz", text);
        QVERIFY(QFileInfo(path).size() < text.size() / 4); // really compressed
        QCOMPARE(readFileText(path.toStdString()), text.toStdString());
        // Plain files are untouched, whatever their name.
        const QString plain = testdata::writeFile(dir, "plain.json.gz", text);
        QCOMPARE(readFileText(plain.toStdString()), text.toStdString());
        QVERIFY(isGzip(std::string("\x1f\x8b", 2)));
        QVERIFY(!isGzip(std::string("\x1f", 1)));
        QVERIFY(!isGzip(text.toStdString()));
    }

    void concatenatedMembersAreJoined()
    {
        QTemporaryDir dir;
        const QString a = writeGzip(dir, "a.gz", "first half, ");
        const QString b = writeGzip(dir, "b.gz", "second half");
        QFile fa(a), fb(b);
        QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
        const QString both = testdata::writeFile(dir, "both.gz", fa.readAll() + fb.readAll());
        QCOMPARE(readFileText(both.toStdString()), std::string("first half, second half"));
    }

    // 8 MB of zeros compress to a few kilobytes: refused once the text passes the limit.
    void gzipBombIsRefusedNamingTheFile()
    {
        QTemporaryDir dir;
        const QString path = writeGzip(dir, "bomb.json.gz", QByteArray(8 << 20, '\0'));
        QVERIFY(QFileInfo(path).size() < 64 << 10);
        const std::string error = errorOf(path.toStdString(), 1 << 20);
        QVERIFY2(error.find(path.toStdString()) != std::string::npos, error.c_str());
        QVERIFY2(error.find("more than 1048576 bytes") != std::string::npos, error.c_str());
        QVERIFY2(error.find("gzip bomb") != std::string::npos, error.c_str());
        // At the limit exactly it is read.
        QCOMPARE(readFileText(path.toStdString(), 8 << 20).size(), std::size_t(8) << 20);
    }

    void corruptAndTruncatedStreamsNameTheFile()
    {
        QTemporaryDir dir;
        QByteArray text;
        for (int i = 0; i < 2000; ++i)
            text += QByteArray::number(i * 7919) + " ";
        const QString path = writeGzip(dir, "good.gz", text);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();

        const QString truncated = testdata::writeFile(dir, "truncated.gz", bytes.left(bytes.size() / 2));
        std::string error = errorOf(truncated.toStdString());
        QVERIFY2(error.find(truncated.toStdString()) != std::string::npos, error.c_str());
        QVERIFY2(error.find("truncated") != std::string::npos, error.c_str());

        QByteArray flipped = bytes;
        for (int i = 20; i < 60; ++i)
            flipped[i] = char(flipped[i] ^ 0x5a);
        const QString corrupt = testdata::writeFile(dir, "corrupt.gz", flipped);
        error = errorOf(corrupt.toStdString());
        QVERIFY2(error.find(corrupt.toStdString()) != std::string::npos, error.c_str());
        QVERIFY2(error.find("gzip:") != std::string::npos, error.c_str());

        // The CRC at the end is checked.
        QByteArray badCrc = bytes;
        badCrc[badCrc.size() - 8] = char(badCrc[badCrc.size() - 8] ^ 0xff);
        const QString crc = testdata::writeFile(dir, "crc.gz", badCrc);
        error = errorOf(crc.toStdString());
        QVERIFY2(error.find(crc.toStdString()) != std::string::npos, error.c_str());

        // Only the magic bytes: the stream ends at once.
        const QString stub = testdata::writeFile(dir, "stub.gz", QByteArray("\x1f\x8b", 2));
        error = errorOf(stub.toStdString());
        QVERIFY2(error.find("truncated") != std::string::npos, error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestFileText)
#include "test_file_text.moc"
