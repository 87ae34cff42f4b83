#include "core/io/torch/RecordFunctionLink.h"

#include "core/io/torch/TraceSteps.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

// The checks of an honest link (docs/pytorch.md): the share of the graph's ops that must take
// a time, and the share of linked ops whose operator name may differ from the trace's.
constexpr double kMinLinkedShare = 0.9;
constexpr double kMaxNameMismatch = 0.05;
// How far back from a launch the innermost enclosing operator is looked for.
constexpr std::size_t kMaxNestingScan = 256;

// The trace's record functions in start order (an enclosing one before those it holds).
std::vector<int> startOrder(const KinetoTrace& trace)
{
    std::vector<int> order(trace.operators.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const TraceOperator &x = trace.operators[static_cast<std::size_t>(a)],
                            &y = trace.operators[static_cast<std::size_t>(b)];
        return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur;
    });
    return order;
}

// Per operator, the GPU time (kernels, memcpy, memset) it launched itself: each item goes to
// the innermost operator on the launching thread whose span holds the launch (its correlation
// id to the runtime call, else its flow arrow), else to the operator of its external id.
std::vector<double> launchedGpuUs(const KinetoTrace& trace, const std::vector<int>& order)
{
    std::vector<std::vector<int>> byThread(trace.threads.size());
    for (int i : order)
        if (!trace.operators[static_cast<std::size_t>(i)].annotation)
            byThread[static_cast<std::size_t>(trace.operators[static_cast<std::size_t>(i)].thread)].push_back(i);
    const auto innermostAt = [&](int thread, double ts) {
        if (thread < 0 || static_cast<std::size_t>(thread) >= byThread.size())
            return -1;
        const std::vector<int>& list = byThread[static_cast<std::size_t>(thread)];
        auto it = std::upper_bound(list.begin(), list.end(), ts, [&](double t, int op) {
            return t < trace.operators[static_cast<std::size_t>(op)].ts;
        });
        for (std::size_t scanned = 0; it != list.begin() && scanned < kMaxNestingScan; ++scanned) {
            --it;
            const TraceOperator& op = trace.operators[static_cast<std::size_t>(*it)];
            if (ts <= op.ts + op.dur)
                return *it;
        }
        return -1;
    };
    std::unordered_map<std::int64_t, int> byExternal;
    for (std::size_t i = 0; i < trace.operators.size(); ++i)
        if (trace.operators[i].externalId >= 0 && !trace.operators[i].annotation)
            byExternal.emplace(trace.operators[i].externalId, static_cast<int>(i));
    const std::vector<int> launcher = gpuWorkLaunchers(trace, innermostAt, byExternal);
    std::vector<double> us(trace.operators.size(), 0.0);
    for (std::size_t i = 0; i < trace.gpuWork.size(); ++i)
        if (launcher[i] >= 0)
            us[static_cast<std::size_t>(launcher[i])] += trace.gpuWork[i].dur;
    return us;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string formatMs(double us) { return formatTraceMs(us); }
std::string percent(double share) { return formatShare(share); }

// The graph's ops as (outer rf_id, operator name), and every rf_id of the graph.
struct GraphIds {
    std::vector<std::pair<std::int64_t, std::string_view>> outer; // per op with ids
    std::vector<std::int64_t> all;
    std::int64_t low = 0, high = -1;
};

GraphIds graphIds(const ImportedGraph& imported)
{
    GraphIds ids;
    for (OpId id = 0; id < imported.graph.opCount(); ++id) {
        const auto& rfs = imported.recordFunctionIds[static_cast<std::size_t>(id)];
        if (rfs.empty())
            continue;
        ids.outer.emplace_back(static_cast<std::int64_t>(rfs.front()), imported.graph.op(id).type);
        for (std::uint64_t rf : rfs)
            ids.all.push_back(static_cast<std::int64_t>(rf));
    }
    if (!ids.all.empty()) {
        ids.low = *std::min_element(ids.all.begin(), ids.all.end());
        ids.high = *std::max_element(ids.all.begin(), ids.all.end());
    }
    return ids;
}

// By the trace's "Record function id": one copy of the step, the run's own ids.
RecordFunctionTimes linkByIds(const KinetoTrace& trace, const GraphIds& ids, const std::vector<double>& gpu,
                              RecordFunctionLinkReport& r, int& mismatched, std::string& firstMismatch)
{
    std::unordered_map<std::int64_t, int> byRf;
    for (std::size_t i = 0; i < trace.operators.size(); ++i)
        if (trace.operators[i].recordFunctionId >= 0)
            byRf.emplace(trace.operators[i].recordFunctionId, static_cast<int>(i));
    RecordFunctionTimes times;
    for (std::int64_t rf : ids.all)
        if (const auto it = byRf.find(rf); it != byRf.end()) {
            const auto i = static_cast<std::size_t>(it->second);
            times.cpuUs[static_cast<std::uint64_t>(rf)] = trace.operators[i].dur;
            if (gpu[i] > 0.0)
                times.gpuUs[static_cast<std::uint64_t>(rf)] = gpu[i];
        }
    for (const auto& [rf, name] : ids.outer)
        if (const auto it = byRf.find(rf);
            it != byRf.end() && trace.operators[static_cast<std::size_t>(it->second)].name != name) {
            if (mismatched++ == 0)
                firstMismatch = "rf_id " + std::to_string(rf) + " is '" + std::string(name) + "' in the graph, '"
                    + trace.operators[static_cast<std::size_t>(it->second)].name + "' in the trace";
        }
    for (const auto& [rf, i] : byRf)
        if (rf >= ids.low && rf <= ids.high)
            r.gpuUs += gpu[static_cast<std::size_t>(i)];
    r.copies = r.copiesUsed = 1;
    return times;
}

// The positions in the trace's start order of the graph's record functions for one copy of the
// step whose first op is at `start`, or empty when its ops do not line up. A record function's
// id counts those started before it, so the position is the id plus an offset; but the two
// observers do not always record the same functions (torch 1.13's execution trace has nested
// calls its profiler leaves out), and each one recorded by one side only shifts the rest by one.
// So the offset is followed: where an op's name is not at its position, the nearest offset
// within kMaxDrift that has it is taken from there on. Ops found nowhere near count as misses;
// a nested id takes the offset of the outer op before it.
constexpr std::int64_t kMaxDrift = 16;
constexpr std::size_t kEarlyOps = 32, kEarlyMisses = 4;

struct CopyPositions {
    std::unordered_map<std::int64_t, std::int64_t> at; // rf -> position in start order
    std::int64_t first = 0, last = -1;                 // the span of positions it covers
};

CopyPositions alignCopy(const GraphIds& ids, const std::vector<std::pair<std::int64_t, std::string_view>>& outer,
                        std::int64_t start, std::int64_t n,
                        const std::function<const std::string&(std::int64_t)>& nameAt, std::size_t allowed)
{
    CopyPositions copy;
    std::int64_t offset = start - outer.front().first;
    std::size_t misses = 0, seen = 0;
    std::map<std::int64_t, std::int64_t> offsets; // outer rf -> its offset
    for (const auto& [rf, name] : outer) {
        // A start that is no copy of the step fails early (most starts are not).
        if (++seen == kEarlyOps && misses > kEarlyMisses)
            return {};
        const auto fits = [&](std::int64_t o) { return rf + o >= 0 && rf + o < n && nameAt(rf + o) == name; };
        if (!fits(offset)) {
            std::int64_t found = offset;
            for (std::int64_t d = 1; d <= kMaxDrift && found == offset; ++d)
                if (fits(offset + d))
                    found = offset + d;
                else if (fits(offset - d))
                    found = offset - d;
            if (found == offset) {
                if (++misses > allowed)
                    return {};
                offsets[rf] = offset;
                continue;
            }
            offset = found;
        }
        offsets[rf] = offset;
    }
    copy.first = std::numeric_limits<std::int64_t>::max();
    copy.last = std::numeric_limits<std::int64_t>::min();
    for (std::int64_t rf : ids.all) {
        auto it = offsets.upper_bound(rf);
        const std::int64_t o = it == offsets.begin() ? offsets.begin()->second : std::prev(it)->second;
        const std::int64_t k = rf + o;
        if (k < 0 || k >= n)
            continue;
        copy.at[rf] = k;
        copy.first = std::min(copy.first, k);
        copy.last = std::max(copy.last, k);
    }
    return copy;
}

// By operator order: the copies of the step in the trace (the graph's ops lined up with its
// record functions in start order, alignCopy), the median over the steady ones.
RecordFunctionTimes linkByOrder(const KinetoTrace& trace, const GraphIds& ids, const std::vector<int>& order,
                                const std::vector<double>& gpu, RecordFunctionLinkReport& r)
{
    RecordFunctionTimes times;
    if (ids.outer.empty())
        return times;
    std::vector<std::pair<std::int64_t, std::string_view>> outer = ids.outer;
    std::sort(outer.begin(), outer.end());
    const auto n = static_cast<std::int64_t>(order.size());
    const std::function<const std::string&(std::int64_t)> nameAt = [&](std::int64_t k) -> const std::string& {
        return trace.operators[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])].name;
    };
    const auto allowed = static_cast<std::size_t>(kMaxNameMismatch * static_cast<double>(outer.size()));
    std::vector<CopyPositions> copies;
    for (std::int64_t k = 0; k < n; ++k) {
        if (nameAt(k) != outer.front().second)
            continue;
        CopyPositions copy = alignCopy(ids, outer, k, n, nameAt, allowed);
        if (copy.at.empty())
            continue;
        k = copy.last; // copies do not overlap
        copies.push_back(std::move(copy));
    }
    r.copies = static_cast<int>(copies.size());
    if (copies.size() > 1)
        copies.erase(copies.begin()); // the first copy is the warm-up
    r.copiesUsed = static_cast<int>(copies.size());
    if (copies.empty())
        return times;
    std::vector<double> cpu, gpuTimes, steps;
    for (const CopyPositions& copy : copies) {
        double step = 0.0;
        for (std::int64_t k = copy.first; k <= copy.last; ++k)
            step += gpu[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
        steps.push_back(step);
    }
    r.gpuUs = median(steps);
    for (std::int64_t rf : ids.all) {
        cpu.clear();
        gpuTimes.clear();
        for (const CopyPositions& copy : copies)
            if (const auto it = copy.at.find(rf); it != copy.at.end()) {
                const auto i = static_cast<std::size_t>(order[static_cast<std::size_t>(it->second)]);
                cpu.push_back(trace.operators[i].dur);
                gpuTimes.push_back(gpu[i]);
            }
        if (cpu.empty())
            continue;
        times.cpuUs[static_cast<std::uint64_t>(rf)] = median(cpu);
        if (const double g = median(gpuTimes); g > 0.0)
            times.gpuUs[static_cast<std::uint64_t>(rf)] = g;
    }
    return times;
}

} // namespace

