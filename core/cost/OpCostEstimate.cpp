#include "core/cost/CostModel.h"
#include "core/cost/Fusion.h"
#include "core/cost/OpCostFormulas.h"

#include "core/util/InputError.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

// How an op type is costed (docs/cost-model.md lists every type and formula).
enum class Family {
    Free,        // metadata only (Reshape, Identity, ...): no FLOPs, no bytes
    Copy,        // data movement: no FLOPs, reads min(inputs, outputs), writes outputs
    Gather,      // embedding lookup: reads the indices and the rows it copies
    Elementwise, // perElement FLOPs per output element
    Reduce,      // one FLOP per input element folded away: inputs - outputs
    Pool,        // window size per output element
    Norm,        // perElement FLOPs per element of input 0
    Lrn,         // 2 x window + 7 per output element
    Formula,     // its own function
};

struct Rule {
    Family family;
    double perElement = 0.0;
    OpCost (*formula)(const OpView&) = nullptr;
};

// FLOPs per element: 1 for arithmetic, comparisons and selects; 4 for a transcendental
// function (exp, log, tanh, sigmoid, erf, sqrt, pow); GELU = 0.5 x (1 + erf(x / sqrt 2)) = 8.
constexpr double kArith = 1.0;
constexpr double kTranscendental = 4.0;
constexpr double kGelu = 8.0;
// Batch statistics in training: mean (1), variance (3), normalise, scale and shift (4).
constexpr double kNormalisation = 8.0;
// max (1), subtract (1), exp (4), sum (1), divide (1); LogSoftmax's final subtract is the divide's.
constexpr double kSoftmax = 8.0;

using RuleTable = std::unordered_map<std::string_view, Rule>;

void add(RuleTable& t, std::initializer_list<std::string_view> types, Rule rule)
{
    for (std::string_view type : types)
        t.emplace(type, rule);
}

void formula(RuleTable& t, std::string_view type, OpCost (*f)(const OpView&))
{
    t.emplace(type, Rule{Family::Formula, 0.0, f});
}

// The types with a function of their own (OpCostFormulas.h).
void addFormulas(RuleTable& t)
{
    formula(t, "Conv", costs::convOnnx);
    formula(t, "ConvTranspose", costs::convTransposeOnnx);
    formula(t, "Conv2D", costs::convTf);
    formula(t, "Conv3D", costs::convTf);
    formula(t, "DepthwiseConv2dNative", costs::depthwiseConvTf);
    formula(t, "Conv2DBackpropInput", costs::convBackpropInputTf);
    formula(t, "MatMul", costs::matMul);
    formula(t, "BatchMatMul", costs::batchMatMulTf);
    formula(t, "BatchMatMulV2", costs::batchMatMulTf);
    formula(t, "BatchMatMulV3", costs::batchMatMulTf);
    formula(t, "Gemm", costs::gemm);
    formula(t, "Attention", costs::attentionOnnx);
    formula(t, "MultiHeadAttention", costs::multiHeadAttention);
    formula(t, "LSTM", costs::lstmOnnx);
    formula(t, "GRU", costs::gruOnnx);
    formula(t, "RNN", costs::rnnOnnx);
    formula(t, "LSTMBlockCell", costs::lstmBlockCellTf);
    formula(t, "BlockLSTM", costs::blockLstmTf);
    formula(t, "BlockLSTMV2", costs::blockLstmTf);
    formula(t, "GRUBlockCell", costs::gruBlockCellTf);
    // TensorFlow's gradient ops (a training step as TF wrote it).
    formula(t, "Conv2DBackpropFilter", costs::convBackpropFilterTf);
    formula(t, "Conv3DBackpropFilterV2", costs::convBackpropFilterTf);
    formula(t, "Conv3DBackpropInputV2", costs::convBackpropInputTf);
    formula(t, "DepthwiseConv2dNativeBackpropInput", costs::depthwiseConvBackpropTf);
    formula(t, "DepthwiseConv2dNativeBackpropFilter", costs::depthwiseConvBackpropTf);
    formula(t, "MaxPoolGrad", costs::poolGradTf);
    formula(t, "AvgPoolGrad", costs::poolGradTf);
    formula(t, "MaxPoolGradV2", costs::poolGradTf);
    formula(t, "Resize", costs::resize);
    formula(t, "Upsample", costs::resize);
    formula(t, "ResizeBilinear", costs::resize);
    formula(t, "ResizeNearestNeighbor", costs::resize);
    formula(t, "RoiAlign", costs::roiAlign);
    formula(t, "NonMaxSuppression", costs::nonMaxSuppression);
    formula(t, "TopK", costs::topK);
    formula(t, "NonZero", costs::nonZero);
    formula(t, "QuantizeLinear", costs::quantizeLinear);
    formula(t, "DequantizeLinear", costs::dequantizeLinear);
    formula(t, "DynamicQuantizeLinear", costs::dynamicQuantizeLinear);
    formula(t, "ConvInteger", costs::convInteger);
    formula(t, "QLinearConv", costs::qLinearConv);
    formula(t, "MatMulInteger", costs::matMulInteger);
    formula(t, "QLinearMatMul", costs::qLinearMatMul);
}

