#include "app/cli/SimulateCommand.h"

#include "app/cli/CliSupport.h"
#include "app/cli/JsonFormats.h"
#include "core/cost/OpTime.h"
#include "core/graph/GraphSizes.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/PlacementFile.h"
#include "core/sim/ChromeTraceWriter.h"
#include "core/sim/CollectiveTime.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>

namespace post::cli {
namespace {

struct SimulateOptions : GraphClusterArgs {
    std::string placement;
    std::string allOn;
    bool given = false;
    std::string trace;
    std::string opsCsv;
    bool json = false;
    bool force = false;
};

nlohmann::json resultJson(const ImportedGraph& imported, const Cluster& c, const SimResult& r, const LowerBound& lb,
                          Dispatch dispatch, const std::string& fingerprint)
{
    const Graph& g = imported.graph;
    nlohmann::json j;
    j["format"] = kSimulateJsonFormat;
    j["graph"] = g.name();
    j["cluster"] = c.name();
    j["dispatch"] = dispatchName(dispatch);
    j["precision"] = toString(c.precision());
    j["placement_fingerprint"] = fingerprint;
    j["step_time_ms"] = r.stepTimeUs / 1000.0;
    j["feasible"] = r.feasible;
    j["lower_bound_ms"] = lb.valueUs() / 1000.0;
    j["lower_bound_critical_path_ms"] = lb.criticalPathUs / 1000.0;
    j["lower_bound_work_ms"] = lb.workUs / 1000.0;
    j["lower_bound_fork_join_ms"] = lb.forkJoinUs / 1000.0;
    j["lower_bound_ancestry_ms"] = lb.ancestryUs / 1000.0;
    j["lower_bound_device_windows_ms"] = lb.windowsUs / 1000.0;
    j["lower_bound_memory_split_ms"] = lb.memorySplitUs / 1000.0;
    j["lower_bound_path_loads_ms"] = lb.pathLoadsUs / 1000.0;
    j["lower_bound_blocks_ms"] = lb.blocksUs / 1000.0;
    j["lower_bound_ready_order_ms"] = lb.readyOrderUs / 1000.0;
    j["lower_bound_source"] = lb.source();
    if (const double gap = r.feasible ? certifiedGap(r.stepTimeUs, lb.valueUs()) : NAN; !std::isnan(gap))
        j["certified_gap"] = gap;
    addHostDispatchJson(imported, &c, j);
    auto& devices = j["devices"] = nlohmann::json::array();
    j["memory_known"] = hasMemorySizes(g); // false: every peak below is 0 for want of sizes
    auto& peaks = j["peak_memory_bytes"] = nlohmann::json::array();
    auto& capacity = j["memory_capacity_bytes"] = nlohmann::json::array();
    auto& busy = j["busy_ms"] = nlohmann::json::array();
    for (DeviceId d = 0; d < c.deviceCount(); ++d) {
        devices.push_back(c.device(d).name);
        peaks.push_back(r.peakMemoryBytes[static_cast<size_t>(d)]);
        const double cap = c.device(d).memoryBytes;
        capacity.push_back(std::isfinite(cap) ? nlohmann::json(cap) : nlohmann::json(nullptr));
        busy.push_back(r.deviceBusyUs[static_cast<size_t>(d)] / 1000.0);
    }
    auto& links = j["links"] = nlohmann::json::array();
    const int n = c.deviceCount();
    for (DeviceId a = 0; a < n; ++a)
        for (DeviceId b = 0; b < n; ++b) {
            const size_t k = static_cast<size_t>(a * n + b);
            if (a != b && r.linkBytes[k] > 0.0)
                links.push_back({{"from", c.device(a).name},
                                 {"to", c.device(b).name},
                                 {"bytes", r.linkBytes[k]},
                                 {"busy_ms", r.linkBusyUs[k] / 1000.0}});
        }
    return j;
}

std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char ch : text)
        quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
}

// One line per op: where it ran and how long it took there (the simulator's own durations:
// opTimeUs, or a collective's ring model), with the cost that gave the time.
std::string opsCsv(const Graph& g, const Cluster& c, const Placement& placement)
{
    std::string out = "name,type,device,time_us,flops,memory_bytes,measured,fused_into\n";
    char number[64];
    const CollectiveLinks collectives(c);
    for (OpId id = 0; id < g.opCount(); ++id) {
        const Op& op = g.op(id);
        const DeviceId device = placement[static_cast<size_t>(id)];
        const Device& d = c.device(device);
        out += csvField(op.name) + "," + csvField(op.type) + "," + csvField(d.name);
        for (double v : {collectives.opTimeUs(op, device), op.flops, op.memoryBytes}) {
            std::snprintf(number, sizeof number, ",%.17g", v);
            out += number;
        }
        out += std::string(",") + (op.measured(d.kind) ? "1" : "0") + "," + csvField(op.fusedInto) + "\n";
    }
    return out;
}

