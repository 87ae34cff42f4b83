#include "core/util/SourceName.h"

#include <filesystem>

namespace post {

std::string graphNameFromSource(const std::string& source)
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

} // namespace post
