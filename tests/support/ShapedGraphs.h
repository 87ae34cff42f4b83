#pragma once
// Builds ShapedGraphs (the cost model's forward graphs) tersely for tests: tensors by name,
// ops by tensor indices. Header-only and without Qt, like TestOps.h.
#include "core/cost/CostModel.h"
#include "core/cost/ShapedGraph.h"

#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace post::testgraphs {

class Shaped {
public:
    explicit Shaped(std::string source = "model.onnx")
        : g{"m", std::move(source), {}, {}, {}}
    {
    }

    int tensor(const std::string& name, std::vector<std::int64_t> shape, bool parameter = false, int elementBytes = 4)
    {
        ShapedTensor t;
        t.name = name;
        t.shape = std::move(shape);
        t.isParameter = parameter;
        t.elementBytes = elementBytes;
        g.tensors.push_back(t);
        return static_cast<int>(g.tensors.size()) - 1;
    }
    int constant(const std::string& name, std::vector<std::int64_t> shape)
    {
        const int t = tensor(name, std::move(shape));
        g.tensors.back().isConstant = true;
        return t;
    }
    // An op; its location is "node N", N its index, as the importers write it.
    ShapedOp& op(const std::string& name, const std::string& type, std::vector<int> inputs, std::vector<int> outputs)
    {
        ShapedOp o;
        o.name = name;
        o.type = type;
        o.inputs = std::move(inputs);
        o.outputs = std::move(outputs);
        o.location = "node " + std::to_string(g.ops.size());
        g.ops.push_back(o);
        return g.ops.back();
    }
    // The ops in the order they were added (test graphs add them in topological order).
    std::vector<int> order() const
    {
        std::vector<int> o(g.ops.size());
        std::iota(o.begin(), o.end(), 0);
        return o;
    }
    OpCost cost(size_t op = 0) const { return estimateOpCost(g, g.ops[op]); }

    ShapedGraph g;
};

} // namespace post::testgraphs
