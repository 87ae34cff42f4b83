#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QAction;
class QMenu;
class QStatusBar;

namespace post {

class DocumentHub;
class GraphPanel;
class StepSimulation;

// File ▸ Export: asks for a file name and calls GuiExporter, reporting errors in a dialog
// and success in the status bar. Entries needing a placement or a drawn graph are
// disabled until there is one. It exports the hub's current document; its dialogs open
// over the graph panel's window.
class ExportMenu : public QObject {
    Q_OBJECT

public:
    ExportMenu(QMenu* menu, DocumentHub* hub, GraphPanel* graph, StepSimulation* simulation, QStatusBar* status);

private:
    enum class What {
        PlacementJson,
        PlacementCsv,
        PlacementTensorFlow,
        GraphSvg,
        GraphPng,
        GraphDot,
        ChromeTrace,
        PlacementPbtxt
    };
    QAction* add(const QString& label, What what);
    void updateEnabled();
    void exportTo(What what);
    void exportFile(What what, const QString& path);

    QMenu* menu_;
    DocumentHub* hub_;
    GraphPanel* graph_;
    StepSimulation* simulation_;
    QStatusBar* status_;
};

} // namespace post
