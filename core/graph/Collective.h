#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace post {

// The collectives of a training step's communication (NCCL's and c10d's): an op of one of these
// kinds (Op::collective) runs on its device's communication channel, beside that device's
// compute (docs/simulator.md, "Collectives").
enum class CollectiveKind : std::uint8_t {
    None,
    AllReduce,
    Reduce,
    AllGather,
    Gather,
    Scatter,
    Broadcast,
    AllToAll,
    ReduceScatter,
    Barrier,
    Other, // a collective whose kind the source does not say: timed as an all-reduce
};

// Where no time is measured, a collective of `bytes` among n ranks over links of bandwidth B
// and latency L takes steps x L + factor x bytes / B, by the ring algorithms NCCL uses
// (bytes: the buffer as nccl-tests counts it, all-gather's output and reduce-scatter's input):
//   all-reduce (and barrier, other): 2(n-1) steps, factor 2(n-1)/n;
//   all-gather, reduce-scatter, gather, scatter, all-to-all: n-1 steps, factor (n-1)/n;
//   broadcast, reduce (pipelined ring): n-1 steps, factor 1.
// One rank (or fewer) has no one to talk to: 0 and 0.
struct RingCost {
    double steps = 0.0;
    double factor = 0.0;
};

constexpr RingCost ringCost(CollectiveKind kind, int ranks)
{
    if (kind == CollectiveKind::None || ranks <= 1)
        return {};
    const double n = ranks;
    switch (kind) {
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::Gather:
    case CollectiveKind::Scatter:
    case CollectiveKind::AllToAll:
        return {n - 1, (n - 1) / n};
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
        return {n - 1, 1.0};
    default:
        return {2 * (n - 1), 2 * (n - 1) / n};
    }
}

// The kind's name in files (post-graph/1 "collective"): "all_reduce", "reduce", "all_gather",
// "gather", "scatter", "broadcast", "all_to_all", "reduce_scatter", "barrier", "other"; "" for None.
constexpr std::string_view collectiveName(CollectiveKind kind)
{
    constexpr std::string_view names[] = {"",        "all_reduce", "reduce",     "all_gather",     "gather",
                                          "scatter", "broadcast",  "all_to_all", "reduce_scatter", "barrier",
                                          "other"};
    return names[static_cast<int>(kind)];
}

constexpr std::optional<CollectiveKind> parseCollectiveKind(std::string_view name)
{
    for (int k = 1; k <= static_cast<int>(CollectiveKind::Other); ++k)
        if (collectiveName(static_cast<CollectiveKind>(k)) == name)
            return static_cast<CollectiveKind>(k);
    return std::nullopt;
}

} // namespace post
