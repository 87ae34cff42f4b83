#include "core/io/torch/AtenOps.h"

#include "core/graph/CollectiveNames.h"
#include "core/util/EmbeddedText.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

using RuleTable = std::unordered_map<std::string, AtenCostRule>;

// Operators whose arguments are not the ONNX op's, or that no ONNX op is exported from.
void addOwnRules(RuleTable& t)
{
    const auto rule = [&t](std::initializer_list<std::string_view> names, const AtenCostRule& r) {
        for (std::string_view name : names)
            t.insert_or_assign(std::string(name), r);
    };
    // Convolutions (input, weight, bias, stride, padding, dilation, groups); aten::convolution
    // and _convolution put `transposed` and `output_padding` before groups.
    rule({"aten::conv1d", "aten::conv2d", "aten::conv3d"}, {"Conv", {0, 1, 2}, {}, false, 1.0, {{"group", 6}}});
    rule({"aten::convolution", "aten::_convolution", "aten::cudnn_convolution"},
         {"Conv", {0, 1, 2}, {}, false, 1.0, {{"group", 8}}});
    // Backward: the input and the weight gradient, each about one forward convolution
    // (grad_output, input, weight, ..., groups at 9).
    rule({"aten::convolution_backward"}, {"Conv", {1, 2}, {0}, true, 2.0, {{"group", 9}}});
    // Matrix products: out = A x B (the output's shape gives M and N, A's last dim K).
    rule({"aten::mm", "aten::bmm", "aten::matmul"}, {"MatMul", {0, 1}, {}, false, 1.0, {}});
    rule({"aten::linear"}, {"MatMul", {0, 1}, {}, false, 1.0, {}});
    rule({"aten::addmm", "aten::baddbmm", "aten::addbmm"}, {"MatMul", {1, 2}, {}, false, 1.0, {}});
    // Fused attention (q, k, v: [batch, heads, length, head size]): the two products of
    // ONNX's Attention. Its backward recomputes the scores and runs five products to the
    // forward's two (FlashAttention-2), over the query, key and value (arguments 1-3).
    rule({"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_efficient_attention",
          "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_cudnn_attention",
          "aten::_scaled_dot_product_flash_attention_for_cpu"},
         {"Attention", {0, 1, 2}, {0}, false, 1.0, {}});
    rule({"aten::_scaled_dot_product_efficient_attention_backward",
          "aten::_scaled_dot_product_flash_attention_backward", "aten::_scaled_dot_product_cudnn_attention_backward",
          "aten::_scaled_dot_product_flash_attention_for_cpu_backward"},
         {"Attention", {1, 2, 3}, {}, false, 2.5, {}});
    // Pools: the window from kernel_size (argument 1); backward (grad_output, self, kernel_size, ...)
    // compares or spreads each gradient element over its window.
    rule({"aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d", "aten::max_pool2d_with_indices",
          "aten::max_pool3d_with_indices"},
         {"MaxPool", {0}, {0}, false, 1.0, {{"kernel_shape", 1}}});
    rule({"aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d"},
         {"AveragePool", {0}, {0}, false, 1.0, {{"kernel_shape", 1}}});
    rule({"aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d",
          "aten::_adaptive_avg_pool2d"},
         {"AveragePool", {0}, {0}, false, 1.0, {}});
    rule({"aten::max_pool2d_with_indices_backward", "aten::max_pool3d_with_indices_backward"},
         {"MaxPool", {1}, {0}, true, 1.0, {{"kernel_shape", 2}}});
    rule({"aten::avg_pool2d_backward", "aten::avg_pool3d_backward"},
         {"AveragePool", {1}, {0}, true, 1.0, {{"kernel_shape", 2}}});
    rule({"aten::_adaptive_avg_pool2d_backward"}, {"AveragePool", {1}, {0}, true, 1.0, {}});
    // Gradients of activations and normalisations, per element of the incoming gradient.
    rule({"aten::threshold_backward", "aten::hardtanh_backward", "aten::leaky_relu_backward"},
         {"ReluGrad", {0}, {}, false, 1.0, {}});
    rule({"aten::sigmoid_backward", "aten::tanh_backward"}, {"SigmoidGrad", {0}, {}, false, 1.0, {}});
    rule({"aten::gelu_backward", "aten::silu_backward", "aten::hardswish_backward", "aten::hardsigmoid_backward",
          "aten::mish_backward"},
         {"GeluGrad", {0}, {}, false, 1.0, {}});
    // A normalisation's backward reads the input and the incoming gradient twice (the
    // reductions, then the element-wise pass) and writes the input gradient: about twice the
    // forward's one read and one write, the ONNX path's backwardFactor for it.
    rule({"aten::native_batch_norm_backward", "aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm_backward"},
         {"FusedBatchNormGrad", {0}, {}, false, 2.0, {}});
    rule({"aten::native_layer_norm_backward"}, {"LayerNormGrad", {0}, {}, false, 2.0, {}});
    rule({"aten::_softmax_backward_data", "aten::_log_softmax_backward_data"}, {"Softmax", {0}, {}, false, 1.0, {}});
    rule({"aten::nll_loss_backward", "aten::nll_loss2d_backward"}, {"Mul", {0}, {}, false, 1.0, {}});
    rule({"aten::embedding_dense_backward", "aten::embedding_backward"}, {"Add", {0}, {}, false, 1.0, {}});
    // Forward operators the ONNX table does not list.
    rule({"aten::native_batch_norm", "aten::cudnn_batch_norm", "aten::_batch_norm_impl_index"},
         {"BatchNormalization", {0}, {0}, false, 1.0, {}});
    rule({"aten::native_layer_norm"}, {"LayerNormalization", {0}, {0}, false, 1.0, {}});
    rule({"aten::gelu"}, {"Gelu", {}, {}, false, 1.0, {}});
    rule({"aten::clamp_min", "aten::clamp_min_"}, {"Relu", {0}, {}, false, 1.0, {}});
    rule({"aten::cross_entropy_loss", "aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d"},
         {"SoftmaxCrossEntropyLoss", {0}, {}, false, 1.0, {}});
    rule({"aten::log_softmax", "aten::_log_softmax"}, {"LogSoftmax", {0}, {}, false, 1.0, {}});
    rule({"aten::neg", "aten::neg_"}, {"Neg", {}, {}, false, 1.0, {}});
    rule({"aten::sqrt", "aten::sqrt_"}, {"Sqrt", {}, {}, false, 1.0, {}});
    rule({"aten::rsqrt", "aten::rsqrt_"}, {"Rsqrt", {}, {}, false, 1.0, {}});
    rule({"aten::exp", "aten::exp_"}, {"Exp", {}, {}, false, 1.0, {}});
    rule({"aten::addcmul_", "aten::addcdiv_", "aten::lerp_"}, {"Mul", {0}, {}, false, 2.0, {}});
    rule({"aten::sum", "aten::sum_to_size"}, {"ReduceSum", {0}, {}, false, 1.0, {}});
    rule({"aten::mean"}, {"ReduceMean", {0}, {}, false, 1.0, {}});
    rule({"aten::native_dropout", "aten::dropout", "aten::dropout_"}, {"Dropout", {0}, {}, false, 1.0, {}});
    // Activations of one pass over their input (EfficientNet's SiLU, MobileNet-V3's hard ones)
    // and dropout's backward (the gradient times the mask, per element).
    rule({"aten::silu", "aten::silu_", "aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
          "aten::mish", "aten::mish_"},
         {"Sigmoid", {0}, {}, false, 1.0, {}});
    rule({"aten::native_dropout_backward"}, {"Mul", {0, 1}, {}, false, 1.0, {}});
    // Comparisons and masking, per element (Swin-T's attention masks).
    rule({"aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge"}, {"Equal", {}, {}, false, 1.0, {}});
    rule({"aten::masked_fill", "aten::masked_fill_", "aten::where"}, {"Where", {}, {}, false, 1.0, {}});
    // Copies and fills: memory traffic.
    rule({"aten::copy_", "aten::to", "aten::_to_copy", "aten::clone", "aten::contiguous", "aten::reshape",
          "aten::flatten", "aten::type_as", "aten::index_put_", "aten::_index_put_impl_", "aten::index",
          "aten::constant_pad_nd", "aten::pad", "aten::roll", "aten::select_backward", "aten::slice_backward"},
         {"Copy", {}, {}, false, 1.0, {}});
    rule({"aten::cat", "aten::flatten_dense_tensors", "aten::stack"}, {"Concat", {}, {}, false, 1.0, {}});
    // Detection models (torchvision's Faster R-CNN, RetinaNet): regions of interest pooled,
    // boxes selected, the best k taken, images resized, and their losses.
    rule({"torchvision::roi_align"}, {"RoiAlign", {0, 1}, {0}, false, 1.0, {{"sampling_ratio", 5}}});
    rule({"torchvision::_roi_align_backward"}, {"RoiAlignGrad", {0, 1}, {}, false, 1.0, {}});
    rule({"torchvision::nms"}, {"NonMaxSuppression", {0, 1}, {0}, false, 1.0, {}});
    rule({"aten::topk"}, {"TopK", {0}, {0}, false, 1.0, {{"axis", 2}}});
    rule({"aten::sort", "aten::argsort"}, {"TopK", {0}, {0}, false, 1.0, {{"axis", 1}}});
    rule({"aten::_unique2", "aten::unique_dim", "aten::_unique"}, {"TopK", {0}, {0}, false, 1.0, {}});
    rule({"aten::nonzero"}, {"NonZero", {0}, {0}, false, 1.0, {}});
    rule({"aten::upsample_bilinear2d"}, {"ResizeBilinear", {0}, {0}, false, 1.0, {}});
    rule({"aten::upsample_nearest2d", "aten::upsample_nearest1d", "aten::upsample_nearest3d"},
         {"ResizeNearestNeighbor", {0}, {0}, false, 1.0, {}});
    rule({"aten::upsample_bilinear2d_backward", "aten::upsample_nearest2d_backward"}, {"Copy", {0}, {}, false, 1.0, {}});
    // Losses reduce to a scalar, so they are priced per element of their input: smooth L1 (a
    // difference, its size tested, a square or an absolute value) 3 FLOPs, as its backward;
    // binary cross-entropy with logits (a sigmoid, a log, the products) that of a softmax.
    rule({"aten::smooth_l1_loss", "aten::l1_loss", "aten::mse_loss"}, {"SigmoidGrad", {0, 1}, {}, false, 1.0, {}});
    rule({"aten::smooth_l1_loss_backward", "aten::l1_loss_backward", "aten::mse_loss_backward"},
         {"SigmoidGrad", {1, 2, 0}, {}, false, 1.0, {}});
    rule({"aten::binary_cross_entropy_with_logits", "aten::binary_cross_entropy"},
         {"SoftmaxCrossEntropyLoss", {0, 1}, {}, false, 1.0, {}});
    rule({"aten::binary_cross_entropy_with_logits_backward", "aten::binary_cross_entropy_backward"},
         {"SoftmaxCrossEntropyLoss", {1, 2, 0}, {}, false, 1.0, {}});
    rule({"aten::log", "aten::log_", "aten::log2", "aten::log10", "aten::log1p"}, {"Log", {}, {}, false, 1.0, {}});
    rule({"aten::floor", "aten::ceil", "aten::round"}, {"Floor", {}, {}, false, 1.0, {}});
    rule({"aten::reciprocal", "aten::reciprocal_"}, {"Reciprocal", {}, {}, false, 1.0, {}});
    rule({"aten::__and__", "aten::__or__", "aten::logical_and", "aten::logical_or", "aten::bitwise_and",
          "aten::bitwise_or"},
         {"And", {}, {}, false, 1.0, {}});
    rule({"aten::max", "aten::min", "aten::amax", "aten::amin", "aten::any", "aten::all"},
         {"ReduceMax", {0}, {}, false, 1.0, {}});
    rule({"aten::arange", "aten::randperm"}, {"Range", {}, {}, false, 1.0, {}});
    rule({"aten::meshgrid"}, {"Expand", {}, {}, false, 1.0, {}});
    rule({"aten::broadcast_tensors"}, {"Identity", {}, {}, false, 1.0, {}});
    rule({"aten::index_put"}, {"Copy", {}, {}, false, 1.0, {}});
    rule({"aten::fill_", "aten::zero_", "aten::zeros", "aten::ones", "aten::full", "aten::zeros_like",
          "aten::ones_like", "aten::full_like", "aten::normal_", "aten::uniform_", "aten::bernoulli_",
          "aten::new_zeros", "aten::new_ones", "aten::new_full"},
         {"Fill", {}, {}, false, 1.0, {}});
}

