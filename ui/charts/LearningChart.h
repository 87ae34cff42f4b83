#pragma once

#include "core/graph/Dispatch.h"
#include "ui/charts/RunPhases.h"
#include "ui/learn/LearnerSnapshot.h"

#include <QChartView>
#include <QElapsedTimer>
#include <QPointF>
#include <QStringList>
#include <QVector>

#include <limits>
#include <optional>
#include <vector>

class QAbstractAxis;
class QLineSeries;
class QLogValueAxis;
class QTimer;
class QValueAxis;

namespace post {

// The learning curve of one run: sampled step times (scatter), best so far (from a warm
// start's placement when the run has one) and the cross-entropy elite threshold, with the
// lower bound, the best single GPU and the best classical placer as reference lines; policy
// entropy in its own strip under them (painted by the view below the chart's plot area, in a
// bottom margin kept free for it, with the plot's sample axis). The step-time axis is linear
// or logarithmic. Points are kept in buffers and the series
// are refilled with replace() once per snapshot (append() is quadratic on Qt 6.4). Samples
// are QLineSeries drawn as points only: QScatterSeries makes one graphics item per point
// (replace() of 20,000 took about 1 s against 5 ms).
class LearningChart : public QChartView {
    Q_OBJECT

public:
    explicit LearningChart(QWidget* parent = nullptr);
    ~LearningChart() override;

    // Empties the chart for a run of `plannedSamples`.
    void reset(int plannedSamples = 0);
    // The title: "Learning curve: ALGORITHM, N samples" (restored: so marked), followed by what
    // the run did once its phases are known ("classical starts, local search, race of 5 Post
    // runs", or "... only (the budget ran out before any learning)" when it never learned). A
    // run timed under critical-path dispatch says so after its samples.
    void setRunTitle(const QString& algorithm, int samples, bool restored = false,
                     Dispatch dispatch = Dispatch::ReadyOrder);
    QString title() const;
    const RunPhases& phases() const { return phases_; }
    void addSnapshot(const post::LearnerSnapshot& snapshot);
    // A restored run goes on (LearnerPanel::continuedFrom): its points and lines stay, the
    // sample axis now runs to `plannedSamples`.
    void continueRun(int plannedSamples);
    // The run has a time limit (after reset() or continueRun(), which clear it): its samples
    // may end far short of the planned budget, so while it goes the sample axis runs to a
    // round number a fifth past the last sample (1, 2 or 5 times a power of ten), at most the
    // budget, instead of to the budget.
    void setTimeLimited(bool limited);

    // The run's result (ms; NaN when none fits): when it beats the best-so-far line (found by
    // evaluations that were no samples, such as a final greedy pick), the line steps down to
    // it at the last sample, so it never ends above the best the learner panel reports.
    void finishRun(double bestMs);
    // A bound a placer proved for this graph and cluster (PlaceResult::bounds: solverBoundUs and
    // groupedBoundUs: milp's, from this run or a comparison's milp row). An op-level bound
    // above the polynomial one becomes the lower-bound line, labelled "milp" (and "proven
    // optimal" when so); a grouped bound gets a line of its own, labelled as valid for the
    // grouping only, never as the lower bound. The plot's corner (boundNote) gives the
    // certified gap of the best so far, (best - bound) / bound.
    void setProvenBound(double opLevelMs, bool provenOptimal, double groupedMs = 0.0, int groupedChunks = 0);
    // The lower-bound line as drawn (ms, 0 when none), what gives it ("critical-path", "work",
    // "fork-join", "device-windows", "milp"), the certified gap of the best so far (NaN when
    // unknown) and the grouped bound's line (ms, 0 when none).
    double lowerBoundMs() const { return lowerBoundMs_; }
    QString lowerBoundSource() const { return lowerBoundSource_; }
    double certifiedGap() const;
    // What the plot's corner says: the certified gap to the lower bound and its source, or
    // "best proven optimal (milp)", and a grouped bound with its chunks, labelled as no bound
    // of this graph; empty when there is nothing to say.
    QString boundNote() const;
    double groupedBoundMs() const { return groupedBoundMs_; }
    QLineSeries* lowerBoundSeries() const { return lowerBoundSeries_; }
    QLineSeries* groupedBoundSeries() const { return groupedBoundSeries_; }
    // The legend's visible entries, in order: only series that have points.
    QStringList legendNames() const;

