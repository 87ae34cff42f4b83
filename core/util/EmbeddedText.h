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

} // namespace post
