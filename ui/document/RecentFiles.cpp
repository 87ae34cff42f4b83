#include "ui/document/RecentFiles.h"

#include <QFileInfo>
#include <QSettings>

namespace post {
namespace {

const char* const kKey = "recentFiles";

void store(const QStringList& files) { QSettings().setValue(QLatin1String(kKey), files); }

} // namespace

QStringList RecentFiles::files() { return QSettings().value(QLatin1String(kKey)).toStringList(); }

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::clear() { store({}); }

} // namespace post
