#include "ui/export/GuiExporter.h"

#include "ui/export/DotExport.h"
#include "ui/graphview/GraphScene.h"

#include "core/graph/Placement.h"
#include "core/io/native/PlacementExport.h"
#include "core/io/native/PlacementFile.h"
#include "core/sim/ChromeTraceWriter.h"
#include "core/sim/Simulator.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"

#include <QBuffer>
#include <QGraphicsItem>
#include <QImage>
#include <QPainter>
#include <QSignalBlocker>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace post {
namespace {

const GraphDocument& placed(const GraphDocument& document, const QString& path)
{
    if (!document.isPlaced())
        throw InputError(path.toStdString(), {}, "no placement to export: place the graph or open a placement first");
    if (auto problem = placementProblem(*document.graph, *document.cluster, document.placement))
        throw InputError(path.toStdString(), {}, "the shown placement does not fit the graph: " + *problem);
    return document;
}

void write(const QString& path, std::string_view content) { writeFileAtomically(path.toStdString(), content); }

void write(const QString& path, const QByteArray& content)
{
    write(path, std::string_view(content.constData(), static_cast<size_t>(content.size())));
}

QRectF sceneArea(const GraphScene& scene, const QString& path)
{
    if (scene.nodeItemCount() == 0)
        throw InputError(path.toStdString(), {}, "no graph drawn yet to export");
    return scene.itemsBoundingRect().adjusted(-16, -16, 16, 16);
}

void render(GraphScene& scene, QPainter& painter, const QRectF& target, const QRectF& source)
{
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.fillRect(target, scene.theme().background);
    // Selection and search halos are part of the view, not of the graph.
    const QList<QGraphicsItem*> selected = scene.selectedItems();
    const QSignalBlocker blocker(&scene);
    for (QGraphicsItem* item : selected)
        item->setSelected(false);
    scene.render(&painter, target, source, Qt::KeepAspectRatio);
    for (QGraphicsItem* item : selected)
        item->setSelected(true);
}

} // namespace

void GuiExporter::placementJson(const GraphDocument& document, const QString& path)
{
    const GraphDocument& d = placed(document, path);
    write(path, post::placementJson(*d.graph, *d.cluster, d.placement));
}

void GuiExporter::placementCsv(const GraphDocument& document, const QString& path)
{
    const GraphDocument& d = placed(document, path);
    write(path, post::placementCsv(*d.graph, *d.cluster, d.placement));
}

void GuiExporter::placementTensorFlow(const GraphDocument& document, const QString& path)
{
    const GraphDocument& d = placed(document, path);
    write(path, post::placementTensorFlow(*d.graph, *d.cluster, d.placement));
}

void GuiExporter::graphSvg(GraphScene& scene, const QString& path)
{
    const QRectF source = sceneArea(scene, path);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(source.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
    svg.setResolution(96); // as QImage, so labels keep their on-screen size against the boxes
    svg.setTitle(scene.document() ? scene.document()->path : QString());
    svg.setDescription(QStringLiteral("Exported by Post Studio"));
    {
        QPainter painter(&svg);
        render(scene, painter, QRectF(QPointF(0, 0), source.size()), source);
    }
    write(path, buffer.data());
}

void GuiExporter::graphPng(GraphScene& scene, const QString& path, double scale, double maxPixels)
{
    const QRectF source = sceneArea(scene, path);
    scale = std::min({scale, std::sqrt(maxPixels / (source.width() * source.height())), kMaxPngSide / source.width(),
                      kMaxPngSide / source.height()});
    const QSize size(std::max(1, static_cast<int>(std::ceil(source.width() * scale))),
                     std::max(1, static_cast<int>(std::ceil(source.height() * scale))));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        throw InputError(path.toStdString(), {}, "not enough memory for the image");
    {
        QPainter painter(&image);
        render(scene, painter, QRectF(QPointF(0, 0), size), source);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        throw InputError(path.toStdString(), {}, "could not encode the PNG image");
    write(path, bytes);
}

void GuiExporter::graphDot(const GraphDocument& document, const QString& path)
{
    write(path, dotWithDeviceColours(document));
}

void GuiExporter::chromeTrace(const GraphDocument& document, const QString& path, const SimResult* simulated)
{
    const GraphDocument& d = placed(document, path);
    if (simulated && simulated->timeline.ops.size() == static_cast<size_t>(d.graph->opCount())) {
        write(path, chromeTraceJson(*d.graph, *d.cluster, *simulated));
        return;
    }
    Simulator simulator(*d.graph, *d.cluster);
    write(path, chromeTraceJson(*d.graph, *d.cluster, simulator.run(d.placement, /*recordTimeline=*/true)));
}

} // namespace post
