#include "ui/document/GraphFileFilters.h"

#include "core/io/ImporterTable.h"

#include <QObject>
#include <QStringList>

namespace post {

QString graphOpenFilters()
{
    QStringList all, filters;
    for (const ImporterRow& row : importerTable()) {
        if (!row.readable)
            continue;
        QStringList patterns;
        for (std::string_view extension : row.extensions) {
            const QString pattern = QStringLiteral("*")
                + QString::fromUtf8(extension.data(), static_cast<qsizetype>(extension.size()));
            patterns << pattern;
            if (!all.contains(pattern))
                all << pattern;
        }
        filters << QStringLiteral("%1 (%2)").arg(
            QString::fromUtf8(row.title.data(), static_cast<qsizetype>(row.title.size())),
            patterns.join(QLatin1Char(' ')));
    }
    filters.prepend(QObject::tr("Graphs and traces (%1)").arg(all.join(QLatin1Char(' '))));
    filters << QObject::tr("All files (*)");
    return filters.join(QStringLiteral(";;"));
}

} // namespace post
