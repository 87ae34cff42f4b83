#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// One field of a protobuf text-format message as written (no schema): a scalar or a
// nested message. Byte offsets into the source let a writer splice a new value in while
// keeping every other byte of the file (see PbtxtExport).
struct TextProtoField {
    std::string name;
    int line = 0; // 1-based line of the field name
    bool isMessage = false;
    std::string value;                  // scalar: decoded string literal, or the token as written
    bool quoted = false;                // scalar was a string literal
    std::vector<TextProtoField> fields; // message: its fields in order
    std::size_t begin = 0;              // first byte of the field name
    std::size_t end = 0;                // one past the field's last byte
    std::size_t valueBegin = 0;         // scalar: the value token(s); message: the opening brace
    std::size_t valueEnd = 0;

    // The first field called `fieldName`, or nullptr.
    const TextProtoField* find(std::string_view fieldName) const;
};

} // namespace post
