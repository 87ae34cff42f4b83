#pragma once

#include "ui/document/SimulatedStep.h"
#include "ui/theme/ViewTheme.h"

#include <QAbstractScrollArea>
#include <QPoint>

namespace post {

// The Gantt chart of a simulated step: lane names down the left, a time axis (ms) along
// the top, one row per device and per used link. Painted directly (no item per bar): each
// lane's bars are sorted, so only the visible ones are visited, and runs of bars narrower
// than a pixel or two are drawn as one block.
// Wheel zooms time under the mouse, Shift+wheel pans time, Ctrl+wheel scrolls lanes; drag
// pans; F fits. Clicking a bar emits opClicked (a transfer: its producer).
class TimelineView : public QAbstractScrollArea {
    Q_OBJECT

public:
    using BarRef = SimulatedStep::BarRef;

    explicit TimelineView(QWidget* parent = nullptr);

    // Fits the whole step when the graph or cluster changed or the view was fitted before;
    // keeps the zoom otherwise (a new placement of the same graph).
    void setStep(StepPtr step);
    const StepPtr& step() const { return step_; }
    // Shown centred while there is no step.
    void setPlaceholderText(const QString& text);

    // Outlines the op's bar (and its transfers) without emitting opClicked.
    void selectOp(OpId op);
    OpId selectedOp() const { return selected_; }
    // Outlines the step's critical path (SimulatedStep::criticalOps) in red; key C toggles.
    void setShowCriticalPath(bool on);
    bool showsCriticalPath() const { return showCritical_; }
    // Bars the last paint outlined as critical.
    int lastPaintedCritical() const { return lastPaintedCritical_; }

    int laneCount() const;
    int barCount() const;
    // Hit test in viewport coordinates (a few pixels of slack for thin bars).
    BarRef barAt(QPoint viewportPos) const;
    // The bar's rectangle in viewport coordinates (may lie outside the viewport).
    QRectF barRect(BarRef bar) const;
    QString toolTipFor(BarRef bar) const;
    // The label column: as wide as the longest lane name needs (up to kMaxHeaderWidth), each
    // lane's label as drawn (elided in the middle only past that width) and its tooltip (the
    // device's or link's whole name; for a collectives lane, what runs on it).
    static constexpr int kMaxHeaderWidth = 320;
    int headerWidth() const { return headerWidth_; }
    QString laneLabel(int lane) const;
    QString laneToolTip(int lane) const;
    // The lane whose label is at `viewportPos` (the label column), or -1.
    int laneLabelAt(QPoint viewportPos) const;
    // The op a bar stands for: the op itself, or the producer of a transfer.
    OpId opOf(BarRef bar) const;

    double visibleStartUs() const { return startUs_; }
    double visibleSpanUs() const;
    // Rectangles the last paint drew for bars (merged runs count once).
    int lastPaintedBars() const { return lastPaintedBars_; }

    static constexpr int kMinLaneHeight = 24;
    static constexpr int kMaxLaneHeight = 40;
    int laneHeight() const { return laneHeight_; }
    static constexpr int kAxisHeight = 26;

public slots:
    void fit();
    void zoomBy(double factor); // around the centre of the plot
    // Zooms and scrolls so that [fromUs, toUs] fills the plot (within the zoom limits).
    void showRange(double fromUs, double toUs);

signals:
    void opClicked(post::OpId op);
    void criticalPathToggled(bool on);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    double plotLeft() const { return headerWidth_; }
    double plotWidth() const;
    double xOf(double us) const { return plotLeft() + (us - startUs_) * pxPerUs_; }
    double usOf(double x) const { return startUs_ + (x - plotLeft()) / pxPerUs_; }
    double laneTop(int lane) const;
    double extentUs() const;
    double domainStart() const;
    double domainEnd() const;
    void zoomAround(double factor, double anchorX);
    void setStart(double us);
    void clampView();
    void updateScrollBars();
    void updateHeaderWidth();
    void updateLaneHeight();
    double barInset(bool link) const;
    void paintLane(QPainter& painter, int lane, double top);
    void paintAxis(QPainter& painter);
    void paintHeader(QPainter& painter);

    StepPtr step_;
    ViewTheme theme_;
    QString placeholder_;
    OpId selected_ = kNoOp;
    bool showCritical_ = true;
    int lastPaintedCritical_ = 0;
    double startUs_ = 0.0;
    double pxPerUs_ = 1.0;
    bool fitted_ = true;
    bool syncingBars_ = false;
    int headerWidth_ = 100;
    int laneHeight_ = kMinLaneHeight;
    int lastPaintedBars_ = 0;

    QPoint pressPos_;
    double pressStartUs_ = 0.0;
    int pressScrollY_ = 0;
    bool pressed_ = false;
    bool dragging_ = false;
};

} // namespace post