// Element-wise ops, their TensorFlow gradients and the optimizer updates: FLOPs per element.
void addElementwise(RuleTable& t)
{
    add(t,
        {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "FloorDiv", "FloorMod", "Mod", "Neg", "Abs", "Relu", "Relu6",
         "LeakyRelu", "PRelu", "Clip", "ClipByValue", "Maximum", "Minimum", "BiasAdd", "Square", "SquaredDifference",
         "Equal", "NotEqual", "Less", "LessEqual", "LessOrEqual", "Greater", "GreaterEqual", "GreaterOrEqual", "And",
         "Or", "Not", "Xor", "LogicalAnd", "LogicalOr", "LogicalNot", "Where", "Select", "SelectV2", "Cast", "Floor",
         "Ceil", "Round", "Sign", "Reciprocal", "Inv", "HardSigmoid", "HardSwish", "Shrink", "ThresholdedRelu", "IsNaN",
         "IsInf", "Dropout", "Range", "Fill", "ConstantOfShape",
         // In-place variable updates (batch norm's moving averages): one element-wise pass.
         "AssignSub", "AssignAdd"},
        Rule{Family::Elementwise, kArith});
    add(t, {"Exp",      "Log", "Log1p", "Expm1", "Sigmoid", "Tanh", "Erf", "Sqrt",  "Rsqrt", "Pow", "Softplus",
            "Softsign", "Elu", "Selu",  "Celu",  "Sin",     "Cos",  "Tan", "Swish", "Silu",  "Mish"},
        Rule{Family::Elementwise, kTranscendental});
    add(t, {"Gelu", "FastGelu", "BiasGelu"}, Rule{Family::Elementwise, kGelu});
    // Gradients of activations, per element of input 0 (the incoming gradient: TF often
    // leaves their outputs without a shape): ReluGrad selects (1); SigmoidGrad dy·y·(1−y)
    // and TanhGrad dy·(1−y²) 3; Rsqrt, Sqrt, Softplus, Elu, Selu, Gelu gradients
    // recompute a transcendental (4).
    add(t, {"ReluGrad", "Relu6Grad", "LeakyReluGrad"}, Rule{Family::Norm, kArith});
    add(t, {"SigmoidGrad", "TanhGrad", "ReciprocalGrad"}, Rule{Family::Norm, 3.0});
    // RoiAlign's gradient: each incoming gradient element spread over its 4 bilinear
    // samples' 4 taps, an atomic multiply-add each (torchvision's kernel).
    add(t, {"RoiAlignGrad"}, Rule{Family::Norm, 40.0});
    add(t, {"RsqrtGrad", "SqrtGrad", "SoftplusGrad", "EluGrad", "SeluGrad", "GeluGrad"},
        Rule{Family::Norm, kTranscendental});
    // Optimizer updates, per element of input 0 (the variable): SGD w −= lr·g 2; momentum
    // a = m·a + g, w −= lr·a 4; Adagrad a += g², w −= lr·g / √a 6; RMSProp 8; Adam (two
    // moments, the bias-corrected step) 12. All are memory bound on a GPU anyway.
    add(t, {"ApplyGradientDescent", "ResourceApplyGradientDescent"}, Rule{Family::Norm, 2.0});
    add(t, {"ApplyMomentum", "ResourceApplyMomentum", "ApplyKerasMomentum", "ResourceApplyKerasMomentum"},
        Rule{Family::Norm, 4.0});
    add(t, {"ApplyAdagrad", "ResourceApplyAdagrad", "ApplyAdagradV2", "ResourceApplyAdagradV2"}, Rule{Family::Norm, 6.0});
    add(t, {"ApplyRMSProp", "ResourceApplyRMSProp", "ApplyCenteredRMSProp", "ResourceApplyCenteredRMSProp"},
        Rule{Family::Norm, 8.0});
    add(t, {"ApplyAdam", "ResourceApplyAdam", "ApplyAdamWithAmsgrad", "ResourceApplyAdamWithAmsgrad"},
        Rule{Family::Norm, 12.0});
}

