#include "ui/export/ExportMenu.h"

#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/export/GuiExporter.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"

#include "core/util/InputError.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace post {
namespace {

struct Kind {
    const char* suffix;
    const char* filter;
};

} // namespace

ExportMenu::ExportMenu(QMenu* menu, DocumentHub* hub, GraphPanel* graph, StepSimulation* simulation, QStatusBar* status)
    : QObject(menu)
    , menu_(menu)
    , hub_(hub)
    , graph_(graph)
    , simulation_(simulation)
    , status_(status)
{
    add(tr("Placement as &JSON…"), What::PlacementJson);
    add(tr("Placement as &CSV…"), What::PlacementCsv);
    add(tr("Placement as &TensorFlow Devices…"), What::PlacementTensorFlow);
    add(tr("Placed TensorFlow &GraphDef (.pbtxt)…"), What::PlacementPbtxt)
        ->setToolTip(tr("The .pbtxt the graph was read from with every node's device set (post-cli place "
                        "--pbtxt-out)"));
    menu_->addSeparator();
    add(tr("Graph as &SVG…"), What::GraphSvg);
    add(tr("Graph as &PNG…"), What::GraphPng);
    add(tr("Graph as &DOT…"), What::GraphDot);
    menu_->addSeparator();
    add(tr("Step as Chrome &Trace…"), What::ChromeTrace);
    connect(menu_, &QMenu::aboutToShow, this, &ExportMenu::updateEnabled);
    updateEnabled();
}

QAction* ExportMenu::add(const QString& label, What what)
{
    QAction* action = menu_->addAction(label, this, [this, what] { exportTo(what); });
    action->setData(static_cast<int>(what));
    return action;
}

void ExportMenu::updateEnabled()
{
    const DocumentPtr& document = hub_->document();
    const bool placed = document && document->isPlaced();
    const bool drawn = graph_->scene()->nodeItemCount() > 0;
    for (QAction* action : menu_->actions()) {
        if (action->isSeparator())
            continue;
        switch (static_cast<What>(action->data().toInt())) {
        case What::GraphSvg:
        case What::GraphPng:
            action->setEnabled(drawn);
            break;
        case What::GraphDot:
            action->setEnabled(document != nullptr);
            break;
        case What::PlacementPbtxt:
            action->setEnabled(placed && document->format == GraphFormat::TfPbtxt);
            break;
        default:
            action->setEnabled(placed);
        }
    }
}

void ExportMenu::exportTo(What what)
{
    static const Kind kKinds[] = {{"-placement.json", "Placements (*.json)"},
                                  {"-placement.csv", "CSV files (*.csv)"},
                                  {"-placement.tf.txt", "Text files (*.txt)"},
                                  {".svg", "SVG images (*.svg)"},
                                  {".png", "PNG images (*.png)"},
                                  {"-placed.dot", "Graphviz DOT (*.dot *.gv)"},
                                  {"-trace.json", "Chrome traces (*.json)"},
                                  {"-placed.pbtxt", "TensorFlow GraphDefs (*.pbtxt)"}};
    const Kind& kind = kKinds[static_cast<int>(what)];
    const DocumentPtr& document = hub_->document();
    if (!document)
        return;
    const QFileInfo source(document->path);
    const QString dir = QSettings().value(QStringLiteral("exportDir"), source.absolutePath()).toString();
    const QString suggested = dir + QLatin1Char('/') + source.completeBaseName() + QLatin1String(kind.suffix);
    const QString path = QFileDialog::getSaveFileName(graph_->window(), tr("Export"), suggested, tr(kind.filter));
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("exportDir"), QFileInfo(path).absolutePath());
    exportFile(what, path);
}

void ExportMenu::exportFile(What what, const QString& path)
{
    const DocumentPtr document = hub_->document();
    try {
        switch (what) {
        case What::PlacementJson:
            GuiExporter::placementJson(*document, path);
            break;
        case What::PlacementCsv:
            GuiExporter::placementCsv(*document, path);
            break;
        case What::PlacementTensorFlow:
            GuiExporter::placementTensorFlow(*document, path);
            break;
        case What::PlacementPbtxt:
            GuiExporter::placementPbtxt(*document, path);
            break;
        case What::GraphSvg:
            GuiExporter::graphSvg(*graph_->scene(), path);
            break;
        case What::GraphPng:
            GuiExporter::graphPng(*graph_->scene(), path);
            break;
        case What::GraphDot:
            GuiExporter::graphDot(*document, path);
            break;
        case What::ChromeTrace: {
            // Reuse the shown step when it is this placement's (it is, unless still simulating).
            const StepPtr& step = simulation_->current();
            const bool current = step && step->document->graphId == document->graphId
                && step->document->cluster == document->cluster && step->document->placement == document->placement;
            GuiExporter::chromeTrace(*document, path, current ? &step->result : nullptr);
            break;
        }
        }
    } catch (const InputError& e) {
        QMessageBox::warning(graph_->window(), tr("Export"),
                             tr("Could not export %1:\n%2").arg(path, QString::fromStdString(e.message())));
        return;
    }
    status_->showMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(path)), 5000);
}

} // namespace post
