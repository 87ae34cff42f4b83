#include "core/io/native/ClusterPresets.h"

#include "core/io/native/ClusterFile.h"
#include "core/util/EmbeddedText.h"
#include "core/util/InputError.h"

#include <filesystem>

namespace post {

std::vector<std::string> clusterPresetNames()
{
    std::vector<std::string> names;
    for (const EmbeddedText& preset : embeddedClusterPresets())
        names.emplace_back(preset.name);
    return names;
}

std::optional<std::string> clusterPresetJson(const std::string& name)
{
    for (const EmbeddedText& preset : embeddedClusterPresets())
        if (preset.name == name)
            return std::string(preset.text);
    return std::nullopt;
}

Cluster loadCluster(const std::string& nameOrPath)
{
    if (auto text = clusterPresetJson(nameOrPath))
        return parseCluster(*text, "cluster preset " + nameOrPath);
    std::error_code ec;
    if (std::filesystem::exists(nameOrPath, ec))
        return readClusterFile(nameOrPath);
    std::string names;
    for (const std::string& name : clusterPresetNames())
        names += (names.empty() ? "" : ", ") + name;
    throw InputError(nameOrPath, {}, "no such cluster preset or file (presets: " + names + ")");
}

} // namespace post