// Reductions, pools, normalisations, lookups, data movement and metadata.
void addStructural(RuleTable& t)
{
    add(t,
        {"GlobalAveragePool",
         "GlobalMaxPool",
         "GlobalLpPool",
         "ReduceMean",
         "ReduceSum",
         "ReduceMax",
         "ReduceMin",
         "ReduceProd",
         "ReduceL1",
         "ReduceL2",
         "ReduceLogSum",
         "ReduceLogSumExp",
         "ReduceSumSquare",
         "Mean",
         "Sum",
         "Max",
         "Min",
         "Prod",
         "AddN",
         "ArgMax",
         "ArgMin",
         "L2Loss",
         "BiasAddGrad",
         "BiasAddGradV1"},
        Rule{Family::Reduce});
    add(t, {"MaxPool", "AveragePool", "AvgPool", "LpPool", "MaxPool3D", "AvgPool3D", "MaxPoolV2"}, Rule{Family::Pool});
    // Their gradients: dx = γ·σ⁻¹·(dy − mean(dy) − x̂·mean(dy·x̂)) and dγ, dβ: about as much.
    add(t, {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3", "LayerNormGrad"},
        Rule{Family::Norm, kNormalisation});
    add(t,
        {"BatchNormalization", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "LayerNormalization",
         "InstanceNormalization", "GroupNormalization", "SkipLayerNormalization"},
        Rule{Family::Norm, kNormalisation});
    add(t,
        {"Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
         "SoftmaxCrossEntropyLoss"},
        Rule{Family::Norm, kSoftmax});
    add(t, {"LRN"}, Rule{Family::Lrn});

    add(t, {"Gather", "GatherV2", "ResourceGather", "GatherND", "GatherElements"}, Rule{Family::Gather});
    add(t, {"Transpose",    "Concat", "ConcatV2",        "Split",        "SplitV",       "Slice",
            "StridedSlice", "Pad",    "PadV2",           "MirrorPad",    "Tile",         "Expand",
            "BroadcastTo",  "Pack",   "Unpack",          "DepthToSpace", "SpaceToDepth", "OneHot",
            "ReverseV2",    "Copy",   "ScatterElements", "ScatterND",    "Scatter"},
        Rule{Family::Copy});
    add(t,
        {"Reshape",
         "Identity",
         "Squeeze",
         "Unsqueeze",
         "Flatten",
         "ExpandDims",
         "Shape",
         "Size",
         "Rank",
         "NoOp",
         "Const",
         "Constant",
         "Placeholder",
         "PlaceholderWithDefault",
         "VariableV2",
         "Variable",
         "VarHandleOp",
         "ReadVariableOp",
         "StopGradient",
         "Snapshot",
         "Bitcast",
         "IdentityN",
         "BroadcastGradientArgs"},
        Rule{Family::Free});
}

const RuleTable& rules()
{
    static const RuleTable table = [] {
        RuleTable t;
        addFormulas(t);
        addElementwise(t);
        addStructural(t);
        return t;
    }();
    return table;
}

double poolWindow(const OpView& v)
{
    if (double k = v.attrProduct("kernel_shape"); k > 0.0)
        return k;
    if (double k = v.attrProduct("ksize"); k > 0.0) // TF: [1, kh, kw, 1]
        return k;
    const double out = v.outputElements();
    return out > 0.0 ? std::max(1.0, v.inputElements(0) / out) : 1.0;
}

double lrnWindow(const OpView& v)
{
    if (v.hasAttr("size"))
        return static_cast<double>(std::max<std::int64_t>(v.attr("size", 1), 1));
    return 2.0 * static_cast<double>(std::max<std::int64_t>(v.attr("depth_radius", 5), 0)) + 1.0; // TF default 5
}

} // namespace

