#include "core/session/SessionFile.h"

#include "core/io/json/JsonInput.h"
#include "core/io/json/JsonOutput.h"
#include "core/io/native/ClusterFile.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/native/PlacementFile.h"
#include "core/run/PlacerRegistry.h"
#include "core/run/RunLog.h"
#include "core/util/AtomicFile.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace post {
namespace {

using nlohmann::json;

constexpr std::string_view kFamily = "post-session";
constexpr int kVersion = 1;
// Seeds are written as JSON numbers: keep them exact in a double.
constexpr double kMaxSeed = 9007199254740992.0; // 2^53

constexpr SessionRunState kStates[] = {SessionRunState::None, SessionRunState::Running, SessionRunState::Paused,
                                       SessionRunState::Stopped, SessionRunState::Done};
constexpr UpdateKind kKinds[] = {UpdateKind::Ppo, UpdateKind::CrossEntropy, UpdateKind::Reinforce};

// A whole number within [lo, hi].
double wholeNumber(const JsonInput& in, const json& value, const std::string& path, double lo, double hi)
{
    const double v = in.number(value, path);
    if (v != std::floor(v) || v < lo || v > hi)
        in.fail(path,
                "must be a whole number from " + std::to_string(static_cast<long long>(lo)) + " to "
                    + std::to_string(static_cast<long long>(hi)) + ", got " + value.dump());
    return v;
}

// Runs `read` on an embedded document; its errors are re-thrown against the session file
// with the embedded document's field prefixed (ops[3].name -> graph.ops[3].name).
template <class Read> auto embedded(const std::string& source, const std::string& field, Read read)
{
    try {
        return read();
    } catch (const InputError& e) {
        const std::string& loc = e.location();
        std::string location = "field " + field;
        if (loc.starts_with("field "))
            location += "." + loc.substr(6);
        else if (!loc.empty() && loc != "top level")
            location += " (" + loc + ")";
        throw InputError(source, location, e.message());
    }
}

// An embedded document's text, indented to sit as a field's value.
std::string nested(std::string text)
{
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    for (char c : text) {
        out += c;
        if (c == '\n')
            out += "  ";
    }
    return out;
}

// The graph's post-graph/1 text as embedded in a session, kept for the last graph written.
// A run's autosaves (ui/session/SessionAutosave, every 20 s) write the same immutable graph
// again and again; serialising a 107,704-op graph through nlohmann's DOM takes millions of
// small allocations on a background thread, which held the allocator's locks long enough
// to stall the GUI thread for 40-100 ms (docs/performance.md, "Event-loop gaps"). The
// cache holds the text (77 MB at 107k ops) and a weak reference: a graph that died is
// never matched, even by a new one at its address.
std::shared_ptr<const std::string> embeddedGraphText(const std::shared_ptr<const Graph>& graph)
{
    static std::mutex mutex;
    static std::weak_ptr<const Graph> cachedGraph;
    static std::shared_ptr<const std::string> cachedText;
    {
        const std::lock_guard lock(mutex);
        if (cachedGraph.lock() == graph)
            return cachedText;
    }
    auto text = std::make_shared<const std::string>(nested(nativeGraphJson(*graph)));
    const std::lock_guard lock(mutex);
    cachedGraph = graph;
    cachedText = text;
    return text;
}

SessionLearner readLearner(const JsonInput& in, const json& value)
{
    const std::string path = "learner";
    in.object(value, path);
    in.rejectUnknownKeys(value, {"algorithm", "samples", "seed", "seconds"}, path);
    SessionLearner learner;
    const std::string algoPath = JsonInput::member(path, "algorithm");
    learner.algorithm = in.nonEmptyString(in.require(value, "algorithm", path), algoPath);
    if (!makePlacer(learner.algorithm))
        in.fail(algoPath, "unknown algorithm \"" + learner.algorithm + "\" (see post-cli list)");
    learner.samples = static_cast<int>(
        wholeNumber(in, in.require(value, "samples", path), JsonInput::member(path, "samples"), 1, 2147483647.0));
    learner.seed = static_cast<std::uint64_t>(
        wholeNumber(in, in.require(value, "seed", path), JsonInput::member(path, "seed"), 0, kMaxSeed));
    if (const json* seconds = in.find(value, "seconds"))
        learner.seconds = in.nonNegative(*seconds, JsonInput::member(path, "seconds"));
    return learner;
}

// Optional non-negative time; absent means NaN (unknown).
double optionalTime(const JsonInput& in, const json& object, std::string_view key, const std::string& path)
{
    const json* v = in.find(object, key);
    return v ? in.nonNegative(*v, JsonInput::member(path, key)) : std::numeric_limits<double>::quiet_NaN();
}

SessionRun readRun(const JsonInput& in, const json& value)
{
    const std::string path = "run";
    in.object(value, path);
    in.rejectUnknownKeys(value, {"state", "lower_bound_us", "single_gpu_us"}, path);
    SessionRun run;
    const std::string statePath = JsonInput::member(path, "state");
    const std::string state = in.string(in.require(value, "state", path), statePath);
    bool found = false;
    for (SessionRunState s : kStates)
        if (state == toString(s)) {
            run.state = s;
            found = true;
        }
    if (!found)
        in.fail(statePath, "unknown run state \"" + state + "\" (expected none, running, paused, stopped or done)");
    run.lowerBoundUs = optionalTime(in, value, "lower_bound_us", path);
    run.singleDeviceUs = optionalTime(in, value, "single_gpu_us", path);
    return run;
}

std::vector<SampleEvent> readSamples(const JsonInput& in, const json& value)
{
    in.array(value, "samples");
    std::vector<SampleEvent> samples;
    samples.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i) {
        const std::string path = JsonInput::element("samples", i);
        const json& row = in.array(value[i], path);
        if (row.size() != 3)
            in.fail(path, "a sample is [index, step_time_us, feasible], got " + std::to_string(row.size()) + " values");
        SampleEvent s;
        s.index = static_cast<int>(wholeNumber(in, row[0], JsonInput::element(path, 0), 0, 2147483646.0));
        s.stepTimeUs = in.nonNegative(row[1], JsonInput::element(path, 1));
        s.feasible = in.boolean(row[2], JsonInput::element(path, 2));
        if (!samples.empty() && s.index <= samples.back().index)
            in.fail(JsonInput::element(path, 0),
                    "sample indices must increase (previous " + std::to_string(samples.back().index) + ", got "
                        + std::to_string(s.index) + ")");
        samples.push_back(s);
    }
    return samples;
}

