#include "core/io/json/JsonInput.h"

#include "core/util/FilePrefix.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

namespace post {
namespace {

using nlohmann::json;

std::string shortNumber(double value)
{
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string describe(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return value.get<bool>() ? "true" : "false";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string: {
        std::string text = value.get<std::string>();
        if (text.size() > 40)
            text = text.substr(0, 37) + "...";
        return "the string \"" + text + "\"";
    }
    default:
        return "the number " + value.dump();
    }
}

// nlohmann's messages start "[json.exception.parse_error.101] parse error at line 1,
// column 5: "; we compute the position ourselves, so keep only the explanation.
std::string explanation(const std::string& what)
{
    std::string text = what;
    if (auto bracket = text.find("] "); text.starts_with("[json.exception.") && bracket != std::string::npos)
        text = text.substr(bracket + 2);
    if (text.starts_with("parse error")) {
        if (auto column = text.find("column "); column != std::string::npos)
            if (auto colon = text.find(": ", column); colon != std::string::npos)
                text = text.substr(colon + 2);
    }
    if (text.starts_with("number overflow"))
        text += " (too large for a double)";
    return text;
}

// Builds the document from SAX events so that errors keep their byte position (the
// DOM parser drops it for number overflow) and repeated keys are caught, not merged.
class DocumentBuilder final : public nlohmann::json_sax<json> {
public:
    json root;
    std::size_t errorPosition = 0;
    int errorId = 0;
    std::string errorToken;
    std::string errorMessage;
    std::string duplicatePath;
    std::string duplicateKey;
    // Streaming (parseStreaming): elements of the root array, or of the root object's member
    // `streamKey`, go to `onElement` when closed and are dropped.
    std::function<void(json&, std::size_t)> onElement;
    std::string streamKey;

    bool null() override { return scalar(nullptr); }
    bool boolean(bool v) override { return scalar(v); }
    bool number_integer(number_integer_t v) override { return scalar(v); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
    bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
    bool string(string_t& v) override { return scalar(std::move(v)); }
    bool binary(binary_t&) override { return false; } // JSON text has no binary values

    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(string_t& k) override
    {
        if (stack_.back()->contains(k)) {
            duplicatePath = currentPath();
            duplicateKey = k;
            return false;
        }
        pendingKey_ = std::move(k);
        return true;
    }

    bool parse_error(std::size_t position, const std::string& lastToken, const nlohmann::detail::exception& ex) override
    {
        errorPosition = position;
        errorId = ex.id;
        errorToken = lastToken;
        errorMessage = explanation(ex.what());
        return false;
    }

    std::string currentPath() const
    {
        std::string path;
        for (const std::string& part : parts_)
            path += (path.empty() || part.starts_with('[')) ? part : "." + part;
        return path;
    }

private:
    // A scalar element of the streamed array goes to onElement at once, with its index.
    bool scalar(json value)
    {
        if (streamedParent()) {
            onElement(value, streamed_++);
            return true;
        }
        return insert(std::move(value)) != nullptr;
    }

    json* insert(json value)
    {
        if (stack_.empty()) {
            root = std::move(value);
            return &root;
        }
        json& parent = *stack_.back();
        if (parent.is_array()) {
            // Safe: no pointer on the stack points into `parent`'s elements.
            parent.push_back(std::move(value));
            return &parent.back();
        }
        json& slot = parent[pendingKey_];
        slot = std::move(value);
        return &slot;
    }

    bool open(json container)
    {
        std::string part;
        if (!stack_.empty())
            part = stack_.back()->is_array()
                ? "[" + std::to_string(streamedParent() ? streamed_ : stack_.back()->size()) + "]"
                : pendingKey_;
        stack_.push_back(insert(std::move(container)));
        parts_.push_back(std::move(part));
        return true;
    }

    bool close()
    {
        stack_.pop_back();
        parts_.pop_back();
        if (streamedParent()) { // an element of the streamed array is complete
            json& array = *stack_.back();
            onElement(array.back(), streamed_++);
            array.erase(array.size() - 1);
        }
        return true;
    }

    // Whether the innermost open container is the streamed array.
    bool streamedParent() const
    {
        if (!onElement || stack_.empty() || !stack_.back()->is_array())
            return false;
        return (stack_.size() == 1 && root.is_array())
            || (stack_.size() == 2 && root.is_object() && parts_[1] == streamKey);
    }

    std::vector<json*> stack_;
    std::vector<std::string> parts_;
    std::string pendingKey_;
    std::size_t streamed_ = 0; // elements of the streamed array so far
};

std::string lineAndColumn(std::string_view text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    std::size_t line = 1;
    std::size_t lineStart = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - lineStart + 1);
}

} // namespace

JsonInput::JsonInput(std::string source)
    : source_(std::move(source))
{
}

void JsonInput::checkNesting(std::string_view text, const std::string& source)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i; // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxNesting)
                throw InputError(source, lineAndColumn(text, i),
                                 "arrays and objects nested more than " + std::to_string(kMaxNesting) + " levels deep");
        } else if (c == ']' || c == '}') {
            --depth; // unbalanced brackets are the parser's to report
        }
    }
}

