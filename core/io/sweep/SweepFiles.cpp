#include "core/io/sweep/SweepFiles.h"

#include "core/graph/Precision.h"
#include "core/io/json/JsonInput.h"
#include "core/util/Fnv1a.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace post {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kManifestFormat = "post-sweep/1";
constexpr const char* kResultFormat = "post-sweep-result/1";
constexpr int kMaxSamples = 100000000;
constexpr double kMaxStepTimeMs = 1e15;
// A result file is a few hundred bytes; anything much larger is not one (refused unread).
constexpr std::size_t kMaxResultBytes = 1 << 20;

// Strict JSON (core/io/json): syntax errors at "line L, column C", repeated keys refused.
json parseJson(const std::string& text, const std::string& source) { return JsonInput(source).parse(text); }

// Field errors read as the other formats' do: "FILE: field seeds[1]: ...".
[[noreturn]] void failField(const std::string& source, const std::string& path, const std::string& message)
{
    throw InputError(source, "field " + path, message);
}

std::vector<std::string> stringList(const json& j, const std::string& key, const std::string& source)
{
    if (!j.contains(key))
        failField(source, key, "missing (a list of strings)");
    const json& list = j.at(key);
    if (!list.is_array() || list.empty())
        failField(source, key, "must be a non-empty list of strings");
    std::vector<std::string> out;
    for (size_t k = 0; k < list.size(); ++k) {
        if (!list[k].is_string() || list[k].get<std::string>().empty())
            failField(source, key + "[" + std::to_string(k) + "]", "must be a non-empty string");
        out.push_back(list[k].get<std::string>());
    }
    return out;
}

// One key for every spelling of a file: relative or absolute, through "..", "." or a symbolic
// link ("g.json" and "/data/g.json" from a manifest in /data are one graph, listed twice).
std::string sameFileKey(const std::string& path)
{
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    if (ec)
        return fs::path(path).lexically_normal().string();
    const fs::path canonical = fs::weakly_canonical(absolute, ec);
    return (ec ? absolute.lexically_normal() : canonical).string();
}

std::string resolve(const std::string& path, const std::string& manifest)
{
    const fs::path p(path);
    if (p.is_absolute())
        return path;
    return (fs::path(manifest).parent_path() / p).lexically_normal().string();
}

// A cluster is a preset name unless it looks like a path.
bool looksLikePath(const std::string& s) { return s.find('/') != std::string::npos || s.ends_with(".json"); }

template <class T> T field(const json& j, const char* key, const std::string& source, const char* what)
{
    if (!j.contains(key))
        failField(source, key, std::string("missing (") + what + ")");
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        failField(source, key, std::string("must be ") + what);
    }
}

// An integer from `low` to `high`: 1.5, 2^32 + 1 and -1 (for a count) are refused, never
// truncated or wrapped by a cast.
std::int64_t integerField(const json& j, const char* key, const std::string& source, std::int64_t low, std::int64_t high)
{
    const std::string range = "an integer from " + std::to_string(low) + " to " + std::to_string(high);
    if (!j.contains(key))
        failField(source, key, "missing (" + range + ")");
    const json& v = j.at(key);
    const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(high)
                                             : v.is_number_integer() && v.get<std::int64_t>() <= high;
    if (!fits || v.get<std::int64_t>() < low)
        failField(source, key, "must be " + range + ", got " + v.dump());
    return v.get<std::int64_t>();
}

// A value listed twice would make a job twice (and count as two runs): refused, naming both.
template <class T, class Key>
void rejectRepeats(const std::vector<T>& values, const std::string& field, const std::string& source, Key keyOf)
{
    std::map<decltype(keyOf(values.front())), size_t> first;
    for (size_t k = 0; k < values.size(); ++k) {
        const auto [it, fresh] = first.emplace(keyOf(values[k]), k);
        if (!fresh) {
            std::string shown;
            if constexpr (std::is_same_v<T, std::string>)
                shown = "\"" + values[k] + "\"";
            else
                shown = std::to_string(values[k]);
            failField(source, field + "[" + std::to_string(k) + "]",
                      shown + " is listed twice (also " + field + "[" + std::to_string(it->second)
                          + "]): its jobs would run twice and count as two runs");
        }
    }
}

