#pragma once

#include "core/io/tf/TfGraphDef.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace post {

// Readers of a TensorFlow node's attributes. Malformed values throw
// InputError(source, "line N", ...) at the offending field.
class TfAttrs {
public:
    using Shape = std::vector<std::int64_t>;

    TfAttrs(const TfNode& node, const std::string& source)
        : node_(node)
        , source_(source)
    {
    }

    // TensorShapeProto: dims, -1 for an unknown size; nullopt for `unknown_rank: true`.
    std::optional<Shape> shape(const TextProtoField& shapeMessage) const;
    // `attr { key: K value { shape { ... } } }`; nullopt when absent or of unknown rank.
    std::optional<Shape> shapeAttr(const char* key) const;
    // `_output_shapes`: one shape per output (nullopt: unknown rank).
    std::vector<std::optional<Shape>> outputShapes() const;
    // `list { i: ... }`, or `i: N` as a one-element list.
    std::optional<std::vector<std::int64_t>> ints(const char* key) const;
    std::optional<std::string> string(const char* key) const;
    std::optional<bool> boolean(const char* key) const;
    // Bytes per element of the DataType in `type: DT_...` (4 when absent or unknown).
    int elementBytes(const char* key) const;
    // A Const's integer values (int_val, int64_val or tensor_content of DT_INT32/DT_INT64);
    // nullopt for a splat of more than kMaxConstValues elements.
    std::optional<std::vector<std::int64_t>> constInts() const;
    static constexpr std::int64_t kMaxConstValues = 1 << 16;
    // The first of these attrs that is a `type`, in bytes per element; 4 when none is.
    int firstElementBytes(std::initializer_list<const char*> keys) const;
    // A Const's shape (value.tensor.tensor_shape).
    std::optional<Shape> constShape() const;

    static int dtypeBytes(const std::string& dtype);

private:
    [[noreturn]] void fail(const TextProtoField& at, const std::string& message) const;
    std::int64_t integer(const TextProtoField& f) const;

    const TfNode& node_;
    const std::string& source_;
};

} // namespace post
