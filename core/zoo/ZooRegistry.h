#pragma once

#include "core/cost/CostModel.h"
#include "core/cost/ShapedGraph.h"
#include "core/graph/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace post {

struct ZooModelInfo {
    std::string name;        // "inception-v3", "nmt-4", ...
    std::string description; // one line
    int defaultBatch = 1;
    // Unrolled time steps of a recurrent model (`--steps`); 0 = the model has none.
    int defaultSteps = 0;
    // Trained with Adam: the step's update ops are ApplyAdam (CostModelOptions::optimizer),
    // the others get the options' optimizer (SGD with momentum by default).
    bool optimizerUpdates = false;
};

// The model zoo (docs/zoo.md): the benchmarks of Post and its predecessors, generated from
// layer tables at TensorFlow-op granularity.
class ZooRegistry {
public:
    static const std::vector<ZooModelInfo>& models();
    static std::optional<ZooModelInfo> find(const std::string& name);
    // "inception-v3, resnet-50, ..." for help texts and errors.
    static std::string joinedNames();

    static constexpr int kMaxSteps = 1000;
    // The largest forward graph generate() builds a training step from (docs/zoo.md): more
    // would take over 1 GB to build and write, and give a post-graph file over the 160 MB
    // every reader accepts (core/io/GraphFile's kMaxTextGraphBytes): nmt-8 up to about 400 steps.
    static constexpr std::size_t kMaxForwardOps = 110000;

    // The forward graph; batch <= 0 means the model's default batch, steps <= 0 its default
    // unroll. Throws std::invalid_argument for an unknown name, for steps > 0 on a model
    // without time steps and for steps > kMaxSteps.
    static ShapedGraph forwardGraph(const std::string& name, int batch = 0, int steps = 0);
    // One training step with costs from the shape-based cost model (and, for models with
    // optimizerUpdates, Adam's update ops instead of the options' optimizer). Throws
    // std::invalid_argument, before building it, for a forward graph over kMaxForwardOps.
    static Graph generate(const std::string& name, int batch = 0, const CostModelOptions& options = {},
                          CostReport* report = nullptr, int steps = 0);
};

} // namespace post