    int sampleCount() const { return static_cast<int>(feasible_.size() + infeasible_.size()); }
    // Nothing of a run is drawn (no title of one, no sample, no bound): as reset() leaves it.
    bool isEmpty() const { return titleAlgorithm_.isEmpty() && sampleCount() == 0 && !(lowerBoundMs_ > 0.0); }
    const QVector<QPointF>& bestPoints() const { return best_; }
    // The best classical placer's step time (NaN when unknown) and its name, as drawn.
    double classicalMs() const { return classicalMs_; }
    QString classicalName() const { return classicalName_; }
    QLineSeries* classicalSeries() const { return classicalSeries_; }
    // For a graph eager PyTorch runs: its host thread's dispatch of the step's ops
    // (cost/HostDispatch.h), a line no placement gets below on real hardware; NaN: none. The
    // graph's, not the run's: reset() keeps it, the window sets it for each graph it shows.
    void setHostDispatch(double ms);
    double hostDispatchMs() const { return hostDispatchMs_; }
    QLineSeries* hostDispatchSeries() const { return hostDispatchSeries_; }

    // Out-of-memory samples carry a penalty, not a time: they are drawn at this step time,
    // the top edge of the plot as shown (a hair below it, so the markers stay whole).
    double outOfMemoryY() const;
    // The row those samples take at the top of the plot, in view coordinates: from the plot's
    // top edge to just below their markers. Nothing else is written into it.
    QRectF outOfMemoryRow() const;
    // The phases' labels as drawn ("local search", "run 2", …), in view coordinates: each
    // starts where its phase does, just below the out-of-memory row, and is drawn only where
    // it fits its phase and stays clear of the bound's note.
    struct PhaseLabel {
        QString text;
        QRectF rect;
    };
    std::vector<PhaseLabel> phaseLabels() const;
    // The elite threshold's series: one per phase of the run (a race's runs are never
    // joined), the first carrying the legend entry.
    QList<QLineSeries*> eliteSeries() const;
    QLineSeries* infeasibleSeries() const { return infeasibleSeries_; }

    // The sample drawn nearest to `viewPos` (within a few pixels), or -1.
    int sampleAt(const QPoint& viewPos);
    // Where sample `index` is drawn, in view coordinates (for tests); nullopt if not drawn.
    std::optional<QPoint> samplePosition(int index);
    // Brings the series up to date now rather than in the next event-loop pass.
    void flush();

    // Zoom: a rubber band drawn with the mouse, the wheel, or zoomTo (sample and ms
    // ranges). While zoomed the axes stay put as samples arrive; resetZoom goes back to
    // following the run.
    void zoomTo(double firstSample, double lastSample, double lowMs, double highMs);
    void resetZoom();
    bool isZoomed() const { return zoomed_; }
    // Pans by a distance in pixels (dragging with the middle button or Ctrl+left, Shift+wheel,
    // the arrow keys): the data moves with the mouse. Freezes the axes like a zoom.
    void pan(qreal dx, qreal dy);

    // A logarithmic step-time axis (context menu, key L); the zoom is reset.
    void setLogScale(bool on);
    bool isLogScale() const { return log_; }
    // The step-time axis as drawn (QValueAxis or QLogValueAxis) and its range.
    QAbstractAxis* stepAxis() const;
    double stepAxisMin() const;
    double stepAxisMax() const;
    // The sample axis, shared by the strip.
    QValueAxis* sampleAxis() const { return xAxis_; }

    // The entropy strip under the step times (view coordinates; empty while the chart has no
    // room), its points (sample, entropy 0..1) and where the point of sample `x`, entropy `e`
    // is drawn in it.
    QRectF entropyStripRect() const;
    const QVector<QPointF>& entropyPoints() const { return entropy_; }
    QPointF entropyPosition(double x, double e) const;

    // The sample with the best step time (the first to reach it), or -1 when the best so far
    // is no sample (a warm start's placement, a learner's final pick) or there is none.
    int bestSampleIndex() const { return bestFromSample_ ? bestSample_ : -1; }

public slots:
    // Marks sample `index` and emits sampleClicked (what a click on its point does).
    void selectSample(int index);
    // "Show Best" (context menu, key B): marks the best sample and shows it like a click,
    // bringing it into view when zoomed away; when the best is no sample, emits bestRequested.
    void showBest();

signals:
    void sampleClicked(int index);
    // The best so far is no sample's: the window shows the run's best placement.
    void bestRequested();

public:
    // Atomic writes. They throw InputError (SVG, CSV) or return false (PNG) when the
    // file cannot be written.
    bool savePng(const QString& path);
    void saveSvg(const QString& path);
    void saveCsv(const QString& path) const;

