#pragma once

// Points QSettings (and QStandardPaths) at a scratch location for this test executable and
// empties it, so a test never reads or writes the user's settings and always starts from the
// defaults (default cluster, no recent files). Call from initTestCase().
namespace testsupport {

void useScratchSettings();

} // namespace testsupport
