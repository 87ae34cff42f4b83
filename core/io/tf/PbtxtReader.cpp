#include "core/io/tf/PbtxtReader.h"

#include "core/cost/CostModel.h"
#include "core/cost/OpForOpGraph.h"
#include "core/io/TrainingStepBuilder.h"
#include "core/io/tf/TfDeviceName.h"
#include "core/io/tf/TfGraphDef.h"
#include "core/io/tf/TfShapedImport.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace post {

namespace {

// What the import leaves out: meta graphs after the first, library function bodies.
std::vector<std::string> tfImportWarnings(const TfGraphDef& def, const TfShapedImport& imported)
{
    std::vector<std::string> warnings;
    if (def.metaGraphCount > 1)
        warnings.push_back("the SavedModel has " + std::to_string(def.metaGraphCount)
                           + " meta graphs; only the first is read");
    if (def.libraryFunctions.empty())
        return warnings;
    const std::unordered_set<std::string_view> functions(def.libraryFunctions.begin(), def.libraryFunctions.end());
    int calls = 0;
    std::string example;
    for (std::size_t i = 0; i < def.nodes.size(); ++i) {
        if (imported.opOfNode[i] < 0)
            continue;
        const TfNode& node = def.nodes[i];
        const auto f = tfCalledFunction(node);
        if (f || functions.contains(node.op)) {
            if (calls++ == 0)
                example = "'" + node.name + "' (" + node.op + (f ? " of " + *f : std::string()) + ", line "
                    + std::to_string(node.line) + ")";
        }
    }
    std::string names;
    for (std::size_t k = 0; k < def.libraryFunctions.size() && k < 3; ++k)
        names += (k ? ", " : "") + def.libraryFunctions[k];
    if (def.libraryFunctions.size() > 3)
        names += ", ...";
    std::string text = std::to_string(def.libraryFunctions.size()) + " library function(s) (" + names
        + ") are not expanded";
    if (calls > 0)
        text += ": " + std::to_string(calls) + " op(s) calling them, e.g. " + example
            + ", are opaque ops whose cost is the element-wise fallback, not the function body's";
    warnings.push_back(text);
    return warnings;
}

} // namespace

ImportedGraph parsePbtxtGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    const TfGraphDef def = parseTfGraphDef(text, source);
    const TfShapedImport imported = importTfGraphDef(def, source, graphNameFromSource(source), options);
    const ShapedGraph& shaped = imported.shaped;
    if (shaped.ops.empty())
        throw InputError(source, {},
                         "no node of the GraphDef is an op of a training step (only variables, constants, "
                         "placeholders and initialisers)");

    ImportedGraph result;
    result.source = source;
    CostReport report;
    const FusionChoice fusion = fusionChoice(
        options, true, "TensorFlow graph: fused as TensorFlow's graph optimisers fuse element-wise chains");
    result.graph = imported.isTrainingGraph ? buildOpForOpGraph(shaped, {}, &report)
                                            : buildTrainingGraph(shaped, importCostOptions(options, fusion), &report);
    if (!imported.isTrainingGraph) {
        const bool devicesGiven = std::any_of(shaped.ops.begin(), shaped.ops.end(),
                                              [](const ShapedOp& o) { return !o.device.empty(); });
        result.fused = fusion.fused && !devicesGiven;
        result.fusionWhy = fusion.fused && devicesGiven
            ? "the file gives devices: costed op for op, as TensorFlow runs a placed GraphDef"
            : fusion.why;
    }
    result.unknownOpTypes = std::move(report.unknownTypes);
    result.warnings = tfImportWarnings(def, imported);
    if (!imported.isTrainingGraph)
        result.forwardFlops = report.totalForwardFlops;
    result.unresolvedDims = std::move(report.unresolved);
    result.unshapedTensors = std::move(report.unshapedTensors);

    // Normalised devices of the ShapedOps; a bad device string is an error at its node.
    std::vector<std::string> devices(shaped.ops.size());
    bool any = false;
    std::unordered_map<std::string_view, std::size_t> opIndex;
    for (std::size_t i = 0; i < shaped.ops.size(); ++i) {
        const ShapedOp& op = shaped.ops[i];
        opIndex.emplace(op.name, i);
        if (op.device.empty())
            continue;
        const auto normal = normalizeTfDeviceName(op.device);
        if (!normal)
            throw InputError(source, op.location,
                             "node '" + op.name + "': device '" + op.device
                                 + "' names no device type and index (expected e.g. /device:GPU:0 or /gpu:0)");
        devices[i] = *normal;
        any = true;
    }
    if (!any)
        return result;
    // Backward ops ("conv1/grad") take their forward op's device.
    const Graph& g = result.graph;
    result.givenDevices.resize(static_cast<std::size_t>(g.opCount()));
    result.givenDeviceLocations.resize(static_cast<std::size_t>(g.opCount()));
    const std::string_view suffix = TrainingStepBuilder::kGradSuffix;
    for (OpId id = 0; id < g.opCount(); ++id) {
        std::string_view name = g.op(id).name;
        auto it = opIndex.find(name);
        if (it == opIndex.end() && name.ends_with(suffix))
            it = opIndex.find(name.substr(0, name.size() - suffix.size()));
        if (it == opIndex.end())
            continue;
        result.givenDevices[static_cast<std::size_t>(id)] = devices[it->second];
        result.givenDeviceLocations[static_cast<std::size_t>(id)] = shaped.ops[it->second].location;
    }
    return result;
}

} // namespace post
