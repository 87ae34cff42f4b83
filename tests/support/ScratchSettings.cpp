#include "tests/support/ScratchSettings.h"

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>

namespace testsupport {

void useScratchSettings()
{
    QStandardPaths::setTestModeEnabled(true); // ~/.qttest instead of the user's folders
    // One organisation for all tests; the application name stays the executable's, so tests
    // running in parallel under CTest never share a settings file.
    QCoreApplication::setOrganizationName(QStringLiteral("PostStudioTests"));
    QSettings().clear();
}

} // namespace testsupport