std::vector<UpdateEvent> readUpdates(const JsonInput& in, const json& value)
{
    in.array(value, "updates");
    std::vector<UpdateEvent> updates;
    updates.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i) {
        const std::string path = JsonInput::element("updates", i);
        in.object(value[i], path);
        in.rejectUnknownKeys(value[i], {"after_sample", "kind", "elite_threshold_us", "best_us", "entropy"}, path);
        UpdateEvent u;
        u.afterSample = static_cast<int>(wholeNumber(in, in.require(value[i], "after_sample", path),
                                                     JsonInput::member(path, "after_sample"), 0, 2147483647.0));
        if (!updates.empty() && u.afterSample < updates.back().afterSample)
            in.fail(JsonInput::member(path, "after_sample"), "updates must be in sample order");
        const std::string kindPath = JsonInput::member(path, "kind");
        const std::string kind = in.string(in.require(value[i], "kind", path), kindPath);
        bool found = false;
        for (UpdateKind k : kKinds)
            if (kind == toString(k)) {
                u.kind = k;
                found = true;
            }
        if (!found)
            in.fail(kindPath, "unknown update kind \"" + kind + "\" (expected ppo, ce or reinforce)");
        u.eliteThresholdUs = optionalTime(in, value[i], "elite_threshold_us", path);
        u.bestStepTimeUs = optionalTime(in, value[i], "best_us", path);
        if (std::isnan(u.bestStepTimeUs))
            u.bestStepTimeUs = std::numeric_limits<double>::infinity(); // nothing feasible yet
        const std::string entropyPath = JsonInput::member(path, "entropy");
        u.entropy = in.nonNegative(in.require(value[i], "entropy", path), entropyPath);
        if (u.entropy > 1.0)
            in.fail(entropyPath,
                    "must be at most 1 (entropy / log of the device count), got " + value[i]["entropy"].dump());
        updates.push_back(u);
    }
    return updates;
}

