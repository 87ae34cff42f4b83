#pragma once

#include "core/io/tf/TextProtoField.h"

#include <string>
#include <string_view>

namespace post {

// Parses protobuf text format (what TensorFlow writes for a GraphDef .pbtxt) without a
// schema: fields `name: scalar`, `name { ... }` / `name: < ... >`, repeated lists
// `name: [a, b]` (expanded into one field per item), `,`/`;` separators, `#` comments,
// string literals with C escapes (adjacent literals concatenated), `[ext.name]` field
// names. Returns the root message. Throws InputError(source, "line N", ...) for bad syntax,
// an unterminated string or brace (naming the line that opened it) or nesting deeper than 100.
TextProtoField parseTextProto(std::string_view text, const std::string& source);

} // namespace post
