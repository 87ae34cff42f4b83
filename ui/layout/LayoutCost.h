#pragma once

#include <utility>
#include <vector>

namespace post {

// Dot's running time grows with the nodes it lays out plus one virtual node per rank an
// edge crosses (long skip edges, the forward-to-backward edges of training graphs).
// This estimates that total from a longest-path layering. Measured with Graphviz 2.42:
// a 141-op ResNet-18 training step costs ~4,600 and takes 50 s with plain dot (1.3 s
// with fast dot), VGG-16's costs ~1,600 and takes 1 s, a 500-node graph of short edges
// costs ~500.
long long estimateDotCost(int nodeCount, const std::vector<std::pair<int, int>>& edges);

} // namespace post