// A placement as one device index per op, in op order (the x-studio extras).
Placement readDevices(const JsonInput& in, const json& value, const std::string& path, const Session& session)
{
    in.array(value, path);
    const auto ops = static_cast<size_t>(session.graph->opCount());
    if (value.size() != ops)
        in.fail(path,
                "must give a device for each of the graph's " + std::to_string(ops) + " ops, got "
                    + std::to_string(value.size()));
    const double last = static_cast<double>(session.cluster->deviceCount() - 1);
    Placement placement;
    placement.reserve(ops);
    for (size_t i = 0; i < value.size(); ++i)
        placement.push_back(static_cast<DeviceId>(wholeNumber(in, value[i], JsonInput::element(path, i), 0, last)));
    return placement;
}

std::string devicesText(const Placement& placement)
{
    std::string out = "[";
    for (size_t i = 0; i < placement.size(); ++i) {
        if (i > 0)
            out += ", ";
        out += std::to_string(placement[i]);
    }
    return out + "]";
}

ComparisonRow readComparisonRow(const JsonInput& in, const json& value, const std::string& path, const Session& session)
{
    in.object(value, path);
    in.rejectUnknownKeys(value,
                         {"algorithm", "runs_us", "feasible_runs", "samples", "wall_seconds", "best_us",
                          "best_feasible", "stopped", "best", "solver_bound_us", "solver_bound_op_level",
                          "proven_optimal", "grouped_bound_us", "grouped_bound_groups", "grouped_optimal"},
                         path);
    ComparisonRow row;
    row.algorithm = in.nonEmptyString(in.require(value, "algorithm", path), JsonInput::member(path, "algorithm"));
    const std::string runsPath = JsonInput::member(path, "runs_us");
    const json& runs = in.array(in.require(value, "runs_us", path), runsPath);
    for (size_t i = 0; i < runs.size(); ++i)
        row.bestUs.push_back(in.nonNegative(runs[i], JsonInput::element(runsPath, i)));
    row.feasibleRuns = static_cast<int>(wholeNumber(in, in.require(value, "feasible_runs", path),
                                                    JsonInput::member(path, "feasible_runs"), 0,
                                                    static_cast<double>(row.bestUs.size())));
    row.samples = in.nonNegative(in.require(value, "samples", path), JsonInput::member(path, "samples"));
    row.wallSeconds = in.nonNegative(in.require(value, "wall_seconds", path), JsonInput::member(path, "wall_seconds"));
    row.bestUsOverRuns = in.nonNegative(in.require(value, "best_us", path), JsonInput::member(path, "best_us"));
    row.bestFeasible = in.boolean(in.require(value, "best_feasible", path), JsonInput::member(path, "best_feasible"));
    row.stopped = in.boolean(in.require(value, "stopped", path), JsonInput::member(path, "stopped"));
    if (const json* best = in.find(value, "best"))
        row.best = readDevices(in, *best, JsonInput::member(path, "best"), session);
    // milp's bounds (docs/placers.md): of the graph, or of a grouping only.
    if (const json* b = in.find(value, "solver_bound_us"))
        row.bounds.solverBoundUs = in.nonNegative(*b, JsonInput::member(path, "solver_bound_us"));
    if (const json* b = in.find(value, "solver_bound_op_level"))
        row.bounds.solverBoundOpLevel = in.boolean(*b, JsonInput::member(path, "solver_bound_op_level"));
    if (const json* b = in.find(value, "proven_optimal"))
        row.bounds.provenOptimal = in.boolean(*b, JsonInput::member(path, "proven_optimal"));
    if (const json* b = in.find(value, "grouped_bound_us"))
        row.bounds.groupedBoundUs = in.nonNegative(*b, JsonInput::member(path, "grouped_bound_us"));
    if (const json* b = in.find(value, "grouped_bound_groups"))
        row.bounds.groupedBoundGroups = static_cast<int>(
            wholeNumber(in, *b, JsonInput::member(path, "grouped_bound_groups"), 0, 2147483647.0));
    if (const json* b = in.find(value, "grouped_optimal"))
        row.bounds.groupedOptimal = in.boolean(*b, JsonInput::member(path, "grouped_optimal"));
    return row;
}

