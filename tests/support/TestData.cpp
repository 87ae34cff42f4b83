#include "tests/support/TestData.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>

namespace testdata {

QString sharedDataDir()
{
    const QString dir = qEnvironmentVariable("POST_SHARED_DATA");
    if (dir.isEmpty() || !QDir(dir).exists())
        return {};
    return QDir(dir).absolutePath();
}

QString sourceDir() { return qEnvironmentVariable("POST_SOURCE_DIR"); }

QString cliPath() { return qEnvironmentVariable("POST_CLI"); }

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
    return path;
}

} // namespace testdata