bool isMatrixType(std::string_view type)
{
    static const std::unordered_set<std::string_view> types = {"Conv",
                                                               "ConvTranspose",
                                                               "Conv2D",
                                                               "Conv3D",
                                                               "Conv2DBackpropInput",
                                                               "Conv2DBackpropFilter",
                                                               "Conv3DBackpropFilterV2",
                                                               "Conv3DBackpropInputV2",
                                                               "MatMul",
                                                               "BatchMatMul",
                                                               "BatchMatMulV2",
                                                               "BatchMatMulV3",
                                                               "Gemm",
                                                               "Attention",
                                                               "MultiHeadAttention",
                                                               "LSTM",
                                                               "GRU",
                                                               "RNN",
                                                               "LSTMBlockCell",
                                                               "BlockLSTM",
                                                               "BlockLSTMV2",
                                                               "GRUBlockCell",
                                                               "ConvInteger",
                                                               "QLinearConv",
                                                               "MatMulInteger",
                                                               "QLinearMatMul"};
    return types.count(type) > 0;
}

namespace {

OpCost formulaCost(const OpView& v, const ShapedOp& op)
{
    const auto& table = rules();
    const auto it = table.find(op.type);
    if (it == table.end()) {
        OpCost c = costs::ioCost(v, v.outputElements());
        c.known = false;
        return c;
    }
    const Rule& rule = it->second;
    switch (rule.family) {
    case Family::Free:
        return OpCost{};
    case Family::Copy: {
        OpCost c;
        c.bytesWritten = v.outputBytes();
        c.bytesRead = std::min(v.inputBytes(), c.bytesWritten);
        return c;
    }
    case Family::Gather: {
        OpCost c;
        c.bytesWritten = v.outputBytes();
        c.bytesRead = OpView::bytes(v.input(1)) + c.bytesWritten;
        return c;
    }
    case Family::Elementwise:
        return costs::ioCost(v, rule.perElement * v.outputElements());
    case Family::Reduce: {
        double in = 0.0;
        for (size_t i = 0; i < v.inputCount(); ++i)
            in += v.inputElements(i);
        return costs::ioCost(v, std::max(0.0, in - v.outputElements()));
    }
    case Family::Pool:
        return costs::ioCost(v, poolWindow(v) * OpView::elements(v.output(0)));
    case Family::Norm:
        return costs::ioCost(v, rule.perElement * v.inputElements(0));
    case Family::Lrn:
        return costs::ioCost(v, (2.0 * lrnWindow(v) + 7.0) * OpView::elements(v.output(0)));
    case Family::Formula:
        return rule.formula(v);
    }
    return OpCost{};
}

} // namespace

bool isFusibleOpType(std::string_view type)
{
    const auto& table = rules();
    const auto it = table.find(type);
    if (it == table.end())
        return false;
    switch (it->second.family) {
    case Family::Elementwise:
        // Generators read nothing worth fusing; AssignAdd / AssignSub update a variable in place.
        return type != "Range" && type != "Fill" && type != "ConstantOfShape" && type != "AssignAdd"
            && type != "AssignSub";
    case Family::Reduce:
        return true;
    case Family::Norm:
        return !type.starts_with("Apply") && !type.starts_with("ResourceApply"); // optimizer updates
    default:
        return false;
    }
}