// `placement`: the placement's fingerprint, and the start its file records, if any.
void printResult(const Graph& g, const Cluster& c, const SimResult& r, const LowerBound& lb, Dispatch dispatch,
                 const std::string& placement)
{
    std::cout << "step time    " << formatMs(r.stepTimeUs) << (r.feasible ? "" : "  (INFEASIBLE: out of memory)")
              << (dispatch == Dispatch::ReadyOrder ? "" : "  (critical-path dispatch)") << "\nlower bound  "
              << formatMs(r.feasible ? boundBelowStep(lb.valueUs(), r.stepTimeUs) : lb.valueUs()) << "  (critical path "
              << formatMs(lb.criticalPathUs) << ", work " << formatMs(lb.workUs) << ", fork-join "
              << formatMs(lb.forkJoinUs) << ", ancestry " << formatMs(lb.ancestryUs) << ", device windows "
              << formatMs(lb.windowsUs) << ", memory split " << formatMs(lb.memorySplitUs) << ", path loads "
              << formatMs(lb.pathLoadsUs) << ", blocks " << formatMs(lb.blocksUs)
              << (lb.readyOrderUs > 0.0 ? ", ready order " + formatMs(lb.readyOrderUs) : std::string()) << ")\n";
    if (const double gap = r.feasible ? certifiedGap(r.stepTimeUs, lb.valueUs()) : NAN; !std::isnan(gap))
        std::cout << "certified    within " << formatGap(gap) << " of the optimum (step / lower bound - 1)\n";
    std::cout << "placement    " << placement << "\n\n";
    std::printf("%-22s %12s %8s %14s %14s\n", "device", "busy", "util", "peak memory", "capacity");
    const bool sized = hasMemorySizes(g); // no bytes anywhere: every peak is 0 B, which says nothing
    for (DeviceId d = 0; d < c.deviceCount(); ++d) {
        const double busy = r.deviceBusyUs[static_cast<size_t>(d)];
        const double peak = r.peakMemoryBytes[static_cast<size_t>(d)];
        const double cap = c.device(d).memoryBytes;
        std::printf("%-22s %12s %7.1f%% %14s %14s%s\n", c.device(d).name.c_str(), formatMs(busy).c_str(),
                    r.stepTimeUs > 0 ? 100.0 * busy / r.stepTimeUs : 0.0, sized ? formatBytes(peak).c_str() : "unknown",
                    std::isfinite(cap) ? formatBytes(cap).c_str() : "unlimited", peak > cap ? "  OVER" : "");
    }
    if (!sized)
        std::printf("peak memory is unknown: the graph gives no tensor or parameter sizes, so no placement is "
                    "checked against memory and transfers carry no bytes\n");
    const int n = c.deviceCount();
    bool header = false;
    for (DeviceId a = 0; a < n; ++a)
        for (DeviceId b = 0; b < n; ++b) {
            const size_t k = static_cast<size_t>(a * n + b);
            if (a == b || r.linkBytes[k] <= 0.0)
                continue;
            if (!header) {
                std::printf("\n%-40s %14s %12s\n", "link", "bytes", "busy");
                header = true;
            }
            const std::string name = c.device(a).name + " -> " + c.device(b).name;
            std::printf("%-40s %14s %12s\n", name.c_str(), formatBytes(r.linkBytes[k]).c_str(),
                        formatMs(r.linkBusyUs[k]).c_str());
        }
}

// The simulator's options for --placement FILE: --dispatch when given, else the rule FILE was
// placed under (docs/simulator.md, "Dispatch"); a note on stderr where the two are not the same,
// or where the file's rule is taken.
SimOptions simOptionsFor(const SimulateOptions& o, const std::optional<PlacementProvenance>& made)
{
    const std::optional<Dispatch> recorded = made ? recordedDispatch(*made) : std::nullopt;
    const std::optional<Dispatch> given = dispatchFromName(o.dispatch);
    if (recorded) {
        const std::string placedUnder = o.placement + " was placed under " + std::string(dispatchName(*recorded))
            + " dispatch"
            + (made->stepTimeUs ? " (its step_time_us, " + formatMs(*made->stepTimeUs) + ", was timed under that rule)"
                                : std::string());
        if (given && *given != *recorded)
            std::cerr << "post-cli: note: " << placedUnder << "; timing it under --dispatch " << dispatchName(*given)
                      << " as asked, so the step time may differ from the file's\n";
        else if (!given && *recorded != Dispatch::ReadyOrder)
            std::cerr << "post-cli: note: " << placedUnder << "; timing it under the same rule (--dispatch ready "
                      << "times it in ready order)\n";
    }
    return simOptionsArg(o, recorded);
}

