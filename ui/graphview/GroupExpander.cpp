#include "ui/graphview/GroupExpander.h"

#include "ui/graphview/FrameItem.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/GraphView.h"
#include "ui/graphview/NodeItem.h"
#include "ui/layout/ViewGraphBuilder.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>

namespace post {
namespace {

const ViewNode* viewNodeAt(GraphPanel* panel, const QPoint& pos)
{
    QGraphicsItem* item = panel->view()->itemAt(pos);
    while (item && item->type() != NodeItem::Type)
        item = item->parentItem();
    if (!item)
        return nullptr;
    const ViewGraph& view = panel->scene()->viewGraph();
    const int index = static_cast<NodeItem*>(item)->viewNode();
    return index >= 0 && index < view.nodeCount() ? &view.nodes[static_cast<size_t>(index)] : nullptr;
}

// The frame (an open scope) whose header is at `pos`, or -1.
int frameAt(GraphPanel* panel, const QPoint& pos)
{
    QGraphicsItem* item = panel->view()->itemAt(pos);
    return item && item->type() == FrameItem::Type ? static_cast<FrameItem*>(item)->frame() : -1;
}

// Scope views: open a closed scope's box, close an open scope (its frame, or the frame
// around a box).
bool scopeEvent(GraphPanel* panel, QEvent* event)
{
    const ViewGraph& view = panel->scene()->viewGraph();
    if (event->type() == QEvent::MouseButtonDblClick) {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() != Qt::LeftButton)
            return false;
        const QPoint at = mouse->position().toPoint();
        if (const ViewNode* node = viewNodeAt(panel, at);
            node && (node->kind == ViewNode::Kind::Scope || node->kind == ViewNode::Kind::Series)) {
            panel->expandGroup(node->key);
            return true;
        }
        if (const int frame = frameAt(panel, at); frame >= 0) {
            panel->collapseGroup(view.frames[static_cast<size_t>(frame)].key);
            return true;
        }
        return false;
    }
    const auto* context = static_cast<QContextMenuEvent*>(event);
    const ViewNode* node = viewNodeAt(panel, context->pos());
    int frame = frameAt(panel, context->pos());
    QMenu menu;
    if (node && (node->kind == ViewNode::Kind::Scope || node->kind == ViewNode::Kind::Series)) {
        const QString key = node->key;
        const QString text = node->kind == ViewNode::Kind::Scope ? GroupExpander::tr("Open Scope “%1”")
                                                                 : GroupExpander::tr("Open Series “%1”");
        QAction* open = menu.addAction(text.arg(node->title), panel, [panel, key] { panel->expandGroup(key); });
        open->setShortcut(Qt::Key_Return);
    }
    if (node)
        frame = node->frame;
    if (frame >= 0) {
        const ViewFrame& f = view.frames[static_cast<size_t>(frame)];
        const QString key = f.key;
        const QString text = f.scope >= 0 ? GroupExpander::tr("Close Scope “%1”")
                                          : GroupExpander::tr("Close Series “%1”");
        QAction* close = menu.addAction(text.arg(f.title), panel, [panel, key] { panel->collapseGroup(key); });
        close->setShortcut(Qt::Key_Backspace);
    }
    if (!view.frames.empty())
        menu.addAction(GroupExpander::tr("Close All Scopes"), panel, [panel] { panel->collapseAllGroups(); });
    if (menu.isEmpty())
        return false;
    menu.exec(context->globalPos());
    return true;
}

} // namespace

GroupExpander::GroupExpander(GraphPanel* panel)
    : QObject(panel)
    , panel_(panel)
{
    panel->view()->viewport()->installEventFilter(this);
}

bool GroupExpander::eventFilter(QObject* watched, QEvent* event)
{
    // Look at the type first: the viewport still gets events (hide, destroy) while the
    // panel is being torn down, when it is no longer a GraphPanel to call into.
    if (event->type() != QEvent::MouseButtonDblClick && event->type() != QEvent::ContextMenu)
        return QObject::eventFilter(watched, event);
    if (!panel_->scene()->viewGraph().grouped || !panel_->scene()->document())
        return QObject::eventFilter(watched, event);
    if (panel_->showsScopes())
        return scopeEvent(panel_, event) || QObject::eventFilter(watched, event);
    if (event->type() == QEvent::MouseButtonDblClick) {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        const ViewNode* node = viewNodeAt(panel_, mouse->position().toPoint());
        if (mouse->button() == Qt::LeftButton && node && node->isGroup()) {
            panel_->expandGroup(node->key);
            return true;
        }
    } else if (event->type() == QEvent::ContextMenu) {
        const auto* context = static_cast<QContextMenuEvent*>(event);
        const ViewNode* node = viewNodeAt(panel_, context->pos());
        QMenu menu;
        if (node && node->isGroup()) {
            const QString key = node->key;
            menu.addAction(tr("Expand “%1”").arg(node->title), panel_, [this, key] { panel_->expandGroup(key); });
        } else if (node && !panel_->expandedGroups().isEmpty()) {
            // Which group the op was drawn in before it was expanded.
            const OpId op = node->ops.front();
            const ViewGraph collapsed = ViewGraphBuilder::grouped(*panel_->scene()->document()->graph);
            const ViewNode& group = collapsed.nodes[static_cast<size_t>(collapsed.nodeOfOp[static_cast<size_t>(op)])];
            if (panel_->expandedGroups().contains(group.key)) {
                const QString key = group.key;
                menu.addAction(tr("Collapse “%1”").arg(group.title), panel_,
                               [this, key, op] { panel_->collapseGroup(key, op); });
            }
        }
        if (!panel_->expandedGroups().isEmpty())
            menu.addAction(tr("Collapse All Groups"), panel_, [this] { panel_->collapseAllGroups(); });
        if (menu.isEmpty())
            return QObject::eventFilter(watched, event);
        menu.exec(context->globalPos());
        return true;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace post
