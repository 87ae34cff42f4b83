#pragma once

#include <vector>

namespace post {

class Graph;
class Cluster;

// The memory-split bound (docs/simulator.md, source "memory-split"): a path of the graph whose
// ops, with everything colocated with them, do not fit on one device must be cut into
// segments that each fit on a device; each cut costs at least the cheapest transfer of the
// path's edge between the two segments' device classes, and each segment runs at its device's
// speed. The least total over the segmentations of a few heavy paths (by duration, by memory,
// by both) is a bound of every placement that fits in memory and keeps its colocation groups
// and CPU pins. Where a class's devices cannot hold the graph together, the segments on such
// classes share their memory, and what the path leaves of it goes to the groups off the path
// (the rest loading the other classes). 0 when memory forces nothing (some device holds the
// whole graph, with the fastest times) or the path is too long to segment within the work
// limit. `fastestUs`: each op's least duration.
double memorySplitBoundUs(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastestUs,
                          double optimizerStateFactor);

// The path-loads bound (docs/simulator.md, source "path-loads"): the least T for which some
// segmentation of a longest path is no longer than T (durations and the cuts between its
// segments, as in the memory split) while each segment's device also runs everything
// colocated with the segment's ops within T: their least start + their time + the least time
// the step runs on after them. `headUs` / `tailUs`: each op's least start and least time from
// its start to the step's end over every placement (the ancestry bound's), raised per device
// class along the edges. 0 where it proves nothing above `floorUs` (the other components'
// bound), within its work limit.
double pathLoadsBoundUs(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastestUs,
                        const std::vector<double>& headUs, const std::vector<double>& tailUs,
                        double optimizerStateFactor, double floorUs);

} // namespace post