RecordFunctionTimes linkRecordFunctions(const ImportedGraph& imported, const KinetoTrace& trace,
                                        RecordFunctionLinkReport& r, const MeasuredCostsOptions& options)
{
    r.source = trace.source;
    r.layout = trace.layout;
    r.gpuName = trace.gpuName();
    r.ops = imported.graph.opCount();
    const GraphIds ids = graphIds(imported);
    const std::vector<int> order = startOrder(trace);
    const std::vector<double> gpu = launchedGpuUs(trace, order);
    const bool haveIds = std::any_of(trace.operators.begin(), trace.operators.end(),
                                     [](const TraceOperator& op) { return op.recordFunctionId >= 0; });
    int mismatched = 0;
    std::string firstMismatch;
    RecordFunctionTimes times;
    if (haveIds) {
        r.linkedBy = "record-function ids";
        times = linkByIds(trace, ids, gpu, r, mismatched, firstMismatch);
    } else {
        r.linkedBy = "operator order";
        times = linkByOrder(trace, ids, order, gpu, r);
    }
    const std::string what = "the Kineto trace (" + r.layout + ", linked by " + r.linkedBy + ")";
    const std::string graph = "execution trace graph \"" + imported.graph.name() + "\"";
    if (times.cpuUs.empty() && times.gpuUs.empty())
        throw InputError(r.source, {},
                         what + " is not of the run of " + graph + ": "
                             + (haveIds ? "none of its " + std::to_string(ids.all.size()) + " rf_ids is in the trace"
                                        : "its sequence of " + std::to_string(ids.outer.size())
                                        + " operators is nowhere in the trace")
                             + " (record both in the same run: docs/pytorch.md)");
    for (OpId id = 0; id < imported.graph.opCount(); ++id) {
        const auto& rfs = imported.recordFunctionIds[static_cast<std::size_t>(id)];
        const bool linked = std::any_of(rfs.begin(), rfs.end(), [&](std::uint64_t rf) {
            return times.gpuUs.count(rf) > 0 || times.cpuUs.count(rf) > 0;
        });
        r.linkedOps += linked ? 1 : 0;
        if (linked)
            for (std::uint64_t rf : rfs)
                if (const auto it = times.gpuUs.find(rf); it != times.gpuUs.end())
                    r.mappedGpuUs += it->second;
    }
    std::string problem;
    if (mismatched > static_cast<int>(kMaxNameMismatch * static_cast<double>(ids.outer.size())))
        problem = std::to_string(mismatched) + " of the linked ops name another operator (" + firstMismatch
            + "): not of the same run";
    else if (r.linkedOps < kMinLinkedShare * r.ops)
        problem = "only " + std::to_string(r.linkedOps) + " of the " + std::to_string(r.ops) + " ops ("
            + percent(double(r.linkedOps) / std::max(1, r.ops)) + ", at least " + percent(kMinLinkedShare)
            + " needed) link to it";
    if (!problem.empty()) {
        if (!options.partial)
            throw InputError(r.source, {},
                             what + " for " + graph + ": " + problem + " (--costs-partial takes it anyway)");
        r.partial = true;
    }
    return times;
}