namespace {

// Shapes whose element count overflowed a 64-bit integer where they were inferred (a
// Flatten of [2, 2^32, 2^32] wraps to 0 elements): costed, they give 0 B and a 0 ms step.
// Refused instead: no tensor may hold 2^63 elements or more (a Flatten's output holds as
// many as its input, so a wrapped Flatten is caught at its input). A Tile whose product
// wraps must be caught where the shape is inferred (the ONNX reader).
void requireShapesFit(const ShapedGraph& graph, const ShapedOp& op)
{
    constexpr double kInt64Limit = 9223372036854775808.0; // 2^63: no int64 count reaches it
    const auto known = [](const ShapedTensor* t) {
        return t && std::none_of(t->shape.begin(), t->shape.end(), [](std::int64_t d) { return d < 0; });
    };
    const auto fail = [&](const std::string& why) {
        throw InputError(graph.source, op.location,
                         "op '" + op.name + "' (" + op.type + "): " + why
                             + "; the shape overflows a 64-bit integer (a dimension too large for any device)");
    };
    for (const std::vector<int>* tensors : {&op.inputs, &op.outputs})
        for (int index : *tensors)
            if (const ShapedTensor* t = index >= 0 && static_cast<size_t>(index) < graph.tensors.size()
                    ? &graph.tensors[static_cast<size_t>(index)]
                    : nullptr;
                known(t) && OpView::elements(t) >= kInt64Limit)
                fail("tensor '" + t->name + "' holds more than 2^63 elements");
}

} // namespace

BackwardClass backwardClassOf(std::string_view type)
{
    if (isMatrixType(type))
        return BackwardClass::Matrix;
    if (type == "Add" || type == "AddV2")
        return BackwardClass::PassThrough;
    const auto& table = rules();
    const auto it = table.find(type);
    if (it == table.end())
        return BackwardClass::Other;
    switch (it->second.family) {
    case Family::Free:
        return BackwardClass::Free;
    case Family::Copy:
    case Family::Reduce:
        return BackwardClass::Movement;
    case Family::Elementwise:
        return BackwardClass::Elementwise;
    default:
        return BackwardClass::Other;
    }
}

bool isStreamingOpType(std::string_view type)
{
    if (type.ends_with("Grad"))
        type.remove_suffix(4);
    const auto& table = rules();
    const auto it = table.find(type);
    if (it == table.end())
        return false;
    if (it->second.family == Family::Pool)
        return true;
    return it->second.family == Family::Elementwise && type != "Range" && type != "Fill" && type != "ConstantOfShape";
}

std::optional<AtenMaxPoolCosts> atenMaxPoolCosts(const ShapedGraph& graph, const ShapedOp& op)
{
    if (op.type != "MaxPool")
        return std::nullopt;
    const OpView v(graph, op);
    const ShapedTensor* x = v.input(0);
    const ShapedTensor* y = v.output(0);
    if (!x || !y)
        return std::nullopt;
    const double in = OpView::elements(x), out = OpView::elements(y);
    if (!(in > 0.0) || !(out > 0.0))
        return std::nullopt;
    constexpr double kIndexBytes = 8.0; // int64
    const double element = x->elementBytes;
    // Windows covering an input element, on average: the window positions of all outputs
    // over the inputs (2.25 for a 3x3 stride-2 pooling).
    const double cover = poolWindow(v) * out / in;
    AtenMaxPoolCosts c;
    c.indexBytes = kIndexBytes * out;
    c.backward.flops = cover * in; // a comparison per covering window
    c.backward.bytesRead = cover * in * kIndexBytes + out * element;
    c.backward.bytesWritten = in * element;
    c.backward.passBytes = in * element; // grad_input.zero_()
    c.backward.elementBytes = x->elementBytes;
    return c;
}

OpCost estimateOpCost(const ShapedGraph& graph, const ShapedOp& op)
{
    if (op.bodyCost)
        return *op.bodyCost; // control flow: what its bodies cost (the importer worked it out)
    const OpView v(graph, op);
    requireShapesFit(graph, op);
    OpCost c = formulaCost(v, op);
    c.matrix = isMatrixType(op.type);
    c.convolution = c.matrix && (op.type.find("Conv") != std::string::npos);
    if (!c.convolution)
        c.narrow = false;
    if (const ShapedTensor* first = v.input(0))
        c.elementBytes = first->elementBytes;
    return c;
}

} // namespace post
