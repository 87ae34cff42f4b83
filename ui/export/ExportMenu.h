#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QAction;
class QMenu;

namespace post {

class MainWindow;
class StepSimulation;

// File ▸ Export: asks for a file name and calls GuiExporter, reporting errors in a dialog
// and success in the status bar. Entries needing a placement or a drawn graph are
// disabled until there is one.
class ExportMenu : public QObject {
    Q_OBJECT

public:
    ExportMenu(MainWindow* window, QMenu* menu, StepSimulation* simulation);

private:
    enum class What { PlacementJson, PlacementCsv, PlacementTensorFlow, GraphSvg, GraphPng, GraphDot, ChromeTrace };
    QAction* add(const QString& label, What what);
    void updateEnabled();
    void exportTo(What what);
    void exportFile(What what, const QString& path);

    MainWindow* window_;
    QMenu* menu_;
    StepSimulation* simulation_;
};

} // namespace post