SessionStudio readStudio(const JsonInput& in, const json& value, const Session& session)
{
    const std::string path = "x-studio";
    in.object(value, path);
    in.rejectUnknownKeys(
        value, {"document", "classical_us", "classical_placer", "warm_start_us", "best_us", "best", "start", "compare"},
        path);
    SessionStudio studio;
    if (const json* d = in.find(value, "document"))
        studio.document = in.string(*d, JsonInput::member(path, "document"));
    studio.classicalUs = optionalTime(in, value, "classical_us", path);
    if (const json* name = in.find(value, "classical_placer"))
        studio.classicalPlacer = in.string(*name, JsonInput::member(path, "classical_placer"));
    studio.warmStartUs = optionalTime(in, value, "warm_start_us", path);
    studio.bestUs = optionalTime(in, value, "best_us", path);
    if (const json* best = in.find(value, "best"))
        studio.best = readDevices(in, *best, JsonInput::member(path, "best"), session);
    if (const json* start = in.find(value, "start"))
        studio.start = readDevices(in, *start, JsonInput::member(path, "start"), session);
    if (const json* compare = in.find(value, "compare")) {
        const std::string cpath = JsonInput::member(path, "compare");
        in.object(*compare, cpath);
        in.rejectUnknownKeys(*compare, {"lower_bound_us", "samples", "seconds", "seeds", "rows"}, cpath);
        SessionComparison c;
        c.lowerBoundUs = optionalTime(in, *compare, "lower_bound_us", cpath);
        c.samples = static_cast<int>(wholeNumber(in, in.require(*compare, "samples", cpath),
                                                 JsonInput::member(cpath, "samples"), 0, 2147483647.0));
        c.seeds = static_cast<int>(
            wholeNumber(in, in.require(*compare, "seeds", cpath), JsonInput::member(cpath, "seeds"), 0, 2147483647.0));
        if (const json* seconds = in.find(*compare, "seconds"))
            c.seconds = in.nonNegative(*seconds, JsonInput::member(cpath, "seconds"));
        const std::string rowsPath = JsonInput::member(cpath, "rows");
        const json& rows = in.array(in.require(*compare, "rows", cpath), rowsPath);
        for (size_t i = 0; i < rows.size(); ++i)
            c.rows.push_back(readComparisonRow(in, rows[i], JsonInput::element(rowsPath, i), session));
        studio.comparison = std::move(c);
    }
    return studio;
}

std::string numberText(double v) { return JsonOutput::number(v).dump(); }

bool known(double v) { return std::isfinite(v) && v >= 0.0; }

