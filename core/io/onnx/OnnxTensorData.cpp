#include "core/io/onnx/OnnxTensorData.h"

#include <cctype>
#include <cstring>
#include <limits>

namespace post {
namespace {

using TP = onnx::TensorProto;

template <typename T> bool readRaw(const std::string& raw, std::size_t count, std::vector<std::int64_t>& out)
{
    if (raw.size() != count * sizeof(T))
        return false;
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        T v; // raw_data is little-endian, like the hosts this builds for
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        out[i] = static_cast<std::int64_t>(v);
    }
    return true;
}

bool readRawData(int type, const std::string& raw, std::size_t count, std::vector<std::int64_t>& out)
{
    switch (type) {
    case TP::INT64:
        return readRaw<std::int64_t>(raw, count, out);
    case TP::UINT64:
        return readRaw<std::uint64_t>(raw, count, out);
    case TP::INT32:
        return readRaw<std::int32_t>(raw, count, out);
    case TP::UINT32:
        return readRaw<std::uint32_t>(raw, count, out);
    case TP::INT16:
        return readRaw<std::int16_t>(raw, count, out);
    case TP::UINT16:
        return readRaw<std::uint16_t>(raw, count, out);
    case TP::INT8:
        return readRaw<std::int8_t>(raw, count, out);
    case TP::UINT8:
    case TP::BOOL:
        return readRaw<std::uint8_t>(raw, count, out);
    default:
        return false;
    }
}

template <typename Field> bool readTyped(const Field& field, std::size_t count, std::vector<std::int64_t>& out)
{
    if (static_cast<std::size_t>(field.size()) != count)
        return false;
    out.assign(field.begin(), field.end());
    return true;
}

std::string dimsText(const std::vector<std::int64_t>& dims)
{
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i ? ", " : "") + std::to_string(dims[i]);
    return text + "]";
}

