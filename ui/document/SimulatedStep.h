#pragma once

#include "core/sim/SimResult.h"
#include "ui/document/GraphDocument.h"
#include "ui/document/TimelineLane.h"

#include <QMetaType>
#include <QString>

#include <memory>
#include <vector>

namespace post {

// The simulated step of a document's placement, with its timeline cut into lanes: one per
// device, one per device that ran collectives on its communication channel (beside compute,
// docs/simulator.md "Collectives"), then one per directed link that carried a transfer.
// Immutable once made.
struct SimulatedStep {
    struct BarRef {
        int lane = -1;
        int index = -1;
        bool valid() const { return lane >= 0; }
    };

    DocumentPtr document;
    SimResult result; // with the timeline
    std::vector<TimelineLane> lanes;
    std::vector<BarRef> barOfOp; // where each op is drawn
    int deviceLaneCount = 0;     // the devices' lanes, then their collectives' (collectiveLaneCount)
    int collectiveLaneCount = 0; // a lane per device whose collectives ran beside its compute
    // The critical path (core/sim/CriticalPath): ops and indices into
    // result.timeline.transfers, in time order.
    std::vector<OpId> criticalOps;
    std::vector<int> criticalTransfers;
    std::vector<bool> opOnCriticalPath;       // per OpId
    std::vector<bool> transferOnCriticalPath; // per transfer

    // Simulates `document` (any thread: one Simulator per call). Null when nothing can be
    // simulated: no placement, or one that does not fit the graph and cluster.
    static std::shared_ptr<const SimulatedStep> simulate(DocumentPtr document);

    // Device names without the "/job:.../device:" noise: "GPU:0".
    static QString shortDeviceName(const std::string& name);
};

using StepPtr = std::shared_ptr<const SimulatedStep>;

} // namespace post

Q_DECLARE_METATYPE(post::StepPtr)
