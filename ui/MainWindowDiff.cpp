// MainWindow's File ▸ New Window, File ▸ Diff with Window, View ▸ Show Critical Path and
// the placement diff on show (its moved ops marked on the graph view, its sides following
// the placements they stand for).
#include "ui/MainWindow.h"

#include "ui/compare/PlacementDiff.h"
#include "ui/document/DocumentHub.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/timeline/StepSimulation.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QScopedValueRollback>
#include <QTableWidget>

#include <string>
#include <unordered_map>

namespace post {

void MainWindow::createDiffTools()
{
    // The critical path of every simulated step goes to the graph view (drawn while View ▸
    // Show Critical Path is on); a step of another graph or none clears it.
    connect(stepSimulation_, &StepSimulation::simulated, this, [this](const StepPtr& step) {
        if (step && step->document)
            graphPanel_->scene()->setCriticalPath(step->document->graphId, step->criticalOps);
        else
            graphPanel_->scene()->setCriticalPath(0, {});
    });
    // The diff on show follows the shown placement (and drops out with its graph).
    connect(hub_, &DocumentHub::documentChanged, this, [this] { updateDiff(); });

    auto* newWindowAction = new QAction(tr("New &Window"), this);
    newWindowAction->setObjectName(QStringLiteral("newWindow"));
    newWindowAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_N);
    newWindowAction->setToolTip(tr("Another window, to open a second document (and diff the two placements)"));
    connect(newWindowAction, &QAction::triggered, this, [this] { newWindow(); });
    fileMenu_->insertAction(fileMenu_->actions().value(1), newWindowAction); // after Open…

    windowDiffMenu_ = new QMenu(tr("Diff with W&indow"), this);
    windowDiffMenu_->setObjectName(QStringLiteral("diffWindowMenu"));
    windowDiffMenu_->setToolTip(tr("Which ops move between the shown placement and another window's"));
    connect(windowDiffMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildWindowMenu);
    // After Diff Placement with File…
    const QList<QAction*> fileActions = fileMenu_->actions();
    QAction* before = nullptr;
    for (qsizetype i = 0; i < fileActions.size(); ++i)
        if (fileActions[i]->objectName() == QStringLiteral("diffPlacementFile"))
            before = fileActions.value(i + 1);
    fileMenu_->insertMenu(before, windowDiffMenu_);
    rebuildWindowMenu();
}

void MainWindow::rebuildWindowMenu()
{
    windowDiffMenu_->clear();
    const QList<MainWindow*> others = otherWindows();
    const bool placed = hub_->document() && hub_->document()->isPlaced();
    int index = 0;
    for (MainWindow* other : others) {
        ++index;
        QString name = other->documentName();
        if (name.isEmpty())
            name = tr("(empty window)");
        // Two windows on files of one name: tell them apart by their order.
        int same = 0;
        for (MainWindow* w : others)
            same += w->documentName() == other->documentName() ? 1 : 0;
        if (same > 1)
            name += tr(" (window %1)").arg(index);
        QAction* action = windowDiffMenu_->addAction(name);
        action->setData(index - 1);
        action->setEnabled(placed && other->hub()->document() && other->hub()->document()->isPlaced());
        action->setToolTip(other->hub()->document() ? other->hub()->document()->path : QString());
        QPointer<MainWindow> target(other);
        connect(action, &QAction::triggered, this, [this, target] {
            if (target)
                diffWithWindow(target);
        });
    }
    if (others.isEmpty())
        windowDiffMenu_->addAction(tr("No other window (File ▸ New Window)"))->setEnabled(false);
}

QList<MainWindow*> MainWindow::otherWindows() const
{
    QList<MainWindow*> windows;
    for (QWidget* widget : QApplication::topLevelWidgets())
        if (auto* window = qobject_cast<MainWindow*>(widget); window && window != this)
            windows.push_back(window);
    return windows;
}

QString MainWindow::documentName() const
{
    const DocumentPtr& document = hub_->document();
    return document ? displayName(document->path) : QString();
}

QString MainWindow::displayName(const QString& path)
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

MainWindow* MainWindow::newWindow()
{
    auto* window = new MainWindow; // a top-level window of its own, not a child of this one
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setInteractiveErrors(interactiveErrors_);
    window->move(pos() + QPoint(40, 40));
    window->show();
    return window;
}

void MainWindow::setCriticalPathShown(bool on)
{
    const QScopedValueRollback guard(settingCriticalPath_, true);
    criticalPathAction_->setChecked(on);
}

bool MainWindow::isCriticalPathShown() const { return criticalPathAction_->isChecked(); }

PlacementDiffDialog* MainWindow::activeDiff() const { return diff_.dialog.data(); }

