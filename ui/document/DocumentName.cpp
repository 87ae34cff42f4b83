#include "ui/document/DocumentName.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace post {

QString documentDisplayName(const QString& path)
{
    // Names every model of a kind has (PipeDream's profiles are all graph.txt, exports are
    // often model.onnx): the folder tells them apart.
    static const QStringList kGeneric = {QStringLiteral("graph.txt"), QStringLiteral("model.onnx"),
                                         QStringLiteral("graph.pbtxt"), QStringLiteral("graph.json")};
    const QFileInfo file(path);
    const QString folder = file.dir().dirName();
    if (kGeneric.contains(file.fileName(), Qt::CaseInsensitive) && !folder.isEmpty() && folder != QStringLiteral("."))
        return folder + QLatin1Char('/') + file.fileName();
    return file.fileName();
}

} // namespace post
