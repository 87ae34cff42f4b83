// MainWindow's File ▸ New Window, File ▸ Diff with Window, View ▸ Show Critical Path and
// the placement diff on show (its moved ops marked on the graph view, its sides following
// the placements they stand for).
#include "ui/MainWindow.h"

#include "ui/compare/PlacementByNames.h"
#include "ui/compare/PlacementDiff.h"
#include "ui/compare/PlacementDiffController.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentName.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMessageBox>
#include <QScopedValueRollback>

namespace post {

void MainWindow::createDiffTools()
{
    // The diff on show (ui/compare) marks its moved ops on the graph.
    diffs_ = new PlacementDiffController(hub_, this);
    connect(diffs_, &PlacementDiffController::movedOps, graphPanel_->scene(), &GraphScene::setMovedOps);
    connect(diffs_, &PlacementDiffController::opActivated, this, [this](OpId op) { selectOp(op); });
    connect(diffs_, &PlacementDiffController::statusMessage, this, [this](const QString& text) { setStatus(text); });

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

QString MainWindow::displayName(const QString& path) { return documentDisplayName(path); }

MainWindow* MainWindow::newWindow()
{
    auto* window = new MainWindow; // a top-level window of its own, not a child of this one
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setInteractiveErrors(interactiveErrors_);
    window->move(pos() + QPoint(40, 40));
    window->fitToScreen();
    window->show();
    return window;
}

void MainWindow::setCriticalPathShown(bool on)
{
    const QScopedValueRollback guard(settingCriticalPath_, true);
    criticalPathAction_->setChecked(on);
}

bool MainWindow::isCriticalPathShown() const { return criticalPathAction_->isChecked(); }

PlacementDiffDialog* MainWindow::activeDiff() const { return diffs_->active(); }

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
    Placement theirs = placementByNames(*document, documentName(), other->hub()->document(), other->documentName(),
                                        &problem);
    if (theirs.empty()) {
        refuseDiff(problem);
        return nullptr;
    }
    PlacementDiffController::Side shown;
    shown.shown = true;
    PlacementDiffController::Side window;
    window.fixed = std::move(theirs);
    window.otherHub = other->hub(); // its placement changes too (its run, its Compare rows): followed
    QString myName = documentName();
    QString theirName = other->documentName();
    if (myName == theirName) { // the same file in both: say which window is which
        myName = tr("this window");
        theirName = tr("%1 in the other window").arg(theirName);
    }
    return diffs_->show(std::move(shown), std::move(window), myName, theirName);
}

} // namespace post