// A field that is one value or a non-empty list of values, each one `valid` takes and none
// listed twice ("precision": "amp" or ["fp32", "amp"]); empty when the manifest has no `key`.
// `one` describes a value, `any` every value the field takes (for a field of the wrong type).
std::vector<std::string> oneOrList(const json& j, const std::string& key, const std::string& source,
                                   const std::string& what, const std::string& one, const std::string& any,
                                   const std::function<bool(const std::string&)>& valid)
{
    std::vector<std::string> out;
    if (!j.contains(key))
        return out;
    const json& v = j.at(key);
    if (v.is_string()) {
        out.push_back(v.get<std::string>());
    } else if (v.is_array() && !v.empty()) {
        for (size_t k = 0; k < v.size(); ++k) {
            if (!v[k].is_string())
                failField(source, key + "[" + std::to_string(k) + "]", "must be " + one);
            out.push_back(v[k].get<std::string>());
        }
    } else {
        failField(source, key, "must be " + any + " or a non-empty list of them");
    }
    for (size_t k = 0; k < out.size(); ++k) {
        const std::string at = v.is_string() ? key : key + "[" + std::to_string(k) + "]";
        if (!valid(out[k]))
            failField(source, at, "unknown " + what + " \"" + out[k] + "\" (expected " + one + ")");
        if (std::count(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out[k]))
            failField(source, at, "\"" + out[k] + "\" is listed twice");
    }
    return out;
}

// graphs x clusters x precisions x dispatches x (seeds for a seeded algorithm, else 1), without
// making them.
std::uint64_t jobCountOf(const SweepManifest& m)
{
    std::uint64_t perCell = 0;
    for (const char usesSeed : m.algorithmUsesSeed)
        perCell += usesSeed ? m.seeds.size() : 1;
    const std::uint64_t precisions = m.precisions.empty() ? 1 : m.precisions.size();
    const std::uint64_t dispatches = m.dispatches.empty() ? 1 : m.dispatches.size();
    // Four factors of a million each (a 16 MB manifest, the parser has no limit of its own)
    // overflow 64 bits: the product saturates, so a wrapped count never passes the limit.
    std::uint64_t jobs = 1;
    for (const std::uint64_t factor : {static_cast<std::uint64_t>(m.graphs.size()),
                                       static_cast<std::uint64_t>(m.clusters.size()), precisions, dispatches, perCell}) {
        if (factor != 0 && jobs > std::numeric_limits<std::uint64_t>::max() / factor)
            return std::numeric_limits<std::uint64_t>::max();
        jobs *= factor;
    }
    return jobs;
}

} // namespace

std::string SweepJob::fileName() const
{
    char name[32];
    std::snprintf(name, sizeof name, "job-%06d.json", index);
    return name;
}

double SweepTableRow::meanMs() const
{
    return stepTimesMs.empty()
        ? 0.0
        : std::accumulate(stepTimesMs.begin(), stepTimesMs.end(), 0.0) / static_cast<double>(stepTimesMs.size());
}

double SweepTableRow::stddevMs() const
{
    if (stepTimesMs.size() < 2)
        return 0.0;
    const double m = meanMs();
    double s = 0.0;
    for (double v : stepTimesMs)
        s += (v - m) * (v - m);
    return std::sqrt(s / static_cast<double>(stepTimesMs.size() - 1));
}

double SweepTableRow::minMs() const
{
    return stepTimesMs.empty() ? 0.0 : *std::min_element(stepTimesMs.begin(), stepTimesMs.end());
}

