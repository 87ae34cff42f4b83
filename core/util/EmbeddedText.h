#pragma once

#include <span>
#include <string_view>

namespace post {

// A text file compiled into the library (see cmake/EmbedTextFiles.cmake).
struct EmbeddedText {
    std::string_view name; // file name without extension
    std::string_view text;
};

// resources/clusters/*.json, sorted by name. Generated at build time.
std::span<const EmbeddedText> embeddedClusterPresets();
// python/post_torch/aten_of_onnx.json (the ONNX op -> aten operator table). Generated.
std::span<const EmbeddedText> embeddedTorchTables();

} // namespace post