std::string typeText(int dataType)
{
    std::string name = TP::DataType_IsValid(dataType) ? TP::DataType_Name(static_cast<TP::DataType>(dataType))
                                                      : "type " + std::to_string(dataType);
    for (char& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

std::string plural(std::uint64_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The typed field a tensor of `dataType` keeps its values in, and the field's name.
struct TypedField {
    const char* name = nullptr;
    std::uint64_t size = 0;
    std::uint64_t perElement = 1; // complex numbers take two
};

TypedField typedField(const TP& t)
{
    switch (t.data_type()) {
    case TP::FLOAT:
        return {"float_data", static_cast<std::uint64_t>(t.float_data_size())};
    case TP::COMPLEX64:
        return {"float_data", static_cast<std::uint64_t>(t.float_data_size()), 2};
    case TP::DOUBLE:
        return {"double_data", static_cast<std::uint64_t>(t.double_data_size())};
    case TP::COMPLEX128:
        return {"double_data", static_cast<std::uint64_t>(t.double_data_size()), 2};
    case TP::INT64:
        return {"int64_data", static_cast<std::uint64_t>(t.int64_data_size())};
    case TP::UINT32:
    case TP::UINT64:
        return {"uint64_data", static_cast<std::uint64_t>(t.uint64_data_size())};
    case TP::STRING:
        return {"string_data", static_cast<std::uint64_t>(t.string_data_size())};
    case TP::INT32:
    case TP::INT16:
    case TP::INT8:
    case TP::UINT16:
    case TP::UINT8:
    case TP::BOOL:
    case TP::FLOAT16:
    case TP::BFLOAT16:
        return {"int32_data", static_cast<std::uint64_t>(t.int32_data_size())};
    default:
        return {};
    }
}

} // namespace

std::optional<std::string> onnxTensorDataProblem(const onnx::TensorProto& tensor)
{
    if (tensor.data_location() == TP::EXTERNAL)
        return std::nullopt;
    const std::vector<std::int64_t> dims(tensor.dims().begin(), tensor.dims().end());
    const auto count = onnxElementCount(dims);
    if (!count)
        return "has dims " + dimsText(dims) + ": negative, or more than 2^63 elements";
    const std::string what = "type " + typeText(tensor.data_type()) + " and dims " + dimsText(dims) + " need ";
    const auto elements = static_cast<std::uint64_t>(*count);
    if (tensor.has_raw_data()) {
        const auto bytes = static_cast<std::uint64_t>(onnxElementBytes(tensor.data_type()));
        const auto have = static_cast<std::uint64_t>(tensor.raw_data().size());
        if (bytes == 0 || (have % bytes == 0 && have / bytes == elements))
            return std::nullopt;
        const std::string need = elements > std::numeric_limits<std::uint64_t>::max() / bytes
            ? "more than 2^64"
            : std::to_string(elements * bytes);
        return "holds " + plural(have, "byte", "bytes") + " of raw data, but " + what + need;
    }
    const TypedField field = typedField(tensor);
    if (!field.name)
        return std::nullopt;
    const bool fits = elements <= std::numeric_limits<std::uint64_t>::max() / field.perElement;
    if (fits && field.size == elements * field.perElement)
        return std::nullopt;
    return "holds " + plural(field.size, "value", "values") + " in " + field.name + ", but " + what
        + (fits ? std::to_string(elements * field.perElement) : "more than 2^64");
}

int onnxElementBytes(int dataType)
{
    switch (dataType) {
    case TP::FLOAT:
    case TP::INT32:
    case TP::UINT32:
        return 4;
    case TP::DOUBLE:
    case TP::INT64:
    case TP::UINT64:
    case TP::COMPLEX64:
        return 8;
    case TP::COMPLEX128:
        return 16;
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::INT16:
    case TP::UINT16:
        return 2;
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
        return 1;
    default:
        return 0;
    }
}

bool isOnnxFloatType(int dataType)
{
    return dataType == TP::FLOAT || dataType == TP::DOUBLE || dataType == TP::FLOAT16 || dataType == TP::BFLOAT16;
}

bool isOnnxIntegerType(int dataType)
{
    switch (dataType) {
    case TP::INT64:
    case TP::UINT64:
    case TP::INT32:
    case TP::UINT32:
    case TP::INT16:
    case TP::UINT16:
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
        return true;
    default:
        return false;
    }
}

std::optional<std::int64_t> onnxElementCount(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 1;
    for (std::int64_t d : dims) {
        if (d < 0)
            return std::nullopt;
        if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
            return std::nullopt;
        n *= d;
    }
    return n;
}

std::optional<OnnxIntTensor> decodeOnnxIntTensor(const onnx::TensorProto& tensor, std::size_t maxElements)
{
    if (!isOnnxIntegerType(tensor.data_type()) || tensor.data_location() == TP::EXTERNAL)
        return std::nullopt;
    OnnxIntTensor out;
    out.dataType = tensor.data_type();
    out.dims.assign(tensor.dims().begin(), tensor.dims().end());
    const auto count = onnxElementCount(out.dims);
    if (!count || static_cast<std::uint64_t>(*count) > maxElements)
        return std::nullopt;
    const auto n = static_cast<std::size_t>(*count);
    bool ok = false;
    if (tensor.has_raw_data())
        ok = readRawData(out.dataType, tensor.raw_data(), n, out.values);
    else if (out.dataType == TP::INT64)
        ok = readTyped(tensor.int64_data(), n, out.values);
    else if (out.dataType == TP::UINT64 || out.dataType == TP::UINT32)
        ok = readTyped(tensor.uint64_data(), n, out.values);
    else
        ok = readTyped(tensor.int32_data(), n, out.values);
    if (!ok)
        return std::nullopt;
    return out;
}

std::optional<OnnxIntTensor> decodeOnnxRealTensor(const onnx::TensorProto& tensor, std::size_t maxElements)
{
    const int type = tensor.data_type();
    if ((type != TP::FLOAT && type != TP::DOUBLE) || tensor.data_location() == TP::EXTERNAL)
        return std::nullopt;
    OnnxIntTensor out;
    out.dataType = type;
    out.dims.assign(tensor.dims().begin(), tensor.dims().end());
    const auto count = onnxElementCount(out.dims);
    if (!count || static_cast<std::uint64_t>(*count) > maxElements)
        return std::nullopt;
    const auto n = static_cast<std::size_t>(*count);
    const std::size_t width = type == TP::FLOAT ? sizeof(float) : sizeof(double);
    if (tensor.has_raw_data()) {
        if (tensor.raw_data().size() != n * width)
            return std::nullopt;
        for (std::size_t i = 0; i < n; ++i) {
            if (type == TP::FLOAT) {
                float v = 0; // little-endian, like the hosts this builds for
                std::memcpy(&v, tensor.raw_data().data() + i * width, width);
                out.reals.push_back(v);
            } else {
                double v = 0;
                std::memcpy(&v, tensor.raw_data().data() + i * width, width);
                out.reals.push_back(v);
            }
        }
    } else if (type == TP::FLOAT && static_cast<std::size_t>(tensor.float_data_size()) == n) {
        out.reals.assign(tensor.float_data().begin(), tensor.float_data().end());
    } else if (type == TP::DOUBLE && static_cast<std::size_t>(tensor.double_data_size()) == n) {
        out.reals.assign(tensor.double_data().begin(), tensor.double_data().end());
    } else {
        return std::nullopt;
    }
    return out;
}

onnx::TensorProto encodeOnnxIntTensor(const OnnxIntTensor& tensor, const std::string& name)
{
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(tensor.dataType);
    for (std::int64_t d : tensor.dims)
        t.add_dims(d);
    for (double v : tensor.reals) {
        if (tensor.dataType == TP::DOUBLE)
            t.add_double_data(v);
        else
            t.add_float_data(static_cast<float>(v));
    }
    for (std::int64_t v : tensor.values) {
        switch (tensor.dataType) {
        case TP::INT64:
            t.add_int64_data(v);
            break;
        case TP::UINT64:
        case TP::UINT32:
            t.add_uint64_data(static_cast<std::uint64_t>(v));
            break;
        default:
            t.add_int32_data(static_cast<std::int32_t>(v));
            break;
        }
    }
    return t;
}

} // namespace post