SweepManifest parseSweepManifest(const std::string& text, const std::string& source, const SweepAlgorithmLookup& lookup)
{
    const json j = parseJson(text, source);
    if (!j.is_object())
        throw InputError(source, "top level", "a sweep manifest is a JSON object");
    if (!j.contains("format") || j.at("format") != kManifestFormat)
        failField(source, "format", std::string("must be \"") + kManifestFormat + "\"");
    static const std::set<std::string> known{"format",   "graphs",     "clusters", "precision",
                                             "dispatch", "algorithms", "seeds",    "samples"};
    for (const auto& [key, value] : j.items())
        if (!known.count(key) && !key.starts_with("x-"))
            failField(source, key,
                      "unknown field (known: format, graphs, clusters, precision, dispatch, algorithms, seeds, "
                      "samples)");
    SweepManifest m;
    m.source = source;
    m.graphs = stringList(j, "graphs", source);
    m.clusters = stringList(j, "clusters", source);
    // One mode for every cluster ("amp"), or a list to compare them (["fp32", "tf32", "amp"]).
    m.precisions = oneOrList(j, "precision", source, "precision mode", "\"fp32\", \"tf32\", \"amp\" or \"pytorch\"",
                             "\"fp32\", \"tf32\", \"amp\", \"pytorch\"",
                             [](const std::string& mode) { return parsePrecisionMode(mode).has_value(); });
    // One rule for every job ("critical-path"), or both, to compare what the order costs.
    for (const std::string& rule : oneOrList(j, "dispatch", source, "dispatch rule", "\"ready\" or \"critical-path\"",
                                             "\"ready\", \"critical-path\"",
                                             [](const std::string& name) { return dispatchFromName(name).has_value(); }))
        m.dispatches.push_back(*dispatchFromName(rule));
    m.algorithms = stringList(j, "algorithms", source);
    for (size_t k = 0; k < m.algorithms.size(); ++k) {
        const std::optional<bool> usesSeed = lookup(m.algorithms[k]);
        if (!usesSeed)
            failField(source, "algorithms[" + std::to_string(k) + "]", "unknown algorithm '" + m.algorithms[k] + "'");
        m.algorithmUsesSeed.push_back(*usesSeed ? 1 : 0);
    }
    if (j.contains("seeds")) {
        const json& seeds = j.at("seeds");
        if (!seeds.is_array() || seeds.empty())
            failField(source, "seeds", "must be a non-empty list of integers >= 0");
        m.seeds.clear();
        for (size_t k = 0; k < seeds.size(); ++k) {
            if (!seeds[k].is_number_unsigned())
                failField(source, "seeds[" + std::to_string(k) + "]", "must be an integer >= 0");
            m.seeds.push_back(seeds[k].get<std::uint64_t>());
        }
    }
    if (j.contains("samples"))
        m.samples = static_cast<int>(integerField(j, "samples", source, 1, kMaxSamples));
    // The job's identity is (graph, cluster, precision, dispatch, algorithm, seed): each listed once.
    rejectRepeats(m.graphs, "graphs", source, [&](const std::string& g) { return sameFileKey(resolve(g, source)); });
    rejectRepeats(m.clusters, "clusters", source,
                  [&](const std::string& c) { return looksLikePath(c) ? sameFileKey(resolve(c, source)) : c; });
    rejectRepeats(m.algorithms, "algorithms", source, [](const std::string& a) { return a; });
    rejectRepeats(m.seeds, "seeds", source, [](std::uint64_t seed) { return seed; });
    if (const std::uint64_t jobs = jobCountOf(m); jobs > static_cast<std::uint64_t>(kMaxSweepJobs))
        throw InputError(
            source, "jobs",
            std::to_string(m.graphs.size()) + " graphs x " + std::to_string(m.clusters.size()) + " clusters x ... make "
                + (jobs == std::numeric_limits<std::uint64_t>::max() ? "more than 10^19" : std::to_string(jobs))
                + " jobs; at most " + std::to_string(kMaxSweepJobs) + " per manifest (split it into several)");
    return m;
}

