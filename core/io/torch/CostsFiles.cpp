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
