#pragma once

#include "core/graph/Placement.h"
#include "ui/document/GraphDocument.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <optional>

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

    // What made the latest run's placements: its placer, its seed when the run was its own (a
    // continued run's learner and seed are not the panel's), and the placement it started
    // from when it began from the shown one (no file: the step time when the shown step was
    // simulated under the run's rule, and the fingerprint, as post-cli place --start writes).
    PlacementProvenance provenance() const;
    PlacementCoalescer* coalescer() const { return coalescer_; }

private:
    std::optional<PlacementStart> startOf(const Placement& start) const;

    DocumentHub* hub_;
    PlacementCoalescer* coalescer_;
    QString algorithm_;
    std::uint64_t seed_ = 0;
    bool seedKnown_ = false;
    std::optional<PlacementStart> start_; // the run's start, when it began from the shown placement
};

} // namespace post
