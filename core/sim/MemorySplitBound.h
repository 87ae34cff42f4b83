#pragma once

#include <vector>

namespace post {

class Graph;
class Cluster;

// Two components of the lower bound that cut a heavy path of the graph into segments, each on
// one device, each cut paying the transfer between the two segments' device classes; both hold
// for every placement that fits in memory and keeps its colocation groups and CPU pins.
struct PathSplitBounds {
    // The memory split (docs/simulator.md, source "memory-split"): a path whose ops, with
    // everything colocated with them, do not fit on one device must be cut into segments that
    // each fit on a device, each running at its device's speed. The least total over the
    // segmentations of a few heavy paths (by duration, by memory, by both). Where a class's
    // devices cannot hold the graph together, the segments on such classes share their memory,
    // and what the path leaves of it goes to the groups off the path (the rest loading the
    // other classes). 0 when memory forces nothing (some device holds the whole graph, with the
    // fastest times), when no placement fits, or past the work limit.
    double memorySplitUs = 0.0;
    // The path loads (docs/simulator.md, source "path-loads"): the least T for which some
    // segmentation of the critical path is no longer than T (durations and cuts) while each
    // segment's device also runs everything colocated with the segment's ops within T: their
    // least start + their time + the least time the step runs on after them, and around the
    // hole the path leaves on that device. 0 where it proves nothing above `floorUs` (the other
    // components' bound) and the memory split, within its work limit.
    double pathLoadsUs = 0.0;
};

// `fastestUs`: each op's least duration; `headUs` / `tailUs`: each op's least start and least
// time from its start to the step's end over every placement (the ancestry bound's), which the
// path loads raise per device class along the edges.
PathSplitBounds pathSplitBounds(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastestUs,
                                const std::vector<double>& headUs, const std::vector<double>& tailUs,
                                double optimizerStateFactor, double floorUs);

} // namespace post
