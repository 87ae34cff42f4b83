#include "core/zoo/TfGraphBuilder.h"

#include <algorithm>
#include <stdexcept>

namespace post {
namespace {

// Output size of a TF convolution or pooling window along one axis.
std::int64_t windowOutput(std::int64_t in, int k, int stride, const std::string& padding)
{
    if (padding == "SAME")
        return (in + stride - 1) / stride;
    if (padding == "VALID")
        return (in - k) / stride + 1;
    throw std::logic_error("padding must be SAME or VALID, got " + padding);
}

} // namespace

TfGraphBuilder::TfGraphBuilder(std::string graphName)
{
    graph_.name = graphName;
    graph_.source = "zoo:" + graphName;
}

int TfGraphBuilder::addTensor(std::string name, TensorShape shape, int elementBytes, bool isParameter, bool isConstant)
{
    for (std::int64_t d : shape)
        if (d <= 0) // a builder bug, not user input: the zoo's layer tables are fixed
            throw std::logic_error("zoo tensor " + name + " has a non-positive dimension");
    ShapedTensor t;
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.elementBytes = elementBytes;
    t.isParameter = isParameter;
    t.isConstant = isConstant;
    graph_.tensors.push_back(std::move(t));
    return static_cast<int>(graph_.tensors.size()) - 1;
}

int TfGraphBuilder::placeholder(const std::string& name, TensorShape shape, int elementBytes)
{
    const int t = addTensor(name + ":0", std::move(shape), elementBytes, false, false);
    ShapedOp o;
    o.name = name;
    o.type = "Placeholder";
    o.outputs = {t};
    o.colocate = colocate_;
    o.location = "op " + std::to_string(graph_.ops.size());
    graph_.ops.push_back(std::move(o));
    return t;
}

int TfGraphBuilder::parameter(const std::string& name, TensorShape shape)
{
    return addTensor(name, std::move(shape), 4, true, false);
}

int TfGraphBuilder::constant(const std::string& name, TensorShape shape, int elementBytes)
{
    return addTensor(name, std::move(shape), elementBytes, false, true);
}

int TfGraphBuilder::sharedParameter(const std::string& name, TensorShape shape)
{
    const int var = parameter(name, shape);
    return op(name + "/read", "Identity", {var}, {shape});
}

int TfGraphBuilder::op(const std::string& name, const std::string& type, std::vector<int> inputs,
                       std::vector<TensorShape> outputShapes, std::map<std::string, std::vector<std::int64_t>> intAttrs)
{
    ShapedOp o;
    o.name = name;
    o.type = type;
    o.inputs = std::move(inputs);
    for (size_t k = 0; k < outputShapes.size(); ++k)
        o.outputs.push_back(addTensor(name + ":" + std::to_string(k), std::move(outputShapes[k]), 4, false, false));
    o.intAttrs = std::move(intAttrs);
    o.colocate = colocate_;
    o.location = "op " + std::to_string(graph_.ops.size());
    const int first = o.outputs.empty() ? -1 : o.outputs.front();
    graph_.ops.push_back(std::move(o));
    return first;
}

const TensorShape& TfGraphBuilder::shape(int tensor) const
{
    return graph_.tensors.at(static_cast<size_t>(tensor)).shape;
}

std::int64_t TfGraphBuilder::dim(int tensor, int axis) const
{
    const TensorShape& s = shape(tensor);
    const int n = static_cast<int>(s.size());
    return s.at(static_cast<size_t>(axis < 0 ? n + axis : axis));
}

int TfGraphBuilder::conv2d(const std::string& scope, int x, std::int64_t filters, int kh, int kw, int stride,
                           const std::string& padding)
{
    const TensorShape& in = shape(x);
    const std::int64_t cin = in[3];
    const TensorShape out{in[0], windowOutput(in[1], kh, stride, padding), windowOutput(in[2], kw, stride, padding),
                          filters};
    const int w = parameter(scope + "/weights", {kh, kw, cin, filters});
    return op(scope + "/Conv2D", "Conv2D", {x, w}, {out},
              {{"strides", {1, stride, stride, 1}}, {"kernel_shape", {kh, kw}}, {"padding_same", {padding == "SAME"}}});
}

int TfGraphBuilder::biasAdd(const std::string& scope, int x)
{
    const int b = parameter(scope + "/biases", {dim(x, -1)});
    return op(scope + "/BiasAdd", "BiasAdd", {x, b}, {shape(x)});
}

int TfGraphBuilder::fusedBatchNorm(const std::string& scope, int x, bool scale)
{
    const std::int64_t c = dim(x, -1);
    const int gamma = scale ? parameter(scope + "/gamma", {c}) : constant(scope + "/gamma_ones", {c});
    const int beta = parameter(scope + "/beta", {c});
    const int mean = constant(scope + "/moving_mean", {c});
    const int var = constant(scope + "/moving_variance", {c});
    // Outputs: y, batch mean, batch variance (TF's reserve spaces left out).
    const int y = op(scope + "/FusedBatchNorm", "FusedBatchNorm", {x, gamma, beta, mean, var}, {shape(x), {c}, {c}});
    // Training also updates the moving statistics every step, as TF's
    // moving_averages.assign_moving_average does: moving -= (moving - batch) * (1 - decay).
    const int decay = constant(scope + "/decay", {1});
    for (int k = 0; k < 2; ++k) {
        const std::string s = scope + (k == 0 ? "/AssignMovingAvg" : "/AssignMovingAvg_1");
        const int moving = k == 0 ? mean : var;
        const int diff = op(s + "/sub", "Sub", {moving, y + 1 + k}, {{c}});
        const int step = op(s + "/mul", "Mul", {diff, decay}, {{c}});
        op(s, "AssignSub", {moving, step}, {{c}});
    }
    return y;
}

int TfGraphBuilder::pool(const std::string& name, const std::string& type, int x, int k, int stride,
                         const std::string& padding)
{
    const TensorShape& in = shape(x);
    const TensorShape out{in[0], windowOutput(in[1], k, stride, padding), windowOutput(in[2], k, stride, padding), in[3]};
    return op(name, type, {x}, {out},
              {{"ksize", {1, k, k, 1}}, {"strides", {1, stride, stride, 1}}, {"padding_same", {padding == "SAME"}}});
}

int TfGraphBuilder::concat(const std::string& name, const std::vector<int>& xs, int axis)
{
    TensorShape out = shape(xs.front());
    const size_t a = static_cast<size_t>(axis < 0 ? static_cast<int>(out.size()) + axis : axis);
    out[a] = 0;
    for (int x : xs)
        out[a] += shape(x).at(a);
    return op(name, "ConcatV2", xs, {out}, {{"axis", {axis}}});
}

int TfGraphBuilder::matmul(const std::string& name, int a, int b, bool transposeB)
{
    const TensorShape& sa = shape(a);
    const TensorShape& sb = shape(b);
    const std::int64_t n = transposeB ? sb[0] : sb[1];
    return op(name, "MatMul", {a, b}, {{sa[0], n}}, {{"transpose_b", {transposeB ? 1 : 0}}});
}

int TfGraphBuilder::dense(const std::string& scope, int x, std::int64_t units, bool bias)
{
    const int w = parameter(scope + "/kernel", {dim(x, -1), units});
    int y = matmul(scope + "/MatMul", x, w);
    if (bias)
        y = biasAdd(scope, y);
    return y;
}

int TfGraphBuilder::unary(const std::string& name, const std::string& type, int x)
{
    return op(name, type, {x}, {shape(x)});
}

int TfGraphBuilder::binary(const std::string& name, const std::string& type, int a, int b)
{
    // NumPy broadcasting: align from the right, take the larger of each pair.
    TensorShape sa = shape(a), sb = shape(b);
    if (sa.size() < sb.size())
        std::swap(sa, sb);
    const size_t off = sa.size() - sb.size();
    for (size_t k = 0; k < sb.size(); ++k)
        sa[off + k] = std::max(sa[off + k], sb[k]);
    return op(name, type, {a, b}, {sa});
}

int TfGraphBuilder::reshape(const std::string& name, int x, TensorShape shape)
{
    return op(name, "Reshape", {x}, {std::move(shape)});
}

int TfGraphBuilder::reduce(const std::string& name, const std::string& type, int x, std::vector<int> axes, bool keepDims)
{
    TensorShape in = shape(x);
    TensorShape out;
    for (size_t k = 0; k < in.size(); ++k) {
        const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int>(k)) != axes.end();
        if (!reduced)
            out.push_back(in[k]);
        else if (keepDims)
            out.push_back(1);
    }
    if (out.empty())
        out.push_back(1); // scalars are stored as [1]
    std::vector<std::int64_t> a(axes.begin(), axes.end());
    return op(name, type, {x}, {out}, {{"axes", a}, {"keep_dims", {keepDims ? 1 : 0}}});
}

int TfGraphBuilder::sparseSoftmaxLoss(const std::string& scope, int logits, int labels)
{
    const TensorShape& s = shape(logits);
    const int loss = op(scope + "/SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                        {logits, labels}, {{s[0]}, s});
    return reduce(scope + "/Mean", "Mean", loss, {0}, false);
}

ShapedGraph TfGraphBuilder::take() && { return std::move(graph_); }

} // namespace post
