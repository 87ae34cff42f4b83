#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/graphview/ColourMode.h"
#include "ui/layout/LayoutInput.h"
#include "ui/layout/LayoutResult.h"
#include "ui/layout/ViewGraph.h"
#include "ui/theme/Legend.h"
#include "ui/theme/ViewTheme.h"

#include <QGraphicsScene>

#include <cstdint>
#include <vector>

namespace post {

class EdgeItem;
class FrameItem;
class NodeItem;

// The drawn graph: one NodeItem per view node and one EdgeItem per view edge, placed by a
// LayoutResult. Knows which op each box stands for, so selection and search speak ops.
class GraphScene : public QGraphicsScene {
    Q_OBJECT

public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    // New content: removes every item; nothing is drawn until applyLayout().
    void setContent(DocumentPtr document, ViewGraph view);
    // Same graph with, say, a new placement: recolours without a new layout.
    void setDocument(DocumentPtr document);
    void clearContent();

    // What to lay out: the view graph with each box's size measured from its labels.
    LayoutInput layoutInput(LayoutEngine engine) const { return layoutInputFor(view_, engine); }
    static LayoutInput layoutInputFor(const ViewGraph& view, LayoutEngine engine);
    // Creates the items; the result must come from layoutInput() of the current content
    // (frames without a rect are fitted around their boxes).
    void applyLayout(const LayoutResult& result);
    // The layout the items were made from (what opening a scope starts from).
    const LayoutResult& appliedLayout() const { return applied_; }

    const DocumentPtr& document() const { return document_; }
    const ViewGraph& viewGraph() const { return view_; }
    bool isLaidOut() const { return !nodes_.empty() || view_.nodes.empty(); }
    int nodeItemCount() const { return static_cast<int>(nodes_.size()); }
    int edgeItemCount() const { return static_cast<int>(edges_.size()); }
    NodeItem* itemForNode(int viewNode) const;
    NodeItem* itemForOp(OpId op) const;
    // Scope views: one frame per open scope (ViewGraph::frames).
    int frameItemCount() const { return static_cast<int>(frames_.size()); }
    FrameItem* itemForFrame(int frame) const;

    void setColourMode(ColourMode mode);
    ColourMode colourMode() const { return mode_; }
    void setTheme(const ViewTheme& theme);
    const ViewTheme& theme() const { return theme_; }
    const Legend& legend() const { return legend_; }

    // Selects the box holding `op` (without emitting opSelected); kNoOp clears.
    void selectOp(OpId op);
    OpId selectedOp() const { return selectedOp_; }
    // Marks search hits with a halo; an empty list clears them.
    void highlightOps(const std::vector<OpId>& ops);

    // The simulated critical path of the shown placement (its ops in time order, of the
    // graph `graphId`), drawn while shown: each op's box outlined in the theme's critical
    // colour, the edges joining consecutive ops of the path thickened, and a box or open
    // scope's frame holding some of them badged with their count. Kept across layouts and
    // recolourings; ignored while another graph is shown. Empty clears.
    void setCriticalPath(std::uint64_t graphId, std::vector<OpId> ops);
    void setCriticalPathShown(bool on);
    bool isCriticalPathShown() const { return criticalShown_; }
    const std::vector<OpId>& criticalPath() const { return criticalOps_; }
    // A placement diff: per op of the graph `graphId`, the device it moves to (kNoDevice:
    // it stays). Moved ops get a dashed outline in that device's colour, boxes and frames a
    // badge with how many of their ops move. Empty clears.
    void setMovedOps(std::uint64_t graphId, std::vector<DeviceId> movedTo);
    bool hasMovedOps() const { return !movedTo_.empty(); }
    EdgeItem* itemForEdge(int viewEdge) const;

signals:
    // The user selected a box: its op, or the first op of a group.
    void opSelected(post::OpId op);
    void legendChanged();

private:
    void recolour();
    void recolourFrames();
    void onSelectionChanged();
    void markSelectedEdges(int viewNode);
    void applyMarks();

    DocumentPtr document_;
    ViewGraph view_;
    std::vector<NodeItem*> nodes_;
    std::vector<EdgeItem*> edges_;
    std::vector<FrameItem*> frames_;
    LayoutResult applied_;
    std::vector<std::vector<EdgeItem*>> edgesOfNode_;
    std::vector<NodeItem*> highlighted_;
    ColourMode mode_ = ColourMode::Device;
    ViewTheme theme_ = ViewTheme::light();
    Legend legend_;
    OpId selectedOp_ = kNoOp;
    int selectedNode_ = -1;
    bool selectingFromCode_ = false;
    std::uint64_t criticalGraph_ = 0;
    std::vector<OpId> criticalOps_;
    bool criticalShown_ = false;
    std::uint64_t movedGraph_ = 0;
    std::vector<DeviceId> movedTo_;
};

} // namespace post
