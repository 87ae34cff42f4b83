#pragma once

#include "core/graph/Placement.h"
#include "ui/document/GraphDocument.h"

#include <QObject>
#include <QString>

#include <cstdint>

namespace post {

class DocumentHub;
class LearnerPanel;
class PlacementCoalescer;

// A learner's new best placements on their way to the document: the one route from the
// learner panel to the hub. Bests go through a PlacementCoalescer (at most one a frame, none
// while the previous best's step is simulated, the newest wins, the run's last at its end)
// and are published with this feed as their origin, named by the run's placer and seed
// (provenance()). Another document from elsewhere (a chart click, a Compare row, another
// graph) is newer than a best still waiting: it is dropped, which the feed tells from its
// own change by DocumentHub::origin().
class BestPlacementFeed : public QObject {
    Q_OBJECT

public:
    // Follows `learner` from now on; connect other slots to LearnerPanel::finished after this
    // one, so a run's final best is shown before anything else hears of the end.
    BestPlacementFeed(DocumentHub* hub, LearnerPanel* learner, QObject* parent = nullptr);

    // What made the latest run's placements: its placer, and its seed when the run was its
    // own (a continued run's learner and seed are not the panel's).
    PlacementProvenance provenance() const;
    PlacementCoalescer* coalescer() const { return coalescer_; }

private:
    DocumentHub* hub_;
    PlacementCoalescer* coalescer_;
    QString algorithm_;
    std::uint64_t seed_ = 0;
    bool seedKnown_ = false;
};

} // namespace post