    // Whether the chart is drawn with its dark theme (follows the widget's palette).
    bool isDarkTheme() const { return dark_; }

protected:
    void changeEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    // Snapshots only fill the buffers; the series are refilled from them in a later pass of
    // the event loop, so a snapshot's handling and the chart's refill never add up to one
    // long stall of the GUI thread (docs/studio.md, "Event-loop latency").
    void scheduleRefresh();
    void refresh();
    // Fits the axes to the data (unless zoomed); `force` recomputes even when the shown
    // range would still do.
    void updateAxes(bool force = false);

    // Picks the light or dark chart theme from the palette. A theme change resets every
    // series' pen and marker, so the series are styled again afterwards.
    void applyTheme();
    void styleSeries();
    void updateLegend();
    // Keeps the bottom margin of the chart free for the entropy strip.
    void layoutStrip();
    void paintEntropyStrip(QPainter* painter) const;
    void setStepRange(double lo, double hi);
    // Round ticks (ChartTicks) on the linear axes for the range as shown.
    void applyTicks();
    void updateTitle();
    // The phases' marks and labels (phaseLabels).
    void paintPhaseMarks(QPainter* painter) const;
    // The bound's note (the certified gap, any grouped bound) in the plot's top right corner:
    // its box (empty without a note), and its painting.
    QRectF boundNoteRect() const;
    void paintBoundNote(QPainter* painter) const;
    // The plot area in view coordinates; the fonts of the note and the phase labels.
    QRectF plotRectInView() const;
    QFont boundNoteFont() const;
    QFont phaseLabelFont() const;
    // The polynomial bound of the run; the line shows it or a larger proven one.
    void setLowerBound(double polynomialMs, const QString& source);

    QLineSeries* feasibleSeries_ = nullptr;
    QLineSeries* infeasibleSeries_ = nullptr;
    QLineSeries* bestSeries_ = nullptr;
    QLineSeries* eliteSeries_ = nullptr;
    QLineSeries* lowerBoundSeries_ = nullptr;
    QLineSeries* groupedBoundSeries_ = nullptr;
    QLineSeries* singleDeviceSeries_ = nullptr;
    QLineSeries* classicalSeries_ = nullptr;
    QLineSeries* hostDispatchSeries_ = nullptr;
    QLineSeries* selectedSeries_ = nullptr;
    QTimer* refreshTimer_ = nullptr;
    QValueAxis* xAxis_ = nullptr;
    QValueAxis* yAxis_ = nullptr;       // linear step times
    QLogValueAxis* yLogAxis_ = nullptr; // logarithmic step times (one of the two is on the chart)
    int stripHeight_ = 0;
    bool log_ = false;
    bool panning_ = false;
    QPoint panFrom_;

    QVector<QPointF> feasible_;
    QVector<QPointF> infeasible_;
    QVector<QPointF> best_;
    QVector<QPointF> elite_;
    QVector<QPointF> entropy_;
    RunPhases phases_;
    QList<QLineSeries*> eliteSegments_; // eliteSeries_ and one more per further phase
    QString titleAlgorithm_;
    int titleSamples_ = 0;
    bool titleRestored_ = false;
    Dispatch titleDispatch_ = Dispatch::ReadyOrder;
    bool finished_ = false;
    bool ended_ = false;       // finishRun() since the last reset() or continueRun(): the axis fits the samples
    bool timeLimited_ = false; // setTimeLimited(): the axis grows with the samples
    QElapsedTimer sinceRefresh_;
    double bestMs_ = 0.0;
    bool haveBest_ = false;
    int bestSample_ = -1;
    bool bestFromSample_ = false;
    double lowerBoundMs_ = 0.0;
    QString lowerBoundSource_;
    double polynomialBoundMs_ = 0.0; // lowerBound() of the run (the line unless a proven one is larger)
    QString polynomialSource_;
    double provenBoundMs_ = 0.0; // op-level, from setProvenBound
    bool provenOptimal_ = false;
    double groupedBoundMs_ = 0.0;
    int groupedChunks_ = 0;
    double singleDeviceMs_ = 0.0; // NaN or 0 when unknown
    double classicalMs_ = std::numeric_limits<double>::quiet_NaN();
    QString classicalName_;
    double hostDispatchMs_ = std::numeric_limits<double>::quiet_NaN();
    int selected_ = -1;
    int plannedSamples_ = 0;
    int lastIndex_ = -1;
    bool dark_ = false;
    bool zoomed_ = false;
    // The ranges fitted to the data, which reference lines and pinned out-of-memory
    // points use whatever the zoom.
    double fittedXMax_ = 10.0;
    double fittedYMax_ = 1.0;
};

} // namespace post
