#include "core/util/SourceName.h"

#include "core/util/Utf8.h"

#include <filesystem>

namespace post {

namespace {

std::string nameFromSource(const std::string& source)
{
    if (source.empty())
        return "graph";
    if (source == "<stdin>") // post-cli's name for standard input
        return "stdin";
    const std::filesystem::path path(source);
    std::string stem = path.stem().string();
    if (stem == "graph") {
        const std::string parent = path.parent_path().filename().string();
        if (!parent.empty() && parent != "." && parent != "..")
            return parent;
    }
    return stem.empty() ? std::string("graph") : stem;
}

} // namespace

// A file name need not be UTF-8; the graph name written into JSON must be.
std::string graphNameFromSource(const std::string& source) { return escapeInvalidUtf8(nameFromSource(source)); }

} // namespace post
