#pragma once

#include <QByteArray>
#include <QString>

class QTemporaryDir;

// Locations the tests read from, passed in by CTest's environment.
namespace testdata {

// ../shared/data (real measured graphs), or empty when the folder is absent.
QString sharedDataDir();
// The project's source tree (for samples/ and resources/).
QString sourceDir();
// The post-cli executable.
QString cliPath();
// Writes `content` to `name` in `dir` (replacing it) and returns its path; a failure is fatal.
QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content);

} // namespace testdata

// Skips the current test function when the shared data folder is missing.
#define REQUIRE_SHARED_DATA(dirVar)                                                                                    \
    const QString dirVar = testdata::sharedDataDir();                                                                  \
    if (dirVar.isEmpty())                                                                                              \
    QSKIP("../shared/data is absent (set POST_SHARED_DATA to its path): real-graph test skipped")