int runSimulate(const SimulateOptions& o)
{
    if (int(!o.placement.empty()) + int(!o.allOn.empty()) + int(o.given) != 1)
        throw UsageError{"give exactly one of --placement FILE, --all-on DEVICE or --given-placement"};
    checkOutputArgs({{"--trace", o.trace}, {"--ops-csv", o.opsCsv}}, {o.graph, o.cluster, o.placement}, o.force);
    const ImportedGraph imported = loadImportedGraphArg(o.graph, o.format, o.batch, o.shapes);
    const Graph& g = imported.graph;
    // The precision mode is chosen once the --placement file says which one it was timed under.
    Cluster c = loadCluster(o.cluster);
    Placement placement;
    std::optional<PlacementProvenance> made; // what the --placement file records of how it was made
    if (!o.allOn.empty()) {
        placement.assign(static_cast<size_t>(g.opCount()), deviceArg(c, o.allOn));
        applyCpuPinning(g, c, placement); // every op that may run there: those without a GPU kernel stay on the CPU
    } else if (o.given) {
        if (!imported.hasGivenPlacement())
            throw InputError(graphSourceName(o.graph), {},
                             "--given-placement: the graph gives no placement (no node has a device field)");
        placement = givenPlacement(imported, c);
    } else {
        PlacementWithProvenance file = readPlacementFileWithProvenance(o.placement, g, c);
        placement = std::move(file.placement);
        made = std::move(file.made);
        noteOtherCluster(o.placement, file.clusterName, c, o.cluster);
    }
    setPrecisionArg(c, o.cluster, o.precision, &imported,
                    made ? RecordedPrecision{o.placement, recordedPrecision(*made), made->stepTimeUs}
                         : RecordedPrecision{});
    noteDeviceTypes(imported, c);
    if (auto problem = placementProblem(g, c, placement))
        throw InputError(o.placement.empty() ? graphSourceName(o.graph) : o.placement, "placement", *problem);

    SimOptions options = simOptionsFor(o, made);
    Simulator sim(g, c, options);
    const SimResult& r = sim.run(placement, !o.trace.empty());
    const LowerBound lb = lowerBound(g, c, options);
    noteHostBound(imported, c, r.stepTimeUs);
    if (!o.trace.empty())
        writeFileAtomically(o.trace, chromeTraceJson(g, c, r), o.force);
    if (!o.opsCsv.empty())
        writeFileAtomically(o.opsCsv, opsCsv(g, c, placement), o.force);
    const std::string fingerprint = placementFingerprint(g, c, placement);
    if (o.json) {
        std::cout << resultJson(imported, c, r, lb, options.dispatch, fingerprint).dump(2) << "\n";
    } else {
        std::string line = fingerprint;
        if (made && made->start) {
            const PlacementStart& s = *made->start;
            line += "  (searched from " + (s.file.empty() ? std::string("a placement") : s.file)
                + (s.stepTimeUs ? ", " + formatMs(*s.stepTimeUs) : std::string()) + ", " + s.fingerprint + ")";
        }
        printResult(g, c, r, lb, options.dispatch, line);
    }
    return kExitOk;
}

} // namespace

void addSimulateCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<SimulateOptions>();
    CLI::App* cmd = app.add_subcommand("simulate", "Simulate one training step of a placement");
    addGraphClusterOptions(*cmd, *opts);
    CLI::Option* dispatch = cmd->get_option("--dispatch");
    dispatch->description(dispatch->get_description()
                          + ". Without it, a --placement file is timed under the rule it was placed under (its "
                            "\"dispatch\", as `place --dispatch` writes it)");
    CLI::Option* precision = cmd->get_option("--precision");
    precision->description(precision->get_description()
                           + ". Without it, a --placement file is timed in the mode it records (its \"precision\", as "
                             "`place --out` writes it)");
    cmd->add_option("--placement", opts->placement, "post-placement/1 file");
    cmd->add_option("--all-on", opts->allOn, "Place every op on this device, e.g. /device:GPU:0");
    cmd->add_flag("--given-placement", opts->given,
                  "Simulate the placement the graph file gives (TensorFlow .pbtxt device fields)");
    cmd->add_option("--trace", opts->trace, "Write the simulated step as Chrome trace-event JSON (opens in Perfetto)");
    cmd->add_option("--ops-csv", opts->opsCsv,
                    "Write one CSV line per op: name, type, device, time_us (as simulated there), flops, "
                    "memory_bytes, measured, fused_into");
    cmd->add_flag("--json", opts->json, "Print one JSON object");
    addForceOption(*cmd, opts->force);
    cmd->callback([opts, &exitCode] { exitCode = runSimulate(*opts); });
}

} // namespace post::cli
