#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace post {

// Reads Post Studio's JSON formats with messages that point at the problem: syntax
// errors give "line L, column C", field errors give a path such as ops[3].time_us.gpu.
// Every problem is thrown as InputError naming `source`. For the readers' .cpp files
// (this header pulls in only nlohmann's forward declarations).
class JsonInput {
public:
    explicit JsonInput(std::string source);

    const std::string& source() const { return source_; }

    // Parses a whole document. Rejects syntax errors, numbers that overflow a double
    // (1e999), keys repeated within one object and nesting deeper than kMaxNesting.
    nlohmann::json parse(std::string_view text) const;
    // The same, handing each element of one big array to `element` as soon as it is read and
    // dropping it (memory stays that of one element): the root array, or the root object's
    // member `arrayKey`. Returns the rest of the document (that array left empty). For
    // Kineto traces (--costs): a 200 MB trace would be 1.9 GB as one document. `element` may
    // move parts out of the element it is given (it is dropped after). Every element is handed
    // over, scalars too, with its index in the array.
    nlohmann::json parseStreaming(std::string_view text, const std::string& arrayKey,
                                  const std::function<void(nlohmann::json& element, std::size_t index)>& element) const;

    // No format of ours nests more than a few levels: deeper documents are refused up front
    // rather than building (and later walking) a huge tree. Throws InputError at the first
    // bracket past the limit. For readers that parse JSON by other means (MSR).
    static constexpr int kMaxNesting = 256;
    static void checkNesting(std::string_view text, const std::string& source);

    // The text of a JSON file of ours, judged before it is read whole: a file over `maxBytes`
    // (its format's limit, docs/formats.md) or whose first non-blank byte is not '{' (junk, a
    // binary) is refused by its size and first 64 KiB, not after reading up to 2 GiB of it.
    // A gzip file is left to readFileText, which bounds what it decompresses by `maxBytes`.
    static std::string readFile(const std::string& path, std::size_t maxBytes);
    // The limits of readFile: clusters, placements, sidecars and sessions.
    static constexpr std::size_t kMaxClusterBytes = std::size_t(16) << 20;
    static constexpr std::size_t kMaxPlacementBytes = std::size_t(64) << 20; // 200k ops with modules: 20 MB
    static constexpr std::size_t kMaxSessionBytes = std::size_t(160) << 20;  // a graph's 160 MB

    // Checks the top-level "format" tag is "<family>/<version>" (e.g. "post-graph/1").
    void requireFormat(const nlohmann::json& root, std::string_view family, int version) const;

    [[noreturn]] void fail(const std::string& path, const std::string& message) const;

    const nlohmann::json& object(const nlohmann::json& value, const std::string& path) const;
    const nlohmann::json& array(const nlohmann::json& value, const std::string& path) const;
    // The member `key` of an object, or nullptr when absent.
    const nlohmann::json* find(const nlohmann::json& object, std::string_view key) const;
    const nlohmann::json& require(const nlohmann::json& object, std::string_view key, const std::string& path) const;
    // Keys other than `known` are typos or newer-version fields: refuse them rather than
    // silently drop data. Keys starting with "x-" are free for comments and extensions.
    void rejectUnknownKeys(const nlohmann::json& object, std::initializer_list<std::string_view> known,
                           const std::string& path) const;

    std::string string(const nlohmann::json& value, const std::string& path) const;
    // The member `key` of `object` when it is a string, `fallback` when absent (or `object` is
    // not an object); any other value fails naming path.key. For optional fields such as a
    // trace event's "ph" and "cat", where nlohmann's value(key, fallback) throws a bare
    // type_error that names neither the file nor the field.
    std::string stringOr(const nlohmann::json& object, std::string_view key, const std::string& path,
                         std::string_view fallback) const;
    std::string nonEmptyString(const nlohmann::json& value, const std::string& path) const;
    bool boolean(const nlohmann::json& value, const std::string& path) const;
    double number(const nlohmann::json& value, const std::string& path) const; // finite
    double nonNegative(const nlohmann::json& value, const std::string& path) const;
    double positive(const nlohmann::json& value, const std::string& path) const;
    // A number in [low, high]; the message names both ends.
    double within(const nlohmann::json& value, const std::string& path, double low, double high) const;

    static std::string member(const std::string& path, std::string_view key);
    static std::string element(const std::string& path, std::size_t index);

private:
    std::string source_;
};

} // namespace post
