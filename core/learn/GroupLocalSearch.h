#pragma once

#include "core/cluster/DeviceSymmetry.h"
#include "core/graph/Ids.h"
#include "core/graph/Placement.h"
#include "core/learn/Evaluation.h"
#include "core/sim/SimOptions.h"
#include "core/sim/Simulator.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace post {

class BatchEvaluator;
class Cluster;
class EvaluationBudget;
class Graph;
class Grouping;

// Simulator-guided hill climb over the groups of a grouping (docs/learners.md, "Local
// search"): move one group to another device, groups on the simulated critical path first
// (then the rest by compute), then swap the devices of two groups joined by an edge, then
// merge two devices (every group on one moved to the other: a chain cut in two that no
// single move or swap can undo), then move a block of groups that the critical path says
// delays it: where an op on the path waited for its device rather than for its inputs,
// the ops that held the device meanwhile, together, or the chain segment (on that device)
// of the waiting op or of one of them; the best strict improvement of each window of
// candidates is taken. Candidates are
// evaluated in windows of a fixed size on the shared evaluator pool, so the path taken
// depends on nothing but the start, never on the thread count. Every simulation (the
// timeline run that finds the critical path included) is recorded in the budget.
class GroupLocalSearch {
public:
    static constexpr int kWindow = 8;

    GroupLocalSearch(const Graph& graph, const Cluster& cluster, SimOptions sim, BatchEvaluator& evaluator);

    // Improves `choice` (a device per group of `grouping`, evaluated as `current`) in place
    // until no move, neighbour swap or merge improves it (returns true), the budget ends or
    // `maxEvaluations` are spent (returns false). What a climb learnt is kept per grouping
    // (the last few groupings): called again, candidates that failed stay skipped until
    // their groups or neighbours move (it compares `choice` with the choice it left), and a
    // converged choice returns at once without spending anything.
    bool climb(const Grouping& grouping, std::vector<DeviceId>& choice, Evaluation& current, EvaluationBudget& budget,
               int maxEvaluations);

    // The groups holding the ops of the simulated critical path of `placement` (source to
    // sink, each once): found from one timeline simulation, recorded in `budget` with the
    // placement's known evaluation `known`.
    std::vector<int> criticalGroups(const Grouping& grouping, const Placement& placement, const Evaluation& known,
                                    EvaluationBudget& budget);

    const DeviceSymmetry& symmetry() const { return symmetry_; }

