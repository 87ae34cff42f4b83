#include "core/io/onnx/OnnxGuardedSchemas.h"
#include "core/io/onnx/OnnxTensorData.h"

#include <onnx/defs/shape_inference.h>

#include <cstdint>

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

void checkNode(const std::string& opType, onnx::InferenceContext& ctx)
{
    checkRawData(ctx);
    if (opType == "Conv" || opType == "ConvInteger" || opType == "ConvTranspose")
        checkConvolution(ctx, 1);
    else if (opType == "QLinearConv")
        checkConvolution(ctx, 3);
    else if (opType == "Expand" || opType == "Reshape")
        checkShapeInput(ctx, 1);
    else if (opType == "ConstantOfShape")
        checkShapeInput(ctx, 0);
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
            });
    }
    return guarded.get();
}

} // namespace post
