#include "tests/support/TestData.h"

#include <QDir>
#include <QProcessEnvironment>

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

} // namespace testdata