std::vector<SweepJob> sweepJobs(const SweepManifest& m)
{
    std::vector<SweepJob> jobs;
    // No "precision": one pass with the clusters' own, so such manifests number their jobs as before.
    const std::vector<std::string> precisions = m.precisions.empty() ? std::vector<std::string>{""} : m.precisions;
    // No "dispatch" likewise: one pass in ready order, the jobs carrying no rule.
    std::vector<std::optional<Dispatch>> dispatches(m.dispatches.begin(), m.dispatches.end());
    if (dispatches.empty())
        dispatches.emplace_back();
    for (const std::string& g : m.graphs)
        for (const std::string& c : m.clusters)
            for (const std::string& p : precisions)
                for (const std::optional<Dispatch>& d : dispatches)
                    for (size_t k = 0; k < m.algorithms.size(); ++k) {
                        const size_t seeds = m.algorithmUsesSeed[k] ? m.seeds.size() : 1;
                        for (size_t s = 0; s < seeds; ++s) {
                            SweepJob job;
                            job.index = static_cast<int>(jobs.size());
                            job.graph = g;
                            job.graphPath = resolve(g, m.source);
                            job.cluster = c;
                            job.clusterPath = looksLikePath(c) ? resolve(c, m.source) : c;
                            job.precision = p;
                            job.dispatch = d;
                            job.algorithm = m.algorithms[k];
                            job.seed = m.seeds[s];
                            job.samples = m.samples;
                            jobs.push_back(std::move(job));
                        }
                    }
    for (SweepJob& job : jobs)
        job.jobCount = static_cast<int>(jobs.size());
    return jobs;
}

std::vector<SweepJob> shardOf(const std::vector<SweepJob>& jobs, int shard, int shards)
{
    std::vector<SweepJob> out;
    for (const SweepJob& job : jobs)
        if (job.index % shards == shard)
            out.push_back(job);
    return out;
}

std::string sweepResultJson(const SweepResult& r)
{
    json j;
    j["format"] = kResultFormat;
    j["job"] = r.index;
    j["jobs"] = r.jobCount;
    j["graph"] = r.graph;
    j["cluster"] = r.cluster;
    j["algo"] = r.algorithm;
    if (!r.precision.empty())
        j["precision"] = r.precision;
    if (r.dispatch)
        j["dispatch"] = dispatchName(*r.dispatch);
    j["seed"] = r.seed;
    j["samples"] = r.samples;
    j["ops"] = r.ops;
    j["best_step_time_ms"] = r.bestStepTimeMs;
    j["feasible"] = r.feasible;
    j["samples_used"] = r.samplesUsed;
    j["wall_s"] = r.wallSeconds;
    if (!r.inputs.empty())
        j["inputs"] = r.inputs;
    return j.dump(2) + "\n";
}