std::string JsonInput::readFile(const std::string& path, std::size_t maxBytes)
{
    const FilePrefix head = readFilePrefix(path);
    const bool gzip = head.bytes.size() >= 2 && head.bytes[0] == '\x1f' && head.bytes[1] == '\x8b';
    if (!gzip) {
        std::string_view text = head.bytes;
        if (text.starts_with("\xEF\xBB\xBF"))
            text.remove_prefix(3);
        const auto first = text.find_first_not_of(" \t\r\n");
        if (first != std::string_view::npos && text[first] != '{')
            throw InputError(path, "line 1", "not a JSON document of Post Studio (it does not start with '{')");
        if (head.size > maxBytes)
            throw InputError(path, {},
                             "file is too large (" + std::to_string(head.size) + " bytes; at most "
                                 + std::to_string(maxBytes >> 20) + " MiB for this format)");
    }
    return readFileText(path, maxBytes);
}

json JsonInput::parse(std::string_view text) const { return parseStreaming(text, {}, {}); }

json JsonInput::parseStreaming(std::string_view text, const std::string& arrayKey,
                               const std::function<void(json& element, std::size_t index)>& element) const
{
    checkNesting(text, source_);
    DocumentBuilder builder;
    builder.onElement = element;
    builder.streamKey = arrayKey;
    if (json::sax_parse(text.begin(), text.end(), &builder))
        return std::move(builder.root);
    if (!builder.duplicateKey.empty())
        fail(builder.duplicatePath, "the key \"" + builder.duplicateKey + "\" appears twice");
    if (builder.errorMessage.empty())
        throw InputError(source_, {}, "not valid JSON");
    // The reported position counts the characters read, so the last one read (the culprit)
    // is at offset position - 1. A number overflow (error 406) is found after the whole
    // number was read: point at its first character instead.
    std::size_t offset = builder.errorPosition > 0 ? builder.errorPosition - 1 : 0;
    const std::string& token = builder.errorToken;
    constexpr int kNumberOverflow = 406;
    if (builder.errorId == kNumberOverflow && !token.empty() && builder.errorPosition >= token.size()
        && text.substr(builder.errorPosition - token.size(), token.size()) == token)
        offset = builder.errorPosition - token.size();
    throw InputError(source_, lineAndColumn(text, offset), builder.errorMessage);
}

void JsonInput::requireFormat(const json& root, std::string_view family, int version) const
{
    const std::string expected = std::string(family) + "/" + std::to_string(version);
    object(root, {});
    const json* tag = find(root, "format");
    if (!tag)
        fail("format", "missing; a " + std::string(family) + " file starts with {\"format\": \"" + expected + "\", ...}");
    const std::string value = string(*tag, "format");
    if (value == expected)
        return;
    if (value.starts_with(std::string(family) + "/"))
        fail("format", "unsupported version \"" + value + "\" (this build reads \"" + expected + "\")");
    fail("format", "expected \"" + expected + "\", got \"" + value + "\"");
}

