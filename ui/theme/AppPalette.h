#pragma once

#include <QString>

namespace post {

// "light" or "dark": switches to the Fusion style with a matching palette, so the app
// can be checked (and screenshotted) in both without changing the desktop theme.
// Returns false for an unknown name.
bool applyAppPalette(const QString& name);

} // namespace post