Graph applyKinetoToExecutionTrace(const ImportedGraph& imported, const std::string& path,
                                  RecordFunctionLinkReport* report, const MeasuredCostsOptions& options)
{
    return applyKinetoTextToExecutionTrace(imported, readFileText(path), path, report, options);
}

Graph applyKinetoTextToExecutionTrace(const ImportedGraph& imported, std::string text, const std::string& path,
                                      RecordFunctionLinkReport* report, const MeasuredCostsOptions& options)
{
    RecordFunctionLinkReport local;
    RecordFunctionLinkReport& r = report ? *report : local;
    r = {};
    KinetoTrace trace;
    {
        if (!looksLikeProfilerTrace(text) && text.find_first_not_of(" \t\r\n") != std::string::npos
            && text[text.find_first_not_of(" \t\r\n")] != '[')
            throw InputError(path, {},
                             "an execution trace's graph takes a torch.profiler (Kineto) trace of the same run as "
                             "--costs; this file has no \"traceEvents\"");
        trace = parseKinetoTrace(text, path); // event by event
        std::string().swap(text);             // the trace holds what it needs
    }
    const RecordFunctionTimes times = linkRecordFunctions(imported, trace, r, options);
    return applyRecordFunctionTimes(imported, times, nullptr, path);
}

std::string describeRecordFunctionLink(const RecordFunctionLinkReport& r)
{
    std::string text = "measured times for " + std::to_string(r.linkedOps) + " of " + std::to_string(r.ops)
        + " ops, linked by " + r.linkedBy + " (" + (r.gpuName.empty() ? std::string() : r.gpuName + ", ") + r.layout
        + " trace";
    if (r.linkedBy == "operator order" && r.copies > 1)
        text += "; the step found " + std::to_string(r.copies) + " times, the median of the "
            + std::to_string(r.copiesUsed) + " after the first";
    text += ")";
    if (r.gpuUs > 0.0)
        text += ": " + percent(r.mappedGpuUs / r.gpuUs) + " of the step's GPU time (" + formatMs(r.mappedGpuUs) + " of "
            + formatMs(r.gpuUs) + ") on the graph's ops";
    if (r.partial)
        text += " (taken under --costs-partial)";
    return text;
}

} // namespace post
