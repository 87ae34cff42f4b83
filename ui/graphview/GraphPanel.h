#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/graphview/ColourMode.h"
#include "ui/layout/LayoutPolicy.h"
#include "ui/layout/LayoutResult.h"
#include "ui/layout/ScopeRelayout.h"

#include <QFutureWatcher>
#include <QSet>
#include <QWidget>

#include <optional>

namespace post {

class ScopeTree;
class GraphScene;
class GraphView;
class LayoutController;
class LegendWidget;
class OpSearchWidget;
class OverviewWidget;
class RetryOverlay;

// The graph tab: the view of the scene with overlays down its right side (search,
// legend, overview) and the layout thread behind it.
class GraphPanel : public QWidget {
    Q_OBJECT

public:
    explicit GraphPanel(QWidget* parent = nullptr);
    ~GraphPanel() override;

    // A new graph: builds what to draw (grouped when large) and lays it out off the
    // GUI thread. Any earlier layout still running is superseded.
    void setDocument(DocumentPtr document);
    // The same graph with other data (e.g. a new placement): recolours only.
    void updateDocument(DocumentPtr document);
    // What DocumentHub::documentChanged calls: updateDocument when `document` shows the
    // graph already drawn (the same GraphDocument::graphId), else setDocument; clear() for null.
    void showDocument(DocumentPtr document);
    void clear();

    // Every op, groups, or whichever LayoutPolicy finds readable and fast; relays out.
    void setGrouping(Grouping grouping);
    Grouping grouping() const { return grouping_; }
    void setColourMode(ColourMode mode);
    ColourMode colourMode() const;
    void setOverviewWanted(bool wanted);
    bool overviewWanted() const { return overviewWanted_; }
    bool isLayoutBusy() const;
    // How the shown layout was made.
    struct LayoutInfo {
        LayoutEngine engine = LayoutEngine::Dot;
        double elapsedMs = 0.0;
    };
    LayoutInfo lastLayout() const { return lastLayout_; }

    // Expand-a-group (grouped views): these groups (ViewNode::key) are drawn op by op. Each
    // change lays out again on the layout thread; the current drawing stays until then.
    void expandGroup(const QString& key);
    void collapseGroup(const QString& key, OpId focus = kNoOp);
    void collapseAllGroups();
    const QSet<QString>& expandedGroups() const { return expanded_; }
    // Scope views (the graph drawn by name scope): expandGroup() of a closed scope's box
    // opens it in place, laying out only its content (the rest keeps its places or moves
    // aside as blocks); collapseGroup() of an open scope's frame closes it at once, the same
    // way; collapseAllGroups() draws the top scopes only. Return opens the selected box's
    // scope, Backspace closes the frame around the selected box.
    bool showsScopes() const;
    void openSelectedScope();
    void closeSelectedScope();
    // Lays the shown graph out again (what "Lay Out Again" does after a cancel).
    void relayout();
    RetryOverlay* retryOverlay() const { return retry_; }

    // Selects the op's box; with `centre` also scrolls it into the middle of the view.
    void selectOp(OpId op, bool centre);

    GraphScene* scene() const { return scene_; }
    GraphView* view() const { return view_; }
    OverviewWidget* overview() const { return overview_; }
    LegendWidget* legend() const { return legend_; }
    OpSearchWidget* search() const { return search_; }
    LayoutController* layoutController() const { return layout_; }

    // Nodes above which the overview shows (when wanted).
    static constexpr int kOverviewAboveNodes = 30;
    // Graphs of more ops than this build their scope tree on a pool thread (the 100k-op
    // nmt-8 --steps 200 takes about a second); the view says so meanwhile.
    static constexpr int kScopeTreeOffThreadAbove = 20000;
    bool isGroupingByScope() const { return treeGraph_ != nullptr; }

public slots:
    void showSearch();
    void cancelLayout();
    void fitToWindow();
    void actualSize();

signals:
    void opSelected(post::OpId op); // by the user, in the graph or the search
    void layoutStarted();
    void layoutApplied(); // the scene now shows the current document
    void layoutFailed(const QString& message);
    void layoutCancelled();
    void layoutBusyChanged(bool busy);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void onLayoutReady(const LayoutResult& result);
    void onLayoutCancelled(quint64 requestId);
    void applyTheme();
    void placeOverlays();
    void updateOverviewVisibility();
    void showStartOfGraph();
    LayoutPlan planFor(const Graph& graph);
    bool usesScopes(const Graph& graph);
    void openScope(const QString& key);
    void closeScope(const QString& key);
    // `key` by value: callers pass a key of the view this replaces (ASan: read after the old
    // view's frames were freed, closing a scope with the keyboard).
    void showScopeChange(DocumentPtr document, ViewGraph view, const LayoutResult& layout, QString key);

    GraphScene* scene_;
    GraphView* view_;
    LegendWidget* legend_;
    OverviewWidget* overview_;
    OpSearchWidget* search_;
    LayoutController* layout_;
    quint64 pendingRequest_ = 0;
    bool overviewWanted_ = true;
    Grouping grouping_ = Grouping::Auto;
    LayoutInfo lastLayout_;
    // A relayout of the graph on show: applied when its layout arrives, dropped on cancel.
    DocumentPtr pendingDocument_;
    std::optional<ViewGraph> pendingView_;
    QSet<QString> expanded_;
    QSet<QString> drawnExpanded_; // what the scene shows; a cancelled relayout goes back to it
    OpId focusOp_ = kNoOp;        // centred after the next layout (the group just expanded)
    RetryOverlay* retry_;
    // Scope views: the tree of the graph on show (built once per graph), the scopes open
    // for the next full layout, and an opening whose inner layout is on its way.
    std::shared_ptr<const ScopeTree> scopes_;
    const Graph* scopesGraph_ = nullptr;
    std::vector<int> openScopes_;
    std::vector<std::pair<int, QString>> openSeries_;
    struct ScopeOpening {
        DocumentPtr document;
        ViewGraph next;
        QString key;
        ScopeRelayout::Inner inner;
    };
    std::optional<ScopeOpening> pendingOpening_;
    // The scope tree being built on a pool thread, and for which graph (null: none).
    QFutureWatcher<std::shared_ptr<const ScopeTree>>* treeWatcher_;
    const Graph* treeGraph_ = nullptr;
    void onTreeBuilt();
};

} // namespace post
