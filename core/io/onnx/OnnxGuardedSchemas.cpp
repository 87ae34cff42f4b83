#include "core/io/onnx/OnnxGuardedSchemas.h"
#include "core/io/onnx/OnnxTensorData.h"

#include <onnx/defs/shape_inference.h>
#include <onnx/defs/tensor_proto_util.h>

#include <cstdint>
#include <vector>

namespace post {
namespace {

// Rank of input `i`, or -1 when it is absent or has no shape.
int inputRank(onnx::InferenceContext& ctx, std::size_t i)
{
    if (i >= ctx.getNumInputs())
        return -1;
    const onnx::TypeProto* type = ctx.getInputType(i);
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
        return -1;
    return type->tensor_type().shape().dim_size();
}

// Convolutions read the kernel's spatial dims from W and index X, the pads and the
// dilations with them: W must have X's rank (and ConvTranspose reads W.shape[1]).
void checkConvolution(onnx::InferenceContext& ctx, std::size_t wIndex)
{
    const int x = inputRank(ctx, 0);
    const int w = inputRank(ctx, wIndex);
    if (w >= 0 && w < 2)
        fail_shape_inference("the weight has rank ", w, "; it needs [out, in, spatial...]");
    if (x >= 0 && w >= 0 && x != w)
        fail_shape_inference("the input has rank ", x, " but the weight rank ", w, "; they must be equal");
}

// The most dimensions a shape input may ask for. ONNX sets no limit and real models stay
// under ten, but Expand's and ConstantOfShape's inference add one output dimension per
// element of their shape input before anything checks it: found by fuzz_onnx, a Range of
// 10^18 elements feeding Expand's shape took over 4 GB.
constexpr std::int64_t kMaxShapeRank = 64;

// Elements of the 1-D shape input `i`, from its data or its inferred shape; -1 when unknown.
std::int64_t shapeInputLength(onnx::InferenceContext& ctx, std::size_t i)
{
    if (i >= ctx.getNumInputs())
        return -1;
    if (const onnx::TensorProto* data = ctx.getInputData(i))
        return data->dims_size() == 1 ? data->dims(0) : -1;
    const onnx::TypeProto* type = ctx.getInputType(i);
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
        return -1;
    const auto& shape = type->tensor_type().shape();
    return shape.dim_size() == 1 && shape.dim(0).has_dim_value() ? shape.dim(0).dim_value() : -1;
}

void checkShapeInput(onnx::InferenceContext& ctx, std::size_t i)
{
    const std::int64_t length = shapeInputLength(ctx, i);
    if (length > kMaxShapeRank)
        fail_shape_inference("the shape input has ", length, " elements; at most ", kMaxShapeRank,
                             " dimensions are supported");
}

// Inference functions read constant inputs with ONNX 1.12's ParseData, which copies all of
// raw_data into a vector sized raw_data.size() / element size: fewer bytes than one element
// wrote through a null pointer, a ragged tail past the vector's end (found by fuzz_onnx).
// checkOnnxModel refuses such tensors in the file first (with a better location); this
// keeps libonnx safe from any that reach inference another way.
void checkRawData(onnx::InferenceContext& ctx)
{
    for (std::size_t i = 0; i < ctx.getNumInputs(); ++i)
        if (const onnx::TensorProto* data = ctx.getInputData(i))
            if (const auto problem = onnxTensorDataProblem(*data))
                fail_shape_inference("input ", i, " ('", data->name(), "') ", *problem);
}

// Tile's inference multiplies each dimension by its repeat unchecked: [2^32] tiled 2^32 times
// wrapped to a dimension of 0 (0 B, a 0 ms step). Checked first, naming the dimension.
void checkTile(onnx::InferenceContext& ctx)
{
    if (ctx.getNumInputs() < 2 || inputRank(ctx, 0) < 0)
        return;
    const onnx::TensorProto* repeats = ctx.getInputData(1);
    if (!repeats || repeats->data_type() != onnx::TensorProto::INT64)
        return;
    const std::vector<std::int64_t> times = onnx::ParseData<std::int64_t>(repeats);
    const auto& shape = ctx.getInputType(0)->tensor_type().shape();
    for (int i = 0; i < shape.dim_size() && i < static_cast<int>(times.size()); ++i) {
        const auto r = times[static_cast<std::size_t>(i)];
        if (r < 0)
            fail_shape_inference("repeats[", i, "] is ", r, "; repeats must be >= 0");
        std::int64_t product = 0;
        if (shape.dim(i).has_dim_value() && __builtin_mul_overflow(shape.dim(i).dim_value(), r, &product))
            fail_shape_inference("dimension ", i, " (", shape.dim(i).dim_value(), ") tiled ", r,
                                 " times is more than 2^63 elements");
    }
}

// Whether a shape's known dimensions multiply past int64 (a zero dimension: 0 elements).
bool elementsOverflow(const onnx::TensorShapeProto& shape)
{
    std::int64_t elements = 1;
    bool overflow = false;
    for (const auto& dim : shape.dim()) {
        if (!dim.has_dim_value())
            continue;
        if (dim.dim_value() == 0)
            return false;
        overflow = overflow || __builtin_mul_overflow(elements, dim.dim_value(), &elements);
    }
    return overflow;
}

// Before any op's inference: no input holds more than 2^63 elements (a Flatten of [2, 2^32, 2^32]
// multiplies them into one dimension that wraps).
void checkInputSizes(onnx::InferenceContext& ctx)
{
    for (std::size_t i = 0; i < ctx.getNumInputs(); ++i) {
        const onnx::TypeProto* type = ctx.getInputType(i);
        if (type && type->has_tensor_type() && type->tensor_type().has_shape()
            && elementsOverflow(type->tensor_type().shape()))
            fail_shape_inference("input ", i, " holds more than 2^63 elements");
    }
}

// After any op's inference: every known output dimension >= 0 and each output within 2^63 elements.
void checkOutputs(onnx::InferenceContext& ctx)
{
    for (std::size_t i = 0; i < ctx.getNumOutputs(); ++i) {
        const onnx::TypeProto* type = ctx.getOutputType(i);
        if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
            continue;
        const auto& shape = type->tensor_type().shape();
        for (int d = 0; d < shape.dim_size(); ++d)
            if (shape.dim(d).has_dim_value() && shape.dim(d).dim_value() < 0)
                fail_shape_inference("output ", i, " has dimension ", d, " of ", shape.dim(d).dim_value(),
                                     " (a size that wrapped)");
        if (elementsOverflow(shape))
            fail_shape_inference("output ", i, " would hold more than 2^63 elements");
    }
}

void checkNode(const std::string& opType, onnx::InferenceContext& ctx)
{
    checkRawData(ctx);
    checkInputSizes(ctx);
    if (opType == "Conv" || opType == "ConvInteger" || opType == "ConvTranspose")
        checkConvolution(ctx, 1);
    else if (opType == "QLinearConv")
        checkConvolution(ctx, 3);
    else if (opType == "Expand" || opType == "Reshape")
        checkShapeInput(ctx, 1);
    else if (opType == "ConstantOfShape")
        checkShapeInput(ctx, 0);
    else if (opType == "Tile")
        checkTile(ctx);
}

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

} // namespace

const onnx::OpSchema* OnnxGuardedSchemas::GetSchema(const std::string& key, const int maxInclusiveVersion,
                                                    const std::string& domain) const
{
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Instance()->GetSchema(key, maxInclusiveVersion, domain);
    if (!schema || !isDefaultDomain(domain) || !schema->has_type_and_shape_inference_function())
        return schema;
    const std::lock_guard lock(mutex_);
    auto& guarded = guarded_[schema];
    if (!guarded) {
        guarded = std::make_unique<onnx::OpSchema>(*schema);
        guarded->TypeAndShapeInferenceFunction(
            [opType = schema->Name(), infer = schema->GetTypeAndShapeInferenceFunction()](onnx::InferenceContext& ctx) {
                checkNode(opType, ctx);
                infer(ctx);
                checkOutputs(ctx);
            });
    }
    return guarded.get();
}

} // namespace post
