#pragma once

#include "core/graph/Dispatch.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"
#include "core/io/json/JsonInput.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// The placement a search started from (post-cli place --start, Post Studio's "From the shown
// placement"): its file when it had one, its step time under the search's dispatch rule, and
// its fingerprint, so that whoever reruns the search can tell they start from the same one.
struct PlacementStart {
    std::string file; // as given; empty: none (Post Studio's placement on show)
    std::optional<double> stepTimeUs;
    std::string fingerprint; // placementFingerprint()
    bool operator==(const PlacementStart&) const = default;
};

// What made a placement, written with it when known (informational, like "graph"): the
// placer (a `post-cli list` name), its seed, the placement's simulated step time (µs) under
// the simulator's dispatch rule `dispatch` (written when not ready order) and the precision
// mode `precision` (written with the step time whenever known), and its start.
struct PlacementProvenance {
    std::string algorithm; // empty: not written (nor the seed)
    std::optional<std::uint64_t> seed;
    std::optional<double> stepTimeUs;
    Dispatch dispatch = Dispatch::ReadyOrder;
    std::optional<PlacementStart> start = std::nullopt; // written with the algorithm only
    // The cluster's precision mode stepTimeUs was timed under (docs/cost-model.md, "Precision");
    // none: not recorded (files older than the field: the mode they were timed under is unknown).
    std::optional<PrecisionMode> precision = std::nullopt;
};

// "fnv1a64:" and 16 lower-case hex digits: 64-bit FNV-1a over the text "OP\tDEVICE\n" of every
// op in graph order (its name, its device's name). It depends on the placement alone, not on
// how a file spells it (key order, spacing, TensorFlow's long device names).
std::string placementFingerprint(const Graph& graph, const Cluster& cluster, const Placement& placement);

// Post Studio's placement format, "post-placement/1" (see docs/formats.md): every op of
// `graph` mapped to a device of `cluster`. Throws InputError naming `source` and the
// field at fault: an unknown op or device, an op left unplaced, a split colocation group.
Placement parsePlacement(std::string_view text, const std::string& source, const Graph& graph, const Cluster& cluster);
Placement readPlacementFile(const std::string& path, const Graph& graph, const Cluster& cluster);

// The rule a placement's step time was timed under, when its file says: one with a
// "step_time_us" (ready order unless "dispatch" says otherwise) or a "dispatch"; none when it
// records neither (post-cli simulate --placement and Post Studio then keep their own rule).
inline std::optional<Dispatch> recordedDispatch(const PlacementProvenance& made)
{
    if (made.stepTimeUs || made.dispatch != Dispatch::ReadyOrder)
        return made.dispatch;
    return std::nullopt;
}

// The precision mode a placement's step time was timed under, when its file says ("precision");
// none for files that do not (post-cli simulate --placement and place --start then keep the
// mode --precision, the cluster or the graph's framework gives).
inline std::optional<PrecisionMode> recordedPrecision(const PlacementProvenance& made) { return made.precision; }

// The fields of a post-placement/1 document `root` that need no graph or cluster: "format",
// no unknown key, "graph" and "cluster" strings, and what made it (returned). Throws
// InputError through `in`, naming the field. parsePlacement and torchMapJson check with it.
PlacementProvenance checkPlacementHeader(const JsonInput& in, const nlohmann::json& root);

// A placement file's placement with what the file records of how it was made: "algorithm",
// "seed" (when a whole number), "step_time_us", "dispatch" (absent: ready order, the rule
// step_time_us was timed under), "precision" (absent: unknown) and "start", and the names of the
// graph and cluster it was made for ("graph", "cluster"; empty where the file gives none).
// Checked as parsePlacement checks it.
struct PlacementWithProvenance {
    Placement placement;
    PlacementProvenance made;
    std::string graphName;
    std::string clusterName;
};
PlacementWithProvenance parsePlacementWithProvenance(std::string_view text, const std::string& source,
                                                     const Graph& graph, const Cluster& cluster);
PlacementWithProvenance readPlacementFileWithProvenance(const std::string& path, const Graph& graph,
                                                        const Cluster& cluster);

// `placement` must give every op a device of `cluster` (std::invalid_argument otherwise).
// `modules`, when not empty, holds each op's PyTorch module path (none for some ops) and is
// written as the optional "modules" object (docs/pytorch.md). `made`'s known fields are
// written after "cluster" as "algorithm", "seed", "step_time_us", "dispatch", "precision" and "start" (post-cli
// place --out and Post Studio's File ▸ Export write the same bytes for the same placement).
std::string placementJson(const Graph& graph, const Cluster& cluster, const Placement& placement,
                          const std::vector<std::optional<std::string>>& modules = {},
                          const PlacementProvenance& made = {});

} // namespace post
