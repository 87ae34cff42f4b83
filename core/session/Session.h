#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Dispatch.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"
#include "core/place/ProgressObserver.h"
#include "core/run/ComparisonRunner.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace post {

// The learner settings of a session's run (or, with no run, of the panel when saved).
struct SessionLearner {
    std::string algorithm = "post";
    int samples = 2400;     // the planned budget
    std::uint64_t seed = 1; // at most 2^53 (exact in JSON)
    double seconds = 0.0;   // the time limit (post-cli --time), 0: none
};

enum class SessionRunState : std::uint8_t { None, Running, Paused, Stopped, Done };

// What became of the run, and the chart's reference lines.
struct SessionRun {
    SessionRunState state = SessionRunState::None;
    double lowerBoundUs = std::numeric_limits<double>::quiet_NaN();   // NaN: unknown
    double singleDeviceUs = std::numeric_limits<double>::quiet_NaN(); // NaN: none fits
};

// A Compare table as it was shown (core's ComparisonRunner rows).
struct SessionComparison {
    double lowerBoundUs = std::numeric_limits<double>::quiet_NaN();
    int samples = 0;      // per run, as asked
    double seconds = 0.0; // per run, as asked (0: no time limit)
    int seeds = 0;
    std::vector<ComparisonRow> rows;
};

// Post Studio's extras, kept under the "x-studio" key (docs/formats.md): what a reader of
// post-session/1 may ignore, as it ignores every x- key, but Post Studio reads back (and
// checks like any field) so a restored run looks and continues as it was.
struct SessionStudio {
    std::string document; // the file the window showed (a graph or a session file); empty: unknown
    double classicalUs = std::numeric_limits<double>::quiet_NaN(); // the best classical placer's line
    std::string classicalPlacer;                                   // which placer that was
    double warmStartUs = std::numeric_limits<double>::quiet_NaN(); // a LEARNER@PLACER run's start
    Placement best; // the run's best placement (empty: unknown), what Start continues from
    double bestUs = std::numeric_limits<double>::quiet_NaN();
    Placement start; // the placement the run started from ("From the shown placement"), empty: none
    std::optional<SessionComparison> comparison;
};

// Everything needed to reopen a piece of work: the graph and cluster (embedded, so the
// session does not depend on files that may move or change), the placement on show, and
// the run's log (every sample; every policy update with the best so far, the elite
// threshold and the entropy). Plain data: written and read by SessionFile.
struct Session {
    std::string source; // the file the graph was read from (informational)
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const Cluster> cluster;
    Placement placement; // empty: nothing placed
    SessionLearner learner;
    // The simulator's dispatch rule every step time of the session was timed under (the
    // samples, the reference lines, a comparison): written when not ready order.
    Dispatch dispatch = Dispatch::ReadyOrder;
    SessionRun run;
    std::vector<SampleEvent> samples; // placement pointers are always null
    std::vector<UpdateEvent> updates;
    SessionStudio studio;
};

std::string_view toString(SessionRunState state);

} // namespace post