Placement MainWindow::placementFromWindow(const MainWindow& other, QString* problem) const
{
    const DocumentPtr& mine = hub_->document();
    const DocumentPtr& theirs = other.hub()->document();
    const QString me = documentName();
    const QString them = other.documentName();
    if (!theirs || !theirs->isPlaced()) {
        *problem = tr("%1 shows no placement to diff against.").arg(them.isEmpty() ? tr("The other window") : them);
        return {};
    }
    const Graph& graph = *mine->graph;
    const Graph& otherGraph = *theirs->graph;
    if (graph.opCount() != otherGraph.opCount()) {
        *problem = tr("The graphs differ: %1 has %2 ops, %3 has %4. Only placements of one graph can be diffed.")
                       .arg(me)
                       .arg(graph.opCount())
                       .arg(them)
                       .arg(otherGraph.opCount());
        return {};
    }
    Placement placement(static_cast<size_t>(graph.opCount()), kNoDevice);
    std::unordered_map<std::string, DeviceId> deviceOf; // the other window's device -> ours
    for (OpId op = 0; op < graph.opCount(); ++op) {
        // The same file read twice lists its ops in one order: try the same id first.
        const std::string& name = graph.op(op).name;
        std::optional<OpId> there = otherGraph.op(op).name == name ? std::optional<OpId>(op) : otherGraph.find(name);
        if (!there) {
            *problem = tr("The graphs differ: op “%1” of %2 is not in %3. Only placements of one graph can be diffed.")
                           .arg(QString::fromStdString(name), me, them);
            return {};
        }
        const DeviceId d = theirs->placement[static_cast<size_t>(*there)];
        if (d < 0 || d >= theirs->cluster->deviceCount()) {
            *problem = tr("%1 leaves op “%2” unplaced.").arg(them, QString::fromStdString(name));
            return {};
        }
        const std::string& deviceName = theirs->cluster->device(d).name;
        auto it = deviceOf.find(deviceName);
        if (it == deviceOf.end()) {
            const std::optional<DeviceId> here = mine->cluster->find(deviceName);
            if (!here) {
                *problem = tr("The clusters differ: %1 places ops on %2, which %3's cluster (%4) does not have.")
                               .arg(them, QString::fromStdString(deviceName), me,
                                    QString::fromStdString(mine->cluster->name()));
                return {};
            }
            it = deviceOf.emplace(deviceName, *here).first;
        }
        placement[static_cast<size_t>(op)] = it->second;
    }
    return placement;
}

void MainWindow::refuseDiff(const QString& message)
{
    setStatus(message);
    emit diffRefused(message);
    if (!interactiveErrors_)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Post Studio"), tr("Cannot diff the two windows"),
                                QMessageBox::Ok, this);
    box->setInformativeText(message.toHtmlEscaped());
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

PlacementDiffDialog* MainWindow::diffWithWindow(MainWindow* other)
{
    if (!other || other == this)
        return nullptr;
    const DocumentPtr& document = hub_->document();
    if (!document || !document->isPlaced()) {
        refuseDiff(tr("This window shows no placement to diff."));
        return nullptr;
    }
    QString problem;
    Placement theirs = placementFromWindow(*other, &problem);
    if (theirs.empty()) {
        refuseDiff(problem);
        return nullptr;
    }
    DiffSide shown;
    shown.shown = true;
    DiffSide window;
    window.fixed = std::move(theirs);
    window.window = other;
    // The other window's placement changes too (its run, its Compare rows): follow it.
    connect(other->hub(), &DocumentHub::documentChanged, this, &MainWindow::updateDiff, Qt::UniqueConnection);
    QString myName = documentName();
    QString theirName = other->documentName();
    if (myName == theirName) { // the same file in both: say which window is which
        myName = tr("this window");
        theirName = tr("%1 in the other window").arg(theirName);
    }
    return showDiff(std::move(shown), std::move(window), myName, theirName);
}

PlacementDiffDialog* MainWindow::showDiff(DiffSide from, DiffSide to, const QString& fromName, const QString& toName)
{
    const DocumentPtr document = hub_->document();
    if (!document)
        return nullptr;
    if (from.shown)
        from.fixed = document->placement;
    if (to.shown)
        to.fixed = document->placement;
    closeDiff(QString()); // one diff at a time on the graph
    auto* dialog = new PlacementDiffDialog(document->graph, document->cluster, from.fixed, to.fixed, fromName, toName,
                                           this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PlacementDiffDialog::opActivated, this, [this](OpId op) { selectOp(op); });
    connect(dialog, &QObject::destroyed, this, [this, dialog] {
        // Closed by the user: its marks go with it (not those of a diff opened since).
        if (!diff_.dialog || diff_.dialog.data() == dialog) {
            diff_ = ActiveDiff{};
            graphPanel_->scene()->setMovedOps(0, {});
        }
    });
    diff_.dialog = dialog;
    diff_.from = std::move(from);
    diff_.to = std::move(to);
    diff_.graphId = document->graphId;
    graphPanel_->scene()->setMovedOps(document->graphId,
                                      movedDevices(diff_.from.fixed, diff_.to.fixed, document->cluster->deviceCount()));
    dialog->show();
    return dialog;
}

void MainWindow::closeDiff(const QString& why)
{
    if (PlacementDiffDialog* dialog = diff_.dialog) {
        diff_.dialog = nullptr;
        dialog->close(); // deleted on close
    }
    diff_ = ActiveDiff{};
    graphPanel_->scene()->setMovedOps(0, {});
    if (!why.isEmpty())
        setStatus(why);
}

void MainWindow::updateDiff()
{
    if (!diff_.dialog)
        return;
    const DocumentPtr& document = hub_->document();
    if (!document || document->graphId != diff_.graphId || !document->isPlaced()) {
        closeDiff(tr("Placement diff closed: the window shows another graph"));
        return;
    }
    bool changed = false;
    for (DiffSide* side : {&diff_.from, &diff_.to}) {
        Placement now = side->fixed;
        if (side->shown) {
            now = document->placement;
        } else if (side->window) {
            QString problem;
            now = placementFromWindow(*side->window, &problem);
            if (now.empty()) {
                closeDiff(tr("Placement diff closed: %1").arg(problem));
                return;
            }
        }
        if (now != side->fixed) {
            side->fixed = std::move(now);
            changed = true;
        }
    }
    const bool clusterChanged = diff_.dialog->pairTable()->rowCount() != document->cluster->deviceCount();
    if (changed || clusterChanged)
        diff_.dialog->setPlacements(document->cluster, diff_.from.fixed, diff_.to.fixed);
    graphPanel_->scene()->setMovedOps(document->graphId,
                                      movedDevices(diff_.from.fixed, diff_.to.fixed, document->cluster->deviceCount()));
}

} // namespace post
