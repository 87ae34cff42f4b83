#pragma once

#include "core/io/tf/TextProtoField.h"

#include <optional>
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

// A GraphDef in text format (also the `graph_def` of a MetaGraphDef, and of the first
// meta graph of a TF2 SavedModel's saved_model.pbtxt). Top-level fields other than `node`
// are ignored but for the names of the library's functions, which the nodes' calls
// (StatefulPartitionedCall, ...) run and which are not expanded.
struct TfGraphDef {
    TextProtoField root; // owns the text tree the nodes point into; don't copy
    std::vector<TfNode> nodes;
    std::vector<std::string> libraryFunctions; // `library { function { signature { name } } }`
    int metaGraphCount = 0;                    // a SavedModel's `meta_graphs` (the first is read)

    TfGraphDef() = default;
    TfGraphDef(TfGraphDef&&) = default;
    TfGraphDef& operator=(TfGraphDef&&) = default;
    TfGraphDef(const TfGraphDef&) = delete;
    TfGraphDef& operator=(const TfGraphDef&) = delete;
};

// The library function a call node runs: the `f` attribute's name of a
// (Stateful)PartitionedCall, or nullopt.
std::optional<std::string> tfCalledFunction(const TfNode& node);

// Throws InputError(source, "line N", ...) for bad syntax, a node without a name or op,
// duplicate node names, repeated name/op/device fields, or no nodes at all.
TfGraphDef parseTfGraphDef(std::string_view text, const std::string& source);

} // namespace post
