#include "ui/export/GuiExporter.h"

#include "ui/export/DotExport.h"
#include "ui/export/PictureCaption.h"
#include "ui/graphview/GraphScene.h"

#include "core/graph/Placement.h"
#include "core/io/native/PlacementExport.h"
#include "core/io/native/PlacementFile.h"
#include "core/io/tf/PbtxtExport.h"
#include "core/sim/ChromeTraceWriter.h"
#include "core/sim/Simulator.h"
#include "core/util/AtomicFile.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <QBuffer>
#include <QFileInfo>
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

// A picture: the caption band (legend, step time) over the drawn graph, in scene units.
struct Picture {
    PictureCaption caption;
    QRectF source;     // the scene area drawn
    double band = 0.0; // the caption's height
    QSizeF size;       // the whole picture

    Picture(const GraphScene& scene, const QString& path)
        : caption(PictureCaption::of(scene))
        , source(sceneArea(scene, path))
    {
        const double width = std::max(source.width(), caption.minimumWidth());
        band = caption.height(width);
        size = QSizeF(width, band + source.height());
    }
};

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

// The caption, then the graph under it (centred when the caption is the wider).
void render(GraphScene& scene, QPainter& painter, const Picture& picture)
{
    painter.fillRect(QRectF(QPointF(0, 0), picture.size), scene.theme().background);
    const double left = (picture.size.width() - picture.source.width()) / 2;
    render(scene, painter, QRectF(QPointF(left, picture.band), picture.source.size()), picture.source);
    picture.caption.paint(painter, QRectF(0, 0, picture.size.width(), picture.band)); // its rule over the graph's edge
}

} // namespace

void GuiExporter::placementJson(const GraphDocument& document, const QString& path)
{
    const GraphDocument& d = placed(document, path);
    // What made it (a run's placer and seed) and its step time with the dispatch rule and precision
    // mode it was timed under, as post-cli place --out writes them.
    PlacementProvenance made = d.made;
    made.stepTimeUs = Simulator(*d.graph, *d.cluster, d.sim).run(d.placement).stepTimeUs;
    made.dispatch = d.sim.dispatch;
    made.precision = d.cluster->precision();
    write(path, post::placementJson(*d.graph, *d.cluster, d.placement, {}, made));
}

void GuiExporter::placementPbtxt(const GraphDocument& document, const QString& path)
{
    const GraphDocument& d = placed(document, path);
    if (d.format != GraphFormat::TfPbtxt)
        throw InputError(path.toStdString(), {},
                         "a placed .pbtxt needs a graph read from a TensorFlow GraphDef .pbtxt; "
                             + QFileInfo(d.path).fileName().toStdString() + " is " + std::string(toString(d.format)));
    const std::string source = d.path.toStdString();
    std::string text;
    try {
        text = pbtxtWithPlacement(readFileText(source), source, *d.graph, *d.cluster, d.placement);
    } catch (const InputError&) {
        throw;
    } catch (const std::exception& e) { // the file changed since it was read: its nodes are not this graph's
        throw InputError(source, {}, std::string("cannot write its placement back: ") + e.what());
    }
    write(path, text);
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
    const Picture picture(scene, path);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(picture.size.toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), picture.size));
    svg.setResolution(96); // as QImage, so labels keep their on-screen size against the boxes
    svg.setTitle(scene.document() ? scene.document()->path : QString());
    svg.setDescription(QStringLiteral("Exported by Post Studio"));
    {
        QPainter painter(&svg);
        render(scene, painter, picture);
    }
    write(path, buffer.data());
}

void GuiExporter::graphPng(GraphScene& scene, const QString& path, double scale, double maxPixels)
{
    const Picture picture(scene, path);
    const QSizeF logical = picture.size;
    scale = std::min({scale, std::sqrt(maxPixels / (logical.width() * logical.height())), kMaxPngSide / logical.width(),
                      kMaxPngSide / logical.height()});
    const QSize size(std::max(1, static_cast<int>(std::ceil(logical.width() * scale))),
                     std::max(1, static_cast<int>(std::ceil(logical.height() * scale))));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        throw InputError(path.toStdString(), {}, "not enough memory for the image");
    {
        QPainter painter(&image);
        painter.scale(scale, scale);
        render(scene, painter, picture);
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
    Simulator simulator(*d.graph, *d.cluster, d.sim);
    write(path, chromeTraceJson(*d.graph, *d.cluster, simulator.run(d.placement, /*recordTimeline=*/true)));
}

} // namespace post
