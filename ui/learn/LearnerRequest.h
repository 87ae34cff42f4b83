#pragma once

#include "core/graph/Placement.h"
#include "core/learn/LearnerOptions.h"
#include "ui/document/GraphDocument.h"

#include <QMetaType>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace post {

class SamplePlacements;

// One learner run: the document keeps the graph and cluster alive while it runs.
struct LearnerRequest {
    quint64 runId = 0;
    DocumentPtr document;
    std::string algorithm = "post@best";
    int samples = 2400;
    double seconds = 0.0; // wall-time budget (0: none); the run ends at whichever budget ends first
    std::uint64_t seed = 1;
    LearnerOptions options; // the hyperparameters (LearnerOptionsEditor)
    // Where the run keeps its sampled placements (null: not kept).
    std::shared_ptr<SamplePlacements> samplePlacements;
    // Run the classical placers first for the chart's reference line.
    bool classicalReference = true;
    // A placement to start from (the learner panel's "From the shown placement"; empty: none),
    // taken as core's placerStartUse() says (post-cli place --start).
    Placement start;
    // Sample numbers start here (a restored run continued: LearnerPanel::RestoredRun).
    int sampleOffset = 0;
    // The best so far before the first sample (a continued run's restored best, ms): only
    // samples that beat it are reported as a new best.
    double bestBeforeMs = std::numeric_limits<double>::infinity();
};

} // namespace post

Q_DECLARE_METATYPE(post::LearnerRequest)
