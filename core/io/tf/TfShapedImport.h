#pragma once

#include "core/cost/ShapedGraph.h"
#include "core/io/ImportOptions.h"
#include "core/io/tf/TfGraphDef.h"

#include <string>
#include <vector>

namespace post {

// A GraphDef mapped onto the cost model's ShapedGraph (rules in docs/importers.md):
// variables and their reads become parameter tensors, constants constant tensors,
// placeholders input tensors; initialisation and checkpoint nodes are left out; every
// other node is a ShapedOp (in file order) with its `device` as written.
struct TfShapedImport {
    ShapedGraph shaped;
    // Per GraphDef node: its ShapedOp, or -1 for a node that is not an op.
    std::vector<int> opOfNode;
    // Per node: the ShapedOp whose device the node takes when a placement is written back
    // (its own op; for the others the first op that reads it or a neighbour's); -1: none.
    std::vector<int> anchorOfNode;
    // The GraphDef already holds a training step (gradient or optimizer ops): it is
    // imported as it is, without adding backward ops. `trainingEvidence` names the node.
    bool isTrainingGraph = false;
    std::string trainingEvidence;
};

// Throws InputError(source, "line N", ...) for an input naming no node, a bad port, a
// cycle (other than TF loops' NextIteration back edges, which are dropped) or a bad shape.
// `options`: a placeholder named in inputShapes takes that shape (the rank must match);
// a -1 leading dimension takes the batch; any other -1 of a placeholder is listed in
// shaped.unresolved (docs/importers.md, "Dimensions").
TfShapedImport importTfGraphDef(const TfGraphDef& graph, const std::string& source, const std::string& graphName,
                                const ImportOptions& options = {});

} // namespace post
