#include "core/io/torch/CostsFiles.h"

#include "core/cluster/DeviceTypes.h"
#include "core/graph/GraphError.h"
#include "core/io/torch/RecordFunctionLink.h"
#include "core/util/InputError.h"

namespace post {
namespace {

// The measured times `path` gave (applyMeasuredCosts marked them with it) as times of devices of
// `type` on `before`: the kind times stay the estimates, the type's devices take the measurement.
Graph asTypeTimes(const Graph& before, const Graph& measured, const std::string& type, const std::string& path)
{
    std::vector<MeasuredTypeTime> times;
    for (OpId id = 0; id < measured.opCount(); ++id) {
        const Op& op = measured.op(id);
        if (op.measuredBy != path)
            continue;
        for (DeviceKind kind : {DeviceKind::Gpu, DeviceKind::Cpu})
            if (op.measured(kind) && !before.op(id).measured(kind)) {
                times.push_back({id, op.time(kind)});
                break;
            }
    }
    try {
        return withMeasuredTypeTimes(before, type, times, path);
    } catch (const GraphError& e) {
        throw InputError(path, "--costs " + type + "=", e.what());
    }
}

// "2x3x64x64"; "?" for a symbolic dimension.
std::string shapeText(const std::vector<std::int64_t>& dims)
{
    std::string text;
    for (std::int64_t d : dims) {
        if (!text.empty())
            text += 'x';
        text += d < 0 ? std::string(1, '?') : std::to_string(d);
    }
    return text.empty() ? "a scalar" : text;
}

// A post_torch profile records the shapes it was made at (x-inputs): times of another batch or
// image size are not this graph's, so they are refused (noted under --costs-partial). Inputs it
// cannot pair with the graph's (another count) are left to the op-by-op match.
void checkProfiledInputs(const ImportedGraph& imported, const MeasuredCostsReport& report, const std::string& path,
                         bool partial, std::vector<std::string>& notes)
{
    std::vector<std::vector<std::int64_t>> profiled;
    for (const auto& shape : report.profiledInputs)
        if (shape)
            profiled.push_back(*shape);
    if (profiled.empty() || profiled.size() != imported.inputShapes.size())
        return;
    for (std::size_t i = 0; i < profiled.size(); ++i) {
        const std::vector<std::int64_t>& graph = imported.inputShapes[i];
        bool same = graph.size() == profiled[i].size();
        for (std::size_t k = 0; same && k < graph.size(); ++k)
            same = graph[k] < 0 || graph[k] == profiled[i][k];
        if (same)
            continue;
        const std::string what = "profiled with input " + std::to_string(i) + " of " + shapeText(profiled[i])
            + ", but the graph's is " + shapeText(graph)
            + " (--batch, --dim, --input-shape): its times are of another size";
        if (!partial)
            throw InputError(path, "x-inputs",
                             what
                                 + "; profile at the graph's shapes, give the graph the profiled ones, or take the "
                                   "times anyway with --costs-partial");
        notes.push_back(path + ": " + what + ", taken as they are (--costs-partial)");
        return;
    }
}

} // namespace

CostsFile parseCostsFile(std::string_view value)
{
    const std::size_t eq = value.find('=');
    if (eq != std::string_view::npos && eq > 0 && eq + 1 < value.size()) {
        const std::string type(value.substr(0, eq));
        if (type.find('/') == std::string::npos && deviceTypeProblem(type).empty())
            return {type, std::string(value.substr(eq + 1))};
    }
    return {{}, std::string(value)};
}

std::vector<std::string> applyCostsFiles(ImportedGraph& imported, std::span<const CostsFile> files,
                                         const MeasuredCostsOptions& options)
{
    std::vector<std::string> notes;
    for (const CostsFile& costs : files) {
        std::string what, gpu;
        Graph measured;
        if (imported.format == GraphFormat::TorchEt) { // linked by record-function ids (docs/pytorch.md)
            RecordFunctionLinkReport report;
            measured = applyKinetoToExecutionTrace(imported, costs.path, &report, options);
            what = describeRecordFunctionLink(report);
            gpu = report.gpuName;
        } else {
            MeasuredCostsReport report;
            measured = applyMeasuredCosts(imported.graph, costs.path, &report, options);
            what = describeMeasuredCosts(report);
            gpu = report.gpuName;
            checkProfiledInputs(imported, report, costs.path, options.partial, notes);
        }
        if (costs.type.empty() && !gpu.empty())
            imported.measuredGpu = gpu;
        notes.push_back(costs.path + ": " + what
                        + (costs.type.empty() ? "" : " (as the times of device type " + costs.type + ")"));
        imported.graph = costs.type.empty() ? std::move(measured)
                                            : asTypeTimes(imported.graph, measured, costs.type, costs.path);
    }
    return notes;
}

} // namespace post
