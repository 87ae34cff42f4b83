#pragma once

#include <QStringList>

namespace post {

// The most recently opened files, newest first, kept in QSettings.
class RecentFiles {
public:
    static constexpr int kMaxFiles = 10;

    static QStringList files();
    static void add(const QString& path);
    static void remove(const QString& path);
    static void clear();
};

} // namespace post
