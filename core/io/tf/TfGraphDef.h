#pragma once

#include "core/io/tf/TextProtoField.h"

#include <string>
#include <string_view>
#include <vector>

namespace post {

// One `node { ... }` of a TensorFlow GraphDef, pointing into the parsed text.
struct TfNode {
    std::string name;
    std::string op;
    std::string device;                        // as written; empty when absent
    std::vector<const TextProtoField*> inputs; // `input` fields in order
    const TextProtoField* field = nullptr;     // the whole node message
    int line = 0;

    // The `value` message of `attr { key: K value { ... } }`, or nullptr.
    const TextProtoField* attr(std::string_view key) const;
};

// A GraphDef in text format (also the `graph_def` of a MetaGraphDef). Top-level fields
// other than `node` (versions, library) are ignored.
struct TfGraphDef {
    TextProtoField root; // owns the text tree the nodes point into; don't copy
    std::vector<TfNode> nodes;

    TfGraphDef() = default;
    TfGraphDef(TfGraphDef&&) = default;
    TfGraphDef& operator=(TfGraphDef&&) = default;
    TfGraphDef(const TfGraphDef&) = delete;
    TfGraphDef& operator=(const TfGraphDef&) = delete;
};

// Throws InputError(source, "line N", ...) for bad syntax, a node without a name or op,
// duplicate node names, repeated name/op/device fields, or no nodes at all.
TfGraphDef parseTfGraphDef(std::string_view text, const std::string& source);

} // namespace post
