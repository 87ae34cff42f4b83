#include "core/io/tf/PbtxtExport.h"

#include "core/io/native/PlacementExport.h"
#include "core/io/tf/TfCpuOnlyOps.h"
#include "core/io/tf/TfGraphDef.h"
#include "core/io/tf/TfShapedImport.h"
#include "core/util/SourceName.h"

#include <algorithm>
#include <stdexcept>

namespace post {
namespace {

struct Edit {
    std::size_t begin = 0;
    std::size_t end = 0; // begin == end: an insertion
    std::string replacement;
};

std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

// The blanks before `at` on its line, or nullopt when other text precedes it there.
std::optional<std::string_view> indentBefore(std::string_view text, std::size_t at)
{
    std::size_t start = at;
    while (start > 0 && text[start - 1] != '\n')
        --start;
    const std::string_view lead = text.substr(start, at - start);
    if (lead.find_first_not_of(" \t") != std::string_view::npos)
        return std::nullopt;
    return lead;
}

} // namespace

std::string pbtxtWithPlacement(std::string_view text, const std::string& source, const Graph& graph,
                               const Cluster& cluster, const Placement& placement)
{
    if (static_cast<int>(placement.size()) != graph.opCount())
        throw std::invalid_argument("placement size does not match the graph");
    const TfGraphDef def = parseTfGraphDef(text, source);
    const TfShapedImport imported = importTfGraphDef(def, source, graphNameFromSource(source));

    const DeviceId cpu = cpuPinDevice(cluster);
    std::vector<Edit> edits;
    for (std::size_t i = 0; i < def.nodes.size(); ++i) {
        const int anchor = imported.anchorOfNode[i];
        DeviceId d = kNoDevice;
        if (cpu != kNoDevice && tfOpHasNoGpuKernel(def.nodes[i].op)) {
            d = cpu; // also checkpoint and queue nodes outside the step: TensorFlow has no GPU kernel
        } else if (anchor >= 0) {
            const std::string& opName = imported.shaped.ops[static_cast<std::size_t>(anchor)].name;
            const auto id = graph.find(opName);
            if (!id)
                throw std::invalid_argument("op '" + opName + "' of the pbtxt is not in the graph");
            d = placement[static_cast<std::size_t>(*id)];
            if (d < 0 || d >= cluster.deviceCount())
                throw std::invalid_argument("op '" + opName + "' has no device");
        } else {
            continue;
        }
        const std::string value = quoted(tensorFlowDeviceName(cluster, d));
        const TextProtoField& node = *def.nodes[i].field;
        if (const TextProtoField* device = node.find("device")) {
            edits.push_back({device->valueBegin, device->valueEnd, value});
            continue;
        }
        const TextProtoField* op = node.find("op");
        std::string inserted;
        if (const auto indent = indentBefore(text, op->begin)) {
            inserted += '\n';
            inserted.append(*indent);
        } else {
            inserted += ' ';
        }
        inserted.append("device: ").append(value);
        edits.push_back({op->end, op->end, std::move(inserted)});
    }
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    std::string out;
    out.reserve(text.size() + edits.size() * 48);
    std::size_t pos = 0;
    for (const Edit& e : edits) {
        out.append(text.substr(pos, e.begin - pos));
        out += e.replacement;
        pos = e.end;
    }
    out.append(text.substr(pos));
    return out;
}

} // namespace post
