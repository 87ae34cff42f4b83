// Sizes that depend on the data (docs/importers.md): a NonZero's count, the boxes a
// NonMaxSuppression keeps. torchvision's detection models export their proposal filtering
// and their box selection so, and every shape after those ops waits for these sizes.
#include "core/io/onnx/OnnxDataSizes.h"

#include "core/io/onnx/OnnxNodeLocation.h"
#include "core/io/onnx/OnnxOpsetCompat.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace post {
namespace {

std::string shapeText(const std::vector<std::int64_t>& dims)
{
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i > 0 ? ", " : "") + std::to_string(dims[i]);
    return text + "]";
}

std::optional<std::int64_t> product(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 1;
    for (std::int64_t d : dims)
        if (d < 0 || __builtin_mul_overflow(n, d, &n))
            return std::nullopt;
    return n;
}

// What one data-dependent node can give: its description, the most, and its output's shape
// for a size (the size's place marked -1).
struct Site {
    std::string what;
    std::int64_t largest = 0;
    std::vector<std::int64_t> shape;
};

std::optional<Site> siteOf(const onnx::NodeProto& node, const OnnxConstantFolder& folder)
{
    if (!isOnnxDefaultDomain(node.domain()) || node.output_size() < 1 || node.output(0).empty())
        return std::nullopt;
    auto shapeOf = [&](int i) { return node.input_size() > i ? folder.knownShape(node.input(i)) : nullptr; };
    if (node.op_type() == "NonZero") {
        const auto* x = shapeOf(0);
        const auto n = x ? product(*x) : std::nullopt;
        if (!n)
            return std::nullopt;
        return Site{
            "the nonzero elements of a " + shapeText(*x) + " tensor", *n, {static_cast<std::int64_t>(x->size()), -1}};
    }
    if (node.op_type() == "NonMaxSuppression") {
        const auto* boxes = shapeOf(0);
        const auto* scores = shapeOf(1);
        if (!boxes || !scores || boxes->size() != 3 || scores->size() != 3)
            return std::nullopt;
        // max_output_boxes_per_class: absent is 0 (no box kept); unknown, every box.
        std::int64_t perClass = (*boxes)[1];
        if (node.input_size() < 3 || node.input(2).empty())
            perClass = 0;
        else if (const OnnxIntTensor* m = folder.knownValue(node.input(2)); m && m->values.size() == 1)
            perClass = std::clamp<std::int64_t>(m->values[0], 0, (*boxes)[1]);
        const auto n = product({(*scores)[0], (*scores)[1], perClass});
        if (!n)
            return std::nullopt;
        return Site{"the boxes kept of " + std::to_string((*boxes)[1]) + " in " + std::to_string((*scores)[0])
                        + " batch(es) of " + std::to_string((*scores)[1]) + " class(es)",
                    *n,
                    {-1, 3}};
    }
    return std::nullopt;
}

void setOutputShape(onnx::GraphProto& graph, const std::string& name, const std::vector<std::int64_t>& dims)
{
    // A graph output's type is in graph.output, where readers look for it first.
    onnx::ValueInfoProto* info = nullptr;
    for (auto& vi : *graph.mutable_output())
        if (vi.name() == name)
            info = &vi;
    for (auto& vi : *graph.mutable_value_info())
        if (info == nullptr && vi.name() == name)
            info = &vi;
    if (!info) {
        info = graph.add_value_info();
        info->set_name(name);
    }
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::INT64);
    auto* shape = tensor->mutable_shape();
    shape->clear_dim();
    for (std::int64_t d : dims)
        shape->add_dim()->set_dim_value(d);
}

} // namespace

int shapeOnnxDataDependentSizes(onnx::GraphProto& graph, const std::vector<int>& fileIndex,
                                const OnnxConstantFolder& folder, const std::map<std::string, std::int64_t>& given,
                                bool atMost, const std::string& source, std::vector<DataDependentSize>& sizes)
{
    int shaped = 0;
    for (int i = 0; i < graph.node_size(); ++i) {
        const onnx::NodeProto& node = graph.node(i);
        if (node.output_size() < 1 || folder.shapeKnown(node.output(0)))
            continue;
        const auto site = siteOf(node, folder);
        if (!site)
            continue;
        const std::string key = node.name().empty() ? node.output(0) : node.name();
        const auto seen = std::find_if(sizes.begin(), sizes.end(), [&](const auto& s) { return s.node == key; });
        if (seen != sizes.end())
            continue; // reached before and left without a size
        DataDependentSize& size = sizes.emplace_back();
        size.node = key;
        size.location = onnxNodeLocation(fileIndex[static_cast<std::size_t>(i)], node);
        size.what = site->what;
        size.largest = site->largest;
        if (const auto it = given.find(key); it != given.end()) {
            if (it->second < 0 || it->second > site->largest)
                throw InputError(source, "option count",
                                 size.location + " gives " + site->what + ", at most " + std::to_string(site->largest)
                                     + ", not " + std::to_string(it->second));
            size.value = it->second;
        } else if (atMost) {
            size.value = site->largest;
            size.atMost = true;
        } else {
            continue;
        }
        std::vector<std::int64_t> dims = site->shape;
        std::replace(dims.begin(), dims.end(), std::int64_t{-1}, size.value);
        setOutputShape(graph, node.output(0), dims);
        ++shaped;
    }
    return shaped;
}

void checkOnnxGivenSizes(const std::map<std::string, std::int64_t>& given, const std::vector<DataDependentSize>& sizes,
                         const std::string& source)
{
    for (const auto& [name, value] : given) {
        if (std::any_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s.node == name; }))
            continue;
        std::string known;
        for (const DataDependentSize& s : sizes)
            known += (known.empty() ? "" : ", ") + ("'" + s.node + "'");
        throw InputError(source, "option count",
                         "no op whose size depends on the data is named '" + name + "' ("
                             + (known.empty() ? std::string("the model has none its shapes reach")
                                              : "those the import reached: " + known)
                             + ")");
    }
}

} // namespace post
