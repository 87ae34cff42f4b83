#pragma once

namespace post {

class Graph;
class Cluster;

struct LowerBound {
    double criticalPathUs = 0.0; // longest path with every op on its fastest device, no transfers
    double workUs = 0.0;         // sum over ops of the least time x speed over devices / total speed
    double valueUs() const { return criticalPathUs > workUs ? criticalPathUs : workUs; }
};

// No placement on `cluster` can run a step faster than this.
LowerBound lowerBound(const Graph& graph, const Cluster& cluster);

} // namespace post