// The cost type names outlive the parsed table they come from.
std::string_view internType(std::string_view type)
{
    static std::unordered_set<std::string> names;
    return *names.insert(std::string(type)).first;
}

RuleTable buildRules()
{
    RuleTable t;
    // The aten<->ONNX table: where an operator is listed under several types the first in the
    // table's (alphabetical) order wins; the project's own rules replace it.
    for (const auto& [type, atens] : atenOfOnnx())
        for (const std::string& aten : atens)
            t.try_emplace(aten, AtenCostRule{internType(type), {}, {}, false, 1.0, {}});
    addOwnRules(t);
    return t;
}

} // namespace

const AtenOfOnnxTable& atenOfOnnx()
{
    static const AtenOfOnnxTable table = [] {
        AtenOfOnnxTable t;
        for (const EmbeddedText& file : embeddedTorchTables())
            if (file.name == "aten_of_onnx") {
                const nlohmann::json doc = nlohmann::json::parse(file.text); // outlives the loop
                for (const auto& [type, atens] : doc.at("table").items())
                    for (const auto& aten : atens)
                        t[type].insert(aten.get<std::string>());
            }
        return t;
    }();
    return table;
}

const AtenCostRule* atenCostRule(std::string_view aten)
{
    static const RuleTable table = buildRules();
    const auto it = table.find(std::string(aten));
    if (it == table.end()) {
        // Foreach kernels of the optimizers (_foreach_add_, _foreach_mul_, ...): one
        // element-wise pass over every tensor of the first list argument.
        static const AtenCostRule foreachRule{"Add", {}, {0}, true, 1.0, {}};
        if (aten.starts_with("aten::_foreach_"))
            return &foreachRule;
        static const AtenCostRule collectiveRule{"Copy", {}, {0}, true, 1.0, {}};
        if (isCollectiveName(aten))
            return &collectiveRule;
        return nullptr;
    }
    return &it->second;
}

