#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace post {

// Bytes per element of an ONNX TensorProto::DataType; 0 for strings and unknown types.
int onnxElementBytes(int dataType);
bool isOnnxFloatType(int dataType);
// Integer types and bool: the types shape arithmetic folds.
bool isOnnxIntegerType(int dataType);

// Number of elements of `dims`; nullopt if a dimension is negative or the product overflows.
std::optional<std::int64_t> onnxElementCount(const std::vector<std::int64_t>& dims);

// Why the data stored in `tensor` cannot be what its type and dims say ("holds 3 bytes of
// raw data, but type float and dims [2, 3] need 24"); nullopt when it fits, when the data
// is in an external file, and for types without a fixed element size (strings).
std::optional<std::string> onnxTensorDataProblem(const onnx::TensorProto& tensor);

// A small integer tensor known at import time (shape arithmetic being folded), or a float
// one (a scale a size is multiplied by before Floor/Ceil and a Cast back: `reals`).
struct OnnxIntTensor {
    int dataType = onnx::TensorProto::INT64;
    std::vector<std::int64_t> dims;
    std::vector<std::int64_t> values; // row-major; empty for a floating-point dataType
    std::vector<double> reals;        // row-major, for a floating-point dataType only

    bool isReal() const { return isOnnxFloatType(dataType); }
    std::size_t size() const { return isReal() ? reals.size() : values.size(); }
};

// The values of an integer (or bool) tensor whose data is in the file; nullopt for other
// types, external data, a data length that does not match the dims, or more than
// `maxElements` elements.
std::optional<OnnxIntTensor> decodeOnnxIntTensor(const onnx::TensorProto& tensor, std::size_t maxElements);
// The values of a float or double tensor whose data is in the file (a Constant node's
// scale), as OnnxIntTensor::reals; nullopt otherwise or beyond `maxElements`.
std::optional<OnnxIntTensor> decodeOnnxRealTensor(const onnx::TensorProto& tensor, std::size_t maxElements);
onnx::TensorProto encodeOnnxIntTensor(const OnnxIntTensor& tensor, const std::string& name);

} // namespace post