SweepResult parseSweepResult(const std::string& text, const std::string& source)
{
    const json j = parseJson(text, source);
    if (!j.is_object())
        throw InputError(source, "top level", "a sweep result is a JSON object");
    if (!j.contains("format") || j.at("format") != kResultFormat)
        failField(source, "format", std::string("must be \"") + kResultFormat + "\"");
    static const std::set<std::string> known{"format",   "job",          "jobs",      "graph",
                                             "cluster",  "algo",         "precision", "dispatch",
                                             "seed",     "samples",      "ops",       "best_step_time_ms",
                                             "feasible", "samples_used", "wall_s",    "inputs"};
    for (const auto& [key, value] : j.items())
        if (!known.count(key) && !key.starts_with("x-"))
            failField(source, key,
                      "unknown field (known: format, job, jobs, graph, cluster, algo, precision, dispatch, seed, "
                      "samples, ops, best_step_time_ms, feasible, samples_used, wall_s, inputs)");
    SweepResult r;
    r.jobCount = static_cast<int>(integerField(j, "jobs", source, 1, kMaxSweepJobs));
    r.index = static_cast<int>(integerField(j, "job", source, 0, r.jobCount - 1));
    r.graph = field<std::string>(j, "graph", source, "a string");
    r.cluster = field<std::string>(j, "cluster", source, "a string");
    r.algorithm = field<std::string>(j, "algo", source, "a string");
    if (j.contains("precision")) {
        r.precision = field<std::string>(j, "precision", source, "\"fp32\", \"tf32\", \"amp\" or \"pytorch\"");
        if (!parsePrecisionMode(r.precision))
            failField(source, "precision", "must be \"fp32\", \"tf32\", \"amp\" or \"pytorch\"");
    }
    if (j.contains("dispatch")) {
        r.dispatch = dispatchFromName(field<std::string>(j, "dispatch", source, "\"ready\" or \"critical-path\""));
        if (!r.dispatch)
            failField(source, "dispatch", "must be \"ready\" or \"critical-path\"");
    }
    if (!j.contains("seed") || !j.at("seed").is_number_unsigned())
        failField(source, "seed", "must be an integer >= 0" + (j.contains("seed") ? ", got " + j.at("seed").dump() : ""));
    r.seed = j.at("seed").get<std::uint64_t>();
    r.samples = static_cast<int>(integerField(j, "samples", source, 1, kMaxSamples));
    r.ops = static_cast<int>(integerField(j, "ops", source, 0, std::numeric_limits<int>::max()));
    r.bestStepTimeMs = field<double>(j, "best_step_time_ms", source, "a number");
    // The simulator's bound on an op's time; a mean and standard deviation of such numbers stay finite.
    if (!std::isfinite(r.bestStepTimeMs) || r.bestStepTimeMs < 0.0 || r.bestStepTimeMs > kMaxStepTimeMs)
        failField(source, "best_step_time_ms", "must be a number from 0 to 1e15");
    r.feasible = field<bool>(j, "feasible", source, "true or false");
    r.samplesUsed = static_cast<int>(integerField(j, "samples_used", source, 0, std::numeric_limits<int>::max()));
    r.wallSeconds = field<double>(j, "wall_s", source, "a number");
    if (!std::isfinite(r.wallSeconds) || r.wallSeconds < 0.0 || r.wallSeconds > 1e12)
        failField(source, "wall_s", "must be a number from 0 to 1e12");
    if (j.contains("inputs")) {
        r.inputs = field<std::string>(j, "inputs", source, "a string");
        const bool hex = r.inputs.size() == 24 && r.inputs.starts_with("fnv1a64:")
            && std::all_of(r.inputs.begin() + 8, r.inputs.end(),
                           [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
        if (!hex)
            failField(source, "inputs", "must be \"fnv1a64:\" and 16 lower-case hex digits");
    }
    return r;
}

std::string sweepInputsFingerprint(const SweepJob& job)
{
    Fnv1a64 hash;
    const auto addFile = [&hash](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw InputError(path, "", "cannot open it to fingerprint the sweep's inputs");
        std::string chunk(std::size_t(1) << 16, '\0');
        while (in) {
            in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            hash.add(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
        }
        if (in.bad())
            throw InputError(path, "", "cannot read it to fingerprint the sweep's inputs");
    };
    addFile(job.graphPath);
    hash.add(std::string_view("\0cluster\0", 9));
    if (job.clusterPath != job.cluster || fs::exists(job.clusterPath))
        addFile(job.clusterPath);
    else
        hash.add(job.cluster); // a preset: its name
    return hash.fingerprint();
}

std::optional<SweepResult> readResultOfJob(const std::string& path, const SweepJob& job, const std::string& inputs,
                                           std::string* problem)
{
    SweepResult r;
    try {
        r = parseSweepResult(JsonInput::readFile(path, kMaxResultBytes), path);
    } catch (const InputError& e) {
        if (problem)
            *problem = std::string(e.what()) + ": not a complete result";
        return std::nullopt;
    }
    const bool same = r.index == job.index && r.jobCount == job.jobCount && r.graph == job.graph
        && r.cluster == job.cluster && r.precision == job.precision && r.dispatch == job.dispatch
        && r.algorithm == job.algorithm && r.seed == job.seed && r.samples == job.samples;
    if (!same)
        throw InputError(
            path, "job",
            "is the result of another job (" + r.graph + ", " + r.cluster + (r.precision.empty() ? "" : ":" + r.precision)
                + (r.dispatch ? ", dispatch " + std::string(dispatchName(*r.dispatch)) : "") + ", " + r.algorithm
                + ", seed " + std::to_string(r.seed) + ", " + std::to_string(r.samples) + " samples, job "
                + std::to_string(r.index) + " of " + std::to_string(r.jobCount) + "), not of this manifest's job "
                + std::to_string(job.index) + " of " + std::to_string(job.jobCount) + " (" + std::to_string(job.samples)
                + " samples): give each manifest its own --out folder");
    if (!r.inputs.empty() && !inputs.empty() && r.inputs != inputs) {
        if (problem)
            *problem = path + ": made from another version of " + job.graph + " or " + job.cluster + " (inputs "
                + r.inputs + ", now " + inputs + ")";
        return std::nullopt;
    }
    return r;
}

SweepTable mergeSweepResults(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(dir, "", "not a folder of sweep results");
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with("job-") && name.ends_with(".json"))
            files.push_back(e.path());
    }
    if (ec)
        throw InputError(dir, "", ec.message());
    std::sort(files.begin(), files.end());
    std::vector<SweepResult> results;
    for (const fs::path& f : files) {
        SweepResult r = parseSweepResult(JsonInput::readFile(f.string(), kMaxResultBytes), f.string());
        SweepJob named;
        named.index = r.index;
        if (named.fileName() != f.filename().string())
            throw InputError(f.string(), "field job",
                             "is " + std::to_string(r.index) + ", not the job the file name gives");
        if (!results.empty() && r.jobCount != results.front().jobCount)
            throw InputError(f.string(), "field jobs",
                             std::to_string(r.jobCount) + " jobs, but " + files.front().string() + " has "
                                 + std::to_string(results.front().jobCount) + ": results of two manifests");
        results.push_back(std::move(r));
    }
    return sweepTable(std::move(results));
}

SweepTable sweepTable(std::vector<SweepResult> results)
{
    std::sort(results.begin(), results.end(),
              [](const SweepResult& a, const SweepResult& b) { return a.index < b.index; });
    SweepTable table;
    table.jobCount = results.empty() ? 0 : results.front().jobCount;
    std::vector<char> seen(static_cast<size_t>(table.jobCount), 0);
    std::map<size_t, std::string> rowInputs; // by row: the first recorded inputs, and whose
    std::map<size_t, int> rowInputsJob;
    std::map<std::tuple<std::string, std::string, std::string, std::optional<Dispatch>, std::string>, size_t> rowOf;
    for (const SweepResult& r : results) {
        if (r.jobCount != table.jobCount || r.index < 0 || r.index >= table.jobCount)
            throw InputError(r.graph, "job " + std::to_string(r.index), "results of different manifests");
        seen[static_cast<size_t>(r.index)] = 1;
        table.wallSeconds += r.wallSeconds;
        const auto key = std::make_tuple(r.graph, r.cluster, r.precision, r.dispatch, r.algorithm);
        auto it = rowOf.find(key);
        if (it == rowOf.end()) {
            it = rowOf.emplace(key, table.rows.size()).first;
            SweepTableRow row;
            row.graph = r.graph;
            row.cluster = r.cluster;
            row.algorithm = r.algorithm;
            row.precision = r.precision;
            row.dispatch = r.dispatch;
            table.rows.push_back(std::move(row));
        }
        SweepTableRow& row = table.rows[it->second];
        if (std::find(row.seeds.begin(), row.seeds.end(), r.seed) != row.seeds.end()) {
            SweepJob named;
            named.index = r.index;
            throw InputError(named.fileName(), "field seed",
                             "seed " + std::to_string(r.seed) + " of " + r.graph + ", " + r.cluster + ", " + r.algorithm
                                 + " has two results (a manifest that lists it twice): one run counts once");
        }
        // Runs of one row on two versions of its graph or cluster file are not one row's seeds.
        if (!r.inputs.empty()) {
            std::string& first = rowInputs[it->second];
            if (first.empty()) {
                first = r.inputs;
                rowInputsJob[it->second] = r.index;
            } else if (first != r.inputs) {
                SweepJob named, other;
                named.index = r.index;
                other.index = rowInputsJob[it->second];
                throw InputError(named.fileName(), "field inputs",
                                 r.inputs + ", but " + other.fileName() + " has " + first + ": runs of " + r.graph
                                     + ", " + r.cluster + ", " + r.algorithm
                                     + " on two versions of the graph or cluster file; rerun the sweep (it redoes "
                                       "the jobs whose inputs changed)");
            }
        }
        row.seeds.push_back(r.seed);
        row.stepTimesMs.push_back(r.bestStepTimeMs);
        row.feasibleRuns += r.feasible ? 1 : 0;
    }
    for (int k = 0; k < table.jobCount; ++k)
        if (!seen[static_cast<size_t>(k)])
            table.missing.push_back(k);
    return table;
}

} // namespace post
