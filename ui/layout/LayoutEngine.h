#pragma once

#include <QString>

namespace post {

// How Graphviz lays a graph out; LayoutPolicy picks one by size.
enum class LayoutEngine {
    Dot,     // layered, top to bottom: the clearest for dataflow graphs
    FastDot, // dot with nslimit=0 mclimit=0.1: fewer crossing-reduction passes
    Sfdp,    // force-directed multilevel: fast for thousands of nodes, not layered
};

QString toString(LayoutEngine engine);

} // namespace post