// The x-studio object, or empty when there is nothing to keep.
std::string studioText(const Session& session)
{
    const SessionStudio& st = session.studio;
    std::string out;
    auto field = [&out](const std::string& key, const std::string& value) {
        out += (out.empty() ? "{\n    \"" : ",\n    \"") + key + "\": " + value;
    };
    if (!st.document.empty())
        field("document", json(st.document).dump());
    if (known(st.classicalUs))
        field("classical_us", numberText(st.classicalUs));
    if (!st.classicalPlacer.empty())
        field("classical_placer", json(st.classicalPlacer).dump());
    if (known(st.warmStartUs))
        field("warm_start_us", numberText(st.warmStartUs));
    const auto ops = static_cast<size_t>(session.graph->opCount());
    if (known(st.bestUs))
        field("best_us", numberText(st.bestUs));
    if (st.best.size() == ops && ops > 0)
        field("best", devicesText(st.best));
    if (st.start.size() == ops && ops > 0)
        field("start", devicesText(st.start));
    if (st.comparison) {
        const SessionComparison& c = *st.comparison;
        std::string compare = "{";
        if (known(c.lowerBoundUs))
            compare += "\"lower_bound_us\": " + numberText(c.lowerBoundUs) + ", ";
        compare += "\"samples\": " + std::to_string(c.samples);
        if (c.seconds > 0.0)
            compare += ", \"seconds\": " + numberText(c.seconds);
        compare += ", \"seeds\": " + std::to_string(c.seeds) + ", \"rows\": [";
        for (size_t i = 0; i < c.rows.size(); ++i) {
            const ComparisonRow& r = c.rows[i];
            compare += (i == 0 ? "\n      {" : ",\n      {");
            compare += "\"algorithm\": " + json(r.algorithm).dump() + ", \"runs_us\": [";
            for (size_t k = 0; k < r.bestUs.size(); ++k)
                compare += (k == 0 ? "" : ", ") + numberText(known(r.bestUs[k]) ? r.bestUs[k] : 0.0);
            compare += "], \"feasible_runs\": " + std::to_string(r.feasibleRuns)
                + ", \"samples\": " + numberText(known(r.samples) ? r.samples : 0.0)
                + ", \"wall_seconds\": " + numberText(known(r.wallSeconds) ? r.wallSeconds : 0.0) + ", \"best_us\": "
                + numberText(known(r.bestUsOverRuns) ? r.bestUsOverRuns : 0.0) + ", \"best_feasible\": "
                + (r.bestFeasible ? "true" : "false") + ", \"stopped\": " + (r.stopped ? "true" : "false");
            if (r.best.size() == ops && ops > 0)
                compare += ", \"best\": " + devicesText(r.best);
            if (known(r.bounds.solverBoundUs) && r.bounds.solverBoundUs > 0.0)
                compare += ", \"solver_bound_us\": " + numberText(r.bounds.solverBoundUs)
                    + ", \"solver_bound_op_level\": " + (r.bounds.solverBoundOpLevel ? "true" : "false")
                    + ", \"proven_optimal\": " + (r.bounds.provenOptimal ? "true" : "false");
            if (known(r.bounds.groupedBoundUs) && r.bounds.groupedBoundUs > 0.0)
                compare += ", \"grouped_bound_us\": " + numberText(r.bounds.groupedBoundUs)
                    + ", \"grouped_bound_groups\": " + std::to_string(r.bounds.groupedBoundGroups)
                    + ", \"grouped_optimal\": " + (r.bounds.groupedOptimal ? "true" : "false");
            compare += "}";
        }
        compare += c.rows.empty() ? "]}" : "\n    ]}";
        field("compare", compare);
    }
    return out.empty() ? out : out + "\n  }";
}

} // namespace

std::string_view toString(SessionRunState state)
{
    switch (state) {
    case SessionRunState::None:
        return "none";
    case SessionRunState::Running:
        return "running";
    case SessionRunState::Paused:
        return "paused";
    case SessionRunState::Stopped:
        return "stopped";
    case SessionRunState::Done:
        return "done";
    }
    return "?";
}

Session parseSession(std::string_view text, const std::string& source)
{
    const JsonInput in(source);
    const json root = in.parse(text);
    in.requireFormat(root, kFamily, kVersion);
    in.rejectUnknownKeys(
        root, {"format", "source", "learner", "dispatch", "run", "graph", "cluster", "placement", "samples", "updates"},
        {});
    Session session;
    if (const json* s = in.find(root, "source"))
        session.source = in.string(*s, "source");
    session.learner = readLearner(in, in.require(root, "learner", {}));
    if (const json* dispatch = in.find(root, "dispatch")) {
        const auto rule = dispatchFromName(in.string(*dispatch, "dispatch"));
        if (!rule)
            in.fail("dispatch", "must be \"ready\" or \"critical-path\"");
        session.dispatch = *rule;
    }
    if (const json* run = in.find(root, "run"))
        session.run = readRun(in, *run);

    const json& graph = in.object(in.require(root, "graph", {}), "graph");
    session.graph = embedded(source, "graph",
                             [&] { return std::make_shared<const Graph>(parseNativeGraph(graph.dump(), source)); });
    const json& cluster = in.object(in.require(root, "cluster", {}), "cluster");
    session.cluster = embedded(source, "cluster",
                               [&] { return std::make_shared<const Cluster>(parseCluster(cluster.dump(), source)); });
    if (const json* placement = in.find(root, "placement")) {
        in.object(*placement, "placement");
        session.placement = embedded(source, "placement", [&] {
            return parsePlacement(placement->dump(), source, *session.graph, *session.cluster);
        });
    }
    if (const json* samples = in.find(root, "samples"))
        session.samples = readSamples(in, *samples);
    if (const json* updates = in.find(root, "updates"))
        session.updates = readUpdates(in, *updates);
    if (const json* studio = in.find(root, "x-studio"))
        session.studio = readStudio(in, *studio, session);
    return session;
}

