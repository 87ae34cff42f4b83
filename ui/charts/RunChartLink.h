#pragma once

#include "core/graph/Placement.h"

#include <QObject>
#include <QString>

#include <functional>

namespace post {

class BestPlacementFeed;
class DocumentHub;
class LearnerPanel;
class LearningChart;
struct ProvenBound;
struct ProvenBounds;

// The learning chart's data route, so the window relays none of it: the learner's runs
// (start, continuation, reset, snapshots, end with milp's bounds), the bounds proved for the
// run's graph and cluster elsewhere (a Compare row, through the hub), and the chart's clicks
// back to the document (a sample's placement, the run's best), published through the hub
// with the run's provenance (BestPlacementFeed::provenance) and the chart as their origin.
class RunChartLink : public QObject {
    Q_OBJECT

public:
    // The run's best placement when the chart's "best" is asked for (the session recorder
    // keeps it: a restored run's best is no sample either); empty when not known yet.
    using BestLookup = std::function<Placement()>;

    RunChartLink(LearningChart* chart, LearnerPanel* learner, DocumentHub* hub, const BestPlacementFeed* feed,
                 BestLookup best, QObject* parent = nullptr);

signals:
    // What a click did ("Showing sample 3's placement"), for the status bar.
    void placementStatus(const QString& text);

private:
    void runStarted(int samples);
    void runFinished();
    void showBound(const ProvenBound& bound);
    void showBounds(const ProvenBounds& bounds);
    void showSample(int index);
    void showBest();
    bool fitsDocument(const Placement& placement) const;

    LearningChart* chart_;
    LearnerPanel* learner_;
    DocumentHub* hub_;
    const BestPlacementFeed* feed_;
    BestLookup best_;
};

} // namespace post
