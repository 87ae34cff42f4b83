#include "core/io/tf/TfAttrs.h"

#include "core/util/InputError.h"

#include <charconv>
#include <cstring>

namespace post {

void TfAttrs::fail(const TextProtoField& at, const std::string& message) const
{
    throw InputError(source_, "line " + std::to_string(at.line), "node '" + node_.name + "': " + message);
}

std::int64_t TfAttrs::integer(const TextProtoField& f) const
{
    if (f.isMessage)
        fail(f, "field '" + f.name + "' must be an integer, found a message");
    std::int64_t v = 0;
    const char* first = f.value.data();
    const char* last = first + f.value.size();
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || end != last)
        fail(f, "field '" + f.name + "' must be an integer, got '" + f.value + "'");
    return v;
}

std::optional<TfAttrs::Shape> TfAttrs::shape(const TextProtoField& shapeMessage) const
{
    if (!shapeMessage.isMessage)
        fail(shapeMessage, "a shape must be a message: shape { dim { size: N } ... }");
    Shape dims;
    for (const TextProtoField& f : shapeMessage.fields) {
        if (f.name == "unknown_rank" && f.value == "true")
            return std::nullopt;
        if (f.name != "dim")
            continue;
        if (!f.isMessage)
            fail(f, "bad shape: 'dim' must be a message: dim { size: N }");
        const TextProtoField* size = f.find("size");
        const std::int64_t n = size ? integer(*size) : 0; // proto3 default
        if (n < -1)
            fail(size ? *size : f,
                 "bad shape: dimension size " + std::to_string(n) + " (sizes are >= 0, or -1 for unknown)");
        dims.push_back(n);
    }
    return dims;
}

std::optional<TfAttrs::Shape> TfAttrs::shapeAttr(const char* key) const
{
    const TextProtoField* v = node_.attr(key);
    const TextProtoField* s = v ? v->find("shape") : nullptr;
    if (!s)
        return std::nullopt;
    return shape(*s);
}

std::vector<std::optional<TfAttrs::Shape>> TfAttrs::outputShapes() const
{
    std::vector<std::optional<Shape>> shapes;
    const TextProtoField* v = node_.attr("_output_shapes");
    const TextProtoField* list = v ? v->find("list") : nullptr;
    if (!list)
        return shapes;
    for (const TextProtoField& f : list->fields)
        if (f.name == "shape")
            shapes.push_back(shape(f));
    return shapes;
}

std::optional<std::vector<std::int64_t>> TfAttrs::ints(const char* key) const
{
    const TextProtoField* v = node_.attr(key);
    if (!v)
        return std::nullopt;
    if (const TextProtoField* one = v->find("i"))
        return std::vector<std::int64_t>{integer(*one)};
    const TextProtoField* list = v->find("list");
    if (!list)
        return std::nullopt;
    std::vector<std::int64_t> values;
    for (const TextProtoField& f : list->fields)
        if (f.name == "i")
            values.push_back(integer(f));
    return values;
}

std::optional<std::string> TfAttrs::string(const char* key) const
{
    const TextProtoField* v = node_.attr(key);
    const TextProtoField* s = v ? v->find("s") : nullptr;
    if (!s || s->isMessage)
        return std::nullopt;
    return s->value;
}

std::optional<bool> TfAttrs::boolean(const char* key) const
{
    const TextProtoField* v = node_.attr(key);
    const TextProtoField* b = v ? v->find("b") : nullptr;
    if (!b || b->isMessage)
        return std::nullopt;
    return b->value == "true" || b->value == "True" || b->value == "t" || b->value == "1";
}

int TfAttrs::dtypeBytes(const std::string& dtype)
{
    std::string t = dtype;
    if (t.ends_with("_REF"))
        t.resize(t.size() - 4);
    if (t == "DT_DOUBLE" || t == "DT_INT64" || t == "DT_UINT64" || t == "DT_COMPLEX64")
        return 8;
    if (t == "DT_COMPLEX128")
        return 16;
    if (t == "DT_HALF" || t == "DT_BFLOAT16" || t == "DT_INT16" || t == "DT_UINT16" || t == "DT_QINT16"
        || t == "DT_QUINT16")
        return 2;
    if (t == "DT_INT8" || t == "DT_UINT8" || t == "DT_BOOL" || t == "DT_QINT8" || t == "DT_QUINT8")
        return 1;
    return 4; // DT_FLOAT, DT_INT32, DT_UINT32, DT_QINT32 and anything unknown
}

int TfAttrs::firstElementBytes(std::initializer_list<const char*> keys) const
{
    for (const char* key : keys) {
        const TextProtoField* v = node_.attr(key);
        const TextProtoField* t = v ? v->find("type") : nullptr;
        if (t && !t->isMessage)
            return dtypeBytes(t->value);
    }
    return 4;
}

int TfAttrs::elementBytes(const char* key) const
{
    const TextProtoField* v = node_.attr(key);
    const TextProtoField* t = v ? v->find("type") : nullptr;
    return t && !t->isMessage ? dtypeBytes(t->value) : 4;
}

std::optional<TfAttrs::Shape> TfAttrs::constShape() const
{
    const TextProtoField* v = node_.attr("value");
    const TextProtoField* tensor = v ? v->find("tensor") : nullptr;
    if (!tensor)
        return std::nullopt;
    const TextProtoField* s = tensor->find("tensor_shape");
    if (!s)
        return Shape{}; // no tensor_shape: a scalar
    return shape(*s);
}

std::optional<std::vector<std::int64_t>> TfAttrs::constInts() const
{
    const TextProtoField* v = node_.attr("value");
    const TextProtoField* tensor = v ? v->find("tensor") : nullptr;
    if (!tensor)
        return std::nullopt;
    const TextProtoField* dtype = tensor->find("dtype");
    const bool is64 = dtype && dtype->value == "DT_INT64";
    if (!dtype || (dtype->value != "DT_INT32" && !is64))
        return std::nullopt;
    std::vector<std::int64_t> values;
    for (const TextProtoField& f : tensor->fields)
        if (f.name == "int_val" || f.name == "int64_val")
            values.push_back(integer(f));
    if (const TextProtoField* content = tensor->find("tensor_content")) {
        const std::size_t width = is64 ? 8 : 4;
        if (content->value.size() % width != 0)
            fail(*content,
                 "tensor_content of " + std::to_string(content->value.size()) + " bytes is not a whole number of "
                     + dtype->value + " values");
        for (std::size_t i = 0; i < content->value.size(); i += width) {
            // Little-endian, as TensorFlow writes it.
            std::uint64_t raw = 0;
            for (std::size_t b = 0; b < width; ++b)
                raw |= static_cast<std::uint64_t>(static_cast<unsigned char>(content->value[i + b])) << (8 * b);
            values.push_back(is64 ? static_cast<std::int64_t>(raw)
                                  : static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
        }
    }
    // A scalar or splat written once stands for every element; shape arithmetic needs only
    // small vectors, so a bigger splat stays unknown instead of filling memory.
    if (values.size() == 1)
        if (const auto s = constShape(); s && s->size() == 1 && (*s)[0] > 1) {
            if ((*s)[0] > kMaxConstValues)
                return std::nullopt;
            values.assign(static_cast<std::size_t>((*s)[0]), values[0]);
        }
    return values;
}

} // namespace post
