#pragma once

#include "layout/LayoutEngine.h"

namespace post {

// Which layout to use for a graph of a given size, so layout stays within a few seconds.
// Measured on this project's machine (2 cores) with Graphviz 2.42:
//   plain dot:                     1.3 s at 500 nodes, 33-85 s at 2,000
//   dot nslimit=0 mclimit=0.1:     0.2 s at 500, 0.9 s at 2,000, 12 s at 10,000
//   sfdp:                          0.07 s at 500, 0.3 s at 2,000, 2.4 s at 10,000
struct LayoutPolicy {
    // Up to here plain dot takes about a second.
    static constexpr int kPlainDotMaxNodes = 400;
    // Up to here fast dot takes about a second; beyond it only sfdp stays interactive.
    static constexpr int kFastDotMaxNodes = 2500;
    // Graphs with more ops are drawn grouped (one box per colocation group / chain).
    static constexpr int kGroupAboveOps = 2000;

    static LayoutEngine engineFor(int nodeCount)
    {
        if (nodeCount <= kPlainDotMaxNodes)
            return LayoutEngine::Dot;
        if (nodeCount <= kFastDotMaxNodes)
            return LayoutEngine::FastDot;
        return LayoutEngine::Sfdp;
    }
    static bool shouldGroup(int opCount) { return opCount > kGroupAboveOps; }
};

} // namespace post