Session readSessionFile(const std::string& path)
{
    return parseSession(JsonInput::readFile(path, JsonInput::kMaxSessionBytes), path);
}

std::string sessionJson(const Session& session)
{
    if (!session.graph || !session.cluster)
        throw std::invalid_argument("sessionJson: a session needs a graph and a cluster");
    std::string out = "{\n  \"format\": \"" + std::string(kFamily) + "/" + std::to_string(kVersion) + "\"";
    if (!session.source.empty())
        out += ",\n  \"source\": " + json(session.source).dump();
    nlohmann::ordered_json learner;
    learner["algorithm"] = session.learner.algorithm;
    learner["samples"] = session.learner.samples;
    learner["seed"] = session.learner.seed;
    if (session.learner.seconds > 0.0) // absent: no time limit (files before it had none)
        learner["seconds"] = JsonOutput::number(session.learner.seconds);
    out += ",\n  \"learner\": " + JsonOutput::inlineText(learner);
    if (session.dispatch != Dispatch::ReadyOrder) // absent: ready order (files before it had none)
        out += ",\n  \"dispatch\": " + json(std::string(dispatchName(session.dispatch))).dump();
    nlohmann::ordered_json run;
    run["state"] = std::string(toString(session.run.state));
    if (known(session.run.lowerBoundUs))
        run["lower_bound_us"] = JsonOutput::number(session.run.lowerBoundUs);
    if (known(session.run.singleDeviceUs))
        run["single_gpu_us"] = JsonOutput::number(session.run.singleDeviceUs);
    out += ",\n  \"run\": " + JsonOutput::inlineText(run);
    // The embedded documents keep their own layout (one op, device or placement per line).
    out += ",\n  \"graph\": ";
    out += *embeddedGraphText(session.graph);
    out += ",\n  \"cluster\": " + nested(clusterJson(*session.cluster));
    if (!session.placement.empty())
        out += ",\n  \"placement\": " + nested(placementJson(*session.graph, *session.cluster, session.placement));
    out += ",\n  \"samples\": [";
    for (size_t i = 0; i < session.samples.size(); ++i) {
        const SampleEvent& s = session.samples[i];
        out += (i == 0 ? "\n    [" : ",\n    [") + std::to_string(s.index) + ", " + numberText(s.stepTimeUs) + ", "
            + (s.feasible ? "true" : "false") + "]";
    }
    out += session.samples.empty() ? "]" : "\n  ]";
    out += ",\n  \"updates\": [";
    for (size_t i = 0; i < session.updates.size(); ++i) {
        const UpdateEvent& u = session.updates[i];
        out += (i == 0 ? "\n    {" : ",\n    {");
        out += "\"after_sample\": " + std::to_string(u.afterSample) + ", \"kind\": \"" + std::string(toString(u.kind))
            + "\"";
        if (known(u.eliteThresholdUs))
            out += ", \"elite_threshold_us\": " + numberText(u.eliteThresholdUs);
        if (known(u.bestStepTimeUs))
            out += ", \"best_us\": " + numberText(u.bestStepTimeUs);
        out += ", \"entropy\": " + numberText(std::isfinite(u.entropy) ? std::clamp(u.entropy, 0.0, 1.0) : 0.0) + "}";
    }
    out += session.updates.empty() ? "]" : "\n  ]";
    if (const std::string studio = studioText(session); !studio.empty())
        out += ",\n  \"x-studio\": " + studio;
    out += "\n}\n";
    return out;
}

void writeSessionFile(const std::string& path, const Session& session)
{
    writeFileAtomically(path, sessionJson(session));
}

bool looksLikeSession(std::string_view text)
{
    // The writer puts the format tag first; allow whitespace and other layouts too.
    const std::string_view head = text.substr(0, 4096);
    return head.find("\"post-session/") != std::string_view::npos
        && head.find_first_not_of(" \t\r\n") != std::string_view::npos && head[head.find_first_not_of(" \t\r\n")] == '{';
}

} // namespace post
