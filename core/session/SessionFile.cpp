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

SessionLearner readLearner(const JsonInput& in, const json& value)
{
    const std::string path = "learner";
    in.object(value, path);
    in.rejectUnknownKeys(value, {"algorithm", "samples", "seed"}, path);
    SessionLearner learner;
    const std::string algoPath = JsonInput::member(path, "algorithm");
    learner.algorithm = in.nonEmptyString(in.require(value, "algorithm", path), algoPath);
    if (!makePlacer(learner.algorithm))
        in.fail(algoPath, "unknown algorithm \"" + learner.algorithm + "\" (see post-cli list)");
    learner.samples = static_cast<int>(
        wholeNumber(in, in.require(value, "samples", path), JsonInput::member(path, "samples"), 1, 2147483647.0));
    learner.seed = static_cast<std::uint64_t>(
        wholeNumber(in, in.require(value, "seed", path), JsonInput::member(path, "seed"), 0, kMaxSeed));
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

std::string numberText(double v) { return JsonOutput::number(v).dump(); }

bool known(double v) { return std::isfinite(v) && v >= 0.0; }

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
        root, {"format", "source", "learner", "run", "graph", "cluster", "placement", "samples", "updates"}, {});
    Session session;
    if (const json* s = in.find(root, "source"))
        session.source = in.string(*s, "source");
    session.learner = readLearner(in, in.require(root, "learner", {}));
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
    return session;
}

Session readSessionFile(const std::string& path) { return parseSession(readFileText(path), path); }

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
    out += ",\n  \"learner\": " + JsonOutput::inlineText(learner);
    nlohmann::ordered_json run;
    run["state"] = std::string(toString(session.run.state));
    if (known(session.run.lowerBoundUs))
        run["lower_bound_us"] = JsonOutput::number(session.run.lowerBoundUs);
    if (known(session.run.singleDeviceUs))
        run["single_gpu_us"] = JsonOutput::number(session.run.singleDeviceUs);
    out += ",\n  \"run\": " + JsonOutput::inlineText(run);
    // The embedded documents keep their own layout (one op, device or placement per line).
    out += ",\n  \"graph\": " + nested(nativeGraphJson(*session.graph));
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