    // Whether climbs try the critical path's block moves (on by default; off, the climb is
    // the one before them: for comparisons).
    void setBlockMoves(bool on) { blockMoves_ = on; }
    // Whether a climb whose last scan was lazy (it skipped candidates that failed before and
    // whose groups and neighbours have not moved since) and found nothing ends with a full
    // scan (on by default: then `true` means that no candidate improves). Off, it ends there
    // and returns false: the kicks' climbs (kickedLocalSearch) look only around what moved.
    void setFullFinalScan(bool on) { fullFinalScan_ = on; }

private:
    struct Candidate {
        int group = -1;              // the group moved or swapped, -1 for a merge, kBlock for a block move
        int other = -1;              // swap partner, or -1 for a move; for a merge, the device emptied;
                                     // for a block, its index in ClimbState::blocks
        DeviceId device = kNoDevice; // where the group (or the merged device's or the block's groups) go
    };
    static constexpr int kBlock = -2;
    // One op of the simulated critical path (source to sink) and what it waited for last.
    struct PathStep {
        OpId op = kNoOp;
        bool queued = false; // waited for the op before it on its device, not for an input
        double readyUs = 0;  // when its last input was there
    };
    // The critical path of `placement` from one timeline simulation, recorded in `budget`
    // with its known evaluation; `onDevice` gets each device's ops in start order, opEnd_
    // each op's end.
    std::vector<PathStep> criticalPath(const Placement& placement, const Evaluation& known, EvaluationBudget& budget,
                                       std::vector<std::vector<OpId>>& onDevice);
    // The block moves of base_ (ClimbState::blocks) from its critical path.
    std::vector<std::vector<int>> blockMoves(const Grouping& grouping, const std::vector<PathStep>& path,
                                             const std::vector<std::vector<OpId>>& onDevice) const;
    // The ops on the device of `op` that form one chain with it there (one producer and one
    // consumer on that device each way), `op` included; at most kSegment each way.
    static constexpr int kSegment = 32;
    // At most this many blocks per state, the last ops' first (a long path would give
    // thousands; the scan of each block tries every other device).
    static constexpr size_t kMaxBlocks = 256;
    // Of the ops a critical op queued behind, the last this many (a source op can queue
    // behind all of its device's earlier ops).
    static constexpr size_t kHolders = 16;
    void appendSegment(OpId op, std::vector<OpId>& out) const;
    // Evaluates `candidates` against `choice`; applies the best strict improvement, if any.
    bool tryWindow(const Grouping& grouping, std::vector<DeviceId>& choice, Evaluation& current,
                   const std::vector<Candidate>& candidates, EvaluationBudget& budget, int& spent);
    // base_ = the placement of `choice`, the evaluators' reference.
    void prepareBase(const Grouping& grouping, const std::vector<DeviceId>& choice);
    // Groups of the critical path of base_ first, then the rest by compute (one simulation);
    // `blocks` gets the block moves of that path.
    std::vector<int> searchOrder(const Grouping& grouping, const Evaluation& current, EvaluationBudget& budget,
                                 int& spent, std::vector<std::vector<int>>& blocks);

    // The don't-look state of one grouping (see climb()).
    struct ClimbState {
        std::vector<std::vector<int>> neighbours; // joined by an edge, higher group only
        std::vector<std::vector<int>> adjacent;   // joined by an edge, both ways
        std::vector<DeviceId> choice;             // the state described
        int version = 0;                          // states seen
        std::vector<int> touched;                 // per group: version its group or a neighbour last moved
        // Per group: pinnedGroups(), so every candidate takes it back to a CPU
        // (applyCpuPinning): sent anywhere else it is not moved at all; kept on a CPU
        // in the state (pinChoice).
        std::vector<char> pinned;
        std::vector<int> moveFailed;  // per group x device: version the move last failed
        std::vector<int> mergeFailed; // per device x device
        std::unordered_map<std::uint64_t, int> swapFailed;
        std::unordered_map<std::uint64_t, int> blockFailed; // by the block's groups and device
        std::vector<int> order;                             // search order of the state at orderVersion
        std::vector<std::vector<int>> blocks;               // block moves (sorted groups) of the state at orderVersion
        int orderVersion = -1;
        bool converged = false; // no candidate improves the current state
        std::uint64_t lastUse = 0;
    };
    static constexpr size_t kStates = 4;
    ClimbState& stateFor(const Grouping& grouping);
    // One climb's scanning state: the window of candidates, the don't-look checks, the scans
    // of merges, moves and swaps (GroupLocalSearch.cpp).
    struct Scan;

    const Graph& graph_;
    const Cluster& cluster_;
    BatchEvaluator& evaluator_;
    DeviceSymmetry symmetry_;
    Simulator timelineSim_;
    Placement base_;
    std::vector<double> opEnd_;                            // per op, its end in the last criticalPath()
    std::unordered_map<std::uint64_t, ClimbState> states_; // by grouping fingerprint
    std::uint64_t uses_ = 0;
    std::vector<Placement> placements_;
    std::vector<Evaluation> evaluations_;
    std::vector<char> improved_;           // per candidate of the last window: better than the current
    std::vector<std::vector<int>> blocks_; // the block moves tryWindow() applies (the scanned state's)
    bool blockMoves_ = true;
    bool fullFinalScan_ = true;
};

} // namespace post