void JsonInput::fail(const std::string& path, const std::string& message) const
{
    throw InputError(source_, path.empty() ? std::string("top level") : "field " + path, message);
}

const json& JsonInput::object(const json& value, const std::string& path) const
{
    if (!value.is_object())
        fail(path, "must be an object {...}, got " + describe(value));
    return value;
}

const json& JsonInput::array(const json& value, const std::string& path) const
{
    if (!value.is_array())
        fail(path, "must be an array [...], got " + describe(value));
    return value;
}

const json* JsonInput::find(const json& object, std::string_view key) const
{
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

const json& JsonInput::require(const json& object, std::string_view key, const std::string& path) const
{
    const json* value = find(object, key);
    if (!value)
        fail(member(path, key), "missing (required)");
    return *value;
}

void JsonInput::rejectUnknownKeys(const json& object, std::initializer_list<std::string_view> known,
                                  const std::string& path) const
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string& key = it.key();
        if (key.starts_with("x-"))
            continue;
        bool ok = false;
        for (std::string_view k : known)
            ok = ok || k == key;
        if (ok)
            continue;
        std::string list;
        for (std::string_view k : known)
            list += (list.empty() ? "" : ", ") + std::string(k);
        fail(member(path, key), "unknown field (expected one of: " + list + "; prefix extensions with \"x-\")");
    }
}

std::string JsonInput::string(const json& value, const std::string& path) const
{
    if (!value.is_string())
        fail(path, "must be a string, got " + describe(value));
    return value.get<std::string>();
}

std::string JsonInput::stringOr(const json& object, std::string_view key, const std::string& path,
                                std::string_view fallback) const
{
    const json* value = object.is_object() ? find(object, key) : nullptr;
    return value ? string(*value, member(path, key)) : std::string(fallback);
}

std::string JsonInput::nonEmptyString(const json& value, const std::string& path) const
{
    std::string text = string(value, path);
    if (text.empty())
        fail(path, "must not be empty");
    return text;
}

bool JsonInput::boolean(const json& value, const std::string& path) const
{
    if (!value.is_boolean())
        fail(path, "must be true or false, got " + describe(value));
    return value.get<bool>();
}

double JsonInput::number(const json& value, const std::string& path) const
{
    if (!value.is_number()) {
        std::string hint;
        if (value.is_string()) {
            std::string text = value.get<std::string>();
            std::transform(text.begin(), text.end(), text.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            std::string_view word = text;
            if (!word.empty() && (word.front() == '-' || word.front() == '+'))
                word.remove_prefix(1);
            if (word == "nan" || word == "inf" || word == "infinity")
                hint = " (JSON has no NaN or infinity: give a finite number)";
            else if (text.find_first_of("0123456789") != std::string::npos)
                hint = " (write numbers without quotes)";
        }
        fail(path, "must be a number, got " + describe(value) + hint);
    }
    const double d = value.get<double>();
    if (!std::isfinite(d))
        fail(path, "must be a finite number, got " + shortNumber(d));
    return d;
}

double JsonInput::nonNegative(const json& value, const std::string& path) const
{
    const double d = number(value, path);
    if (d < 0.0)
        fail(path, "must be >= 0, got " + shortNumber(d));
    return d;
}

double JsonInput::positive(const json& value, const std::string& path) const
{
    const double d = number(value, path);
    if (d <= 0.0)
        fail(path, "must be > 0, got " + shortNumber(d));
    return d;
}

double JsonInput::within(const json& value, const std::string& path, double low, double high) const
{
    const double d = number(value, path);
    if (d < low || d > high)
        fail(path, "must be between " + shortNumber(low) + " and " + shortNumber(high) + ", got " + shortNumber(d));
    return d;
}

std::string JsonInput::member(const std::string& path, std::string_view key)
{
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string JsonInput::element(const std::string& path, std::size_t index)
{
    return path + "[" + std::to_string(index) + "]";
}

} // namespace post
