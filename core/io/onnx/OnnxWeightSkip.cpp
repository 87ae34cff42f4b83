// Reading an ONNX model without its weights' bytes (OnnxWeightSkip.h): the protobuf wire format
// of ModelProto -> GraphProto -> TensorProto walked by hand, the rest of the file copied as it is.
#include "core/io/onnx/OnnxWeightSkip.h"

#include "core/io/onnx/OnnxTensorData.h"
#include "core/util/FileText.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace post {
namespace {

// Field numbers (onnx.proto) and wire types (protobuf encoding).
constexpr std::uint32_t kModelGraph = 7, kGraphInitializer = 5;
constexpr std::uint32_t kTensorDims = 1, kTensorDataType = 2, kTensorRawData = 9, kTensorExternalData = 13,
                        kTensorDataLocation = 14;
constexpr std::uint32_t kVarint = 0, kFixed64 = 1, kDelimited = 2, kFixed32 = 5;
// Weights of at most this many bytes are read (biases, and every scale an op reads as a value).
constexpr std::uint64_t kLeftUnreadAbove = 64 * 1024;

bool isTypedDataField(std::uint32_t field)
{
    return field == 4 || field == 5 || field == 6 || field == 7 || field == 10 || field == 11;
}

void appendVarint(std::string& out, std::uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// The file through a window of 64 KiB: bytes are read where the walk looks, and skipped
// payloads are never read.
class Walk {
public:
    explicit Walk(const RegularInput& file)
        : file_(file)
    {
    }

    std::uint64_t size() const { return file_.size(); }

    bool varint(std::uint64_t& at, std::uint64_t end, std::uint64_t& value)
    {
        value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            std::uint8_t b = 0;
            if (at >= end || !byte(at++, b))
                return false;
            value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if ((b & 0x80) == 0)
                return true;
        }
        return false;
    }

    // Past one field's payload (its tag read already); false for groups and what overruns `end`.
    bool skip(std::uint64_t& at, std::uint64_t end, std::uint32_t wire)
    {
        std::uint64_t length = 0;
        switch (wire) {
        case kVarint:
            return varint(at, end, length);
        case kFixed64:
            length = 8;
            break;
        case kFixed32:
            length = 4;
            break;
        case kDelimited:
            if (!varint(at, end, length))
                return false;
            break;
        default:
            return false; // groups: not in onnx.proto
        }
        if (length > end - at)
            return false;
        at += length;
        return true;
    }

    // Appends the file's bytes [from, to) to `out`: from the window where it holds them (a
    // field whose tag was just read mostly lies there), else read.
    bool copy(std::uint64_t from, std::uint64_t to, std::string& out)
    {
        if (from >= start_ && to <= start_ + window_.size()) {
            out.append(window_, static_cast<std::size_t>(from - start_), static_cast<std::size_t>(to - from));
            return true;
        }
        const std::size_t before = out.size();
        out.resize(before + static_cast<std::size_t>(to - from));
        return file_.readAt(from, static_cast<std::size_t>(to - from), out.data() + before);
    }

private:
    bool byte(std::uint64_t at, std::uint8_t& b)
    {
        if (at < start_ || at >= start_ + window_.size()) {
            const std::uint64_t n = std::min<std::uint64_t>(kWindow, file_.size() - std::min(at, file_.size()));
            window_.resize(static_cast<std::size_t>(n));
            start_ = at;
            if (n == 0 || !file_.readAt(at, window_.size(), window_.data())) {
                window_.clear();
                return false;
            }
        }
        b = static_cast<std::uint8_t>(window_[static_cast<std::size_t>(at - start_)]);
        return true;
    }

    static constexpr std::uint64_t kWindow = 64 * 1024;
    const RegularInput& file_;
    std::string window_;
    std::uint64_t start_ = 0;
};

// The tensor in [at, end) without its raw bytes and marked external, when it is a large
// floating-point weight whose bytes fit its dims; "" to keep it as it is; nullopt when it does
// not read.
std::optional<std::string> tensorWithoutBytes(Walk& walk, std::uint64_t at, std::uint64_t end)
{
    std::string rest;
    std::vector<std::uint64_t> dims;
    std::uint64_t type = 0, rawBytes = 0;
    bool raw = false, unusual = false;
    while (at < end) {
        const std::uint64_t start = at;
        std::uint64_t tag = 0;
        if (!walk.varint(at, end, tag) || tag > std::numeric_limits<std::uint32_t>::max())
            return std::nullopt;
        const auto field = static_cast<std::uint32_t>(tag >> 3), wire = static_cast<std::uint32_t>(tag & 7);
        if (field == kTensorRawData && wire == kDelimited) {
            if (!walk.varint(at, end, rawBytes) || rawBytes > end - at)
                return std::nullopt;
            unusual = unusual || raw; // twice: protobuf would keep the last
            raw = true;
            at += rawBytes;
            continue;
        }
        if (field == kTensorDims && wire == kVarint) {
            std::uint64_t d = 0;
            if (!walk.varint(at, end, d))
                return std::nullopt;
            dims.push_back(d);
        } else if (field == kTensorDims && wire == kDelimited) {
            std::uint64_t length = 0;
            if (!walk.varint(at, end, length) || length > end - at)
                return std::nullopt;
            for (const std::uint64_t packedEnd = at + length; at < packedEnd;) {
                std::uint64_t d = 0;
                if (!walk.varint(at, packedEnd, d))
                    return std::nullopt;
                dims.push_back(d);
            }
        } else if (field == kTensorDataType && wire == kVarint) {
            if (!walk.varint(at, end, type))
                return std::nullopt;
        } else {
            unusual = unusual || isTypedDataField(field) || field == kTensorExternalData || field == kTensorDataLocation;
            if (!walk.skip(at, end, wire))
                return std::nullopt;
        }
        if (!walk.copy(start, at, rest))
            return std::nullopt;
    }
    if (!raw || unusual || type > std::numeric_limits<int>::max() || !isOnnxFloatType(static_cast<int>(type))
        || rawBytes <= kLeftUnreadAbove)
        return std::string();
    // The bytes must be what the dims and the type need (a negative dim reads as a huge one).
    std::uint64_t need = static_cast<std::uint64_t>(onnxElementBytes(static_cast<int>(type)));
    for (const std::uint64_t d : dims) {
        if (d != 0 && need > std::numeric_limits<std::uint64_t>::max() / d)
            return std::string();
        need *= d;
    }
    if (need != rawBytes)
        return std::string();
    appendVarint(rest, (kTensorDataLocation << 3) | kVarint);
    appendVarint(rest, onnx::TensorProto::EXTERNAL);
    return rest;
}

// The fields of the message in [at, end) into `out`, each as it is but for those
// `replace(field, payload start, payload end, out)` writes itself (returning false for "not
// readable", and leaving `out` as it was to keep the field as it is).
template <typename Replace>
bool copyFields(Walk& walk, std::uint64_t at, std::uint64_t end, std::uint32_t delimitedField, std::string& out,
                Replace replace)
{
    while (at < end) {
        const std::uint64_t start = at;
        std::uint64_t tag = 0;
        if (!walk.varint(at, end, tag) || tag > std::numeric_limits<std::uint32_t>::max())
            return false;
        const auto field = static_cast<std::uint32_t>(tag >> 3), wire = static_cast<std::uint32_t>(tag & 7);
        if (field == delimitedField && wire == kDelimited) {
            std::uint64_t length = 0;
            if (!walk.varint(at, end, length) || length > end - at)
                return false;
            const std::optional<std::string> payload = replace(at, at + length);
            if (!payload)
                return false;
            if (!payload->empty()) {
                appendVarint(out, tag);
                appendVarint(out, payload->size());
                out += *payload;
                at += length;
                continue;
            }
            at += length;
        } else if (!walk.skip(at, end, wire)) {
            return false;
        }
        if (!walk.copy(start, at, out))
            return false;
    }
    return true;
}

} // namespace

std::optional<std::string> onnxWithoutWeightBytes(const RegularInput& file)
{
    Walk walk(file);
    std::string model;
    const bool read = copyFields(walk, 0, walk.size(), kModelGraph, model, [&](std::uint64_t from, std::uint64_t to) {
        std::string graph;
        if (!copyFields(walk, from, to, kGraphInitializer, graph,
                        [&](std::uint64_t a, std::uint64_t b) { return tensorWithoutBytes(walk, a, b); }))
            return std::optional<std::string>();
        return std::optional<std::string>(std::move(graph));
    });
    if (!read)
        return std::nullopt;
    return model;
}

} // namespace post
