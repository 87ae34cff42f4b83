#pragma once

#include "core/cost/ShapedGraph.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace post {

// One op's tensors and attributes as the cost formulas read them. Unknown dimensions
// (-1, or any negative value) count as 1, an empty shape is a scalar (1 element), and a
// missing tensor (absent optional input, index outside the graph) is nullptr: the cost
// model estimates with what it has and buildTrainingGraph reports bad indices itself.
class OpView {
public:
    OpView(const ShapedGraph& graph, const ShapedOp& op)
        : graph_(graph)
        , op_(op)
    {
    }

    const ShapedOp& op() const { return op_; }
    const ShapedGraph& graph() const { return graph_; }
    const ShapedTensor* input(size_t i) const;
    const ShapedTensor* output(size_t i) const;
    size_t inputCount() const { return op_.inputs.size(); }

    // Rank of a tensor's shape; 0 for a missing tensor or a scalar.
    static int rank(const ShapedTensor* t);
    // Dimension `i` (negative: from the end); 1 when unknown or out of range.
    static double dim(const ShapedTensor* t, int i);
    // Product of dimensions [from, to) (negative bounds count from the end).
    static double dims(const ShapedTensor* t, int from, int to);
    static double elements(const ShapedTensor* t);
    static double bytes(const ShapedTensor* t);

    double inputElements(size_t i) const { return elements(input(i)); }
    double outputElements() const; // all outputs
    double inputBytes() const;     // all inputs
    double outputBytes() const;    // all outputs

    bool hasAttr(std::string_view name) const;
    // Attribute `name` element `i`, or `fallback` when absent.
    std::int64_t attr(std::string_view name, std::int64_t fallback, size_t i = 0) const;
    // Product of the attribute's values (e.g. a kernel_shape), or 0 when absent.
    double attrProduct(std::string_view name) const;
    // String attribute `name`, or `fallback` when absent.
    std::string stringAttr(const std::string& name, const std::string& fallback) const;

private:
    const ShapedTensor* tensor(int index) const;

    const ShapedGraph& graph_;
    const ShapedOp& op_;
};

} // namespace post