bool isBookkeepingAten(std::string_view aten)
{
    static const std::unordered_set<std::string_view> names = {
        "aten::view",
        "aten::_unsafe_view",
        "aten::_reshape_alias",
        "aten::as_strided",
        "aten::as_strided_",
        "aten::t",
        "aten::t_",
        "aten::transpose",
        "aten::transpose_",
        "aten::permute",
        "aten::expand",
        "aten::expand_as",
        "aten::view_as",
        "aten::detach",
        "aten::detach_",
        "aten::alias",
        "aten::slice",
        "aten::narrow",
        "aten::select",
        "aten::unsqueeze",
        "aten::unsqueeze_",
        "aten::squeeze",
        "aten::squeeze_",
        "aten::split",
        "aten::split_with_sizes",
        "aten::chunk",
        "aten::unbind",
        "aten::unflatten",
        "aten::unflatten_dense_tensors",
        "aten::diagonal",
        "aten::numpy_T",
        "aten::empty",
        "aten::empty_like",
        "aten::empty_strided",
        "aten::new_empty",
        "aten::new_empty_strided",
        "aten::resize_",
        "aten::resize_as_",
        "aten::set_",
        "aten::result_type",
        "aten::lift",
        "aten::lift_fresh",
        "aten::resolve_conj",
        "aten::resolve_neg",
        "aten::size",
        "aten::stride",
        "aten::dim",
        "aten::is_same_size",
        "aten::record_stream",
        "aten::_has_compatible_shallow_copy_type",
        "aten::requires_grad_",
        "aten::retain_grad",
        "aten::_version",
        "aten::is_nonzero",
        "aten::item",
        "aten::_local_scalar_dense",
        "aten::output_nr",
        "aten::_nested_tensor_from_mask_left_aligned",
    };
    return names.count(aten) > 0;
}

bool isMaybeAliasAten(std::string_view aten)
{
    return aten == "aten::to" || aten == "aten::contiguous" || aten == "aten::reshape" || aten == "aten::flatten"
        || aten == "aten::type_as";
}

bool isCollectiveName(std::string_view name)
{
    return name.starts_with("c10d::") || name.starts_with("nccl:") || name == "record_param_comms";
}

CollectiveKind collectiveKindOfName(std::string_view name)
{
    if (!name.starts_with("c10d::") && !name.starts_with("nccl:"))
        return CollectiveKind::None;
    return collectiveKindOfLetters(name.substr(name.find(':') + 1));
}

} // namespace post
