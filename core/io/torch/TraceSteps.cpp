#include "core/io/torch/TraceSteps.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

namespace post {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Range {
    double begin = 0.0, end = 0.0;
    std::string name;
};

bool isBackwardName(std::string_view name)
{
    if (name.starts_with("autograd::engine::evaluate_function:"))
        return true;
    while (!name.empty() && name.back() >= '0' && name.back() <= '9')
        name.remove_suffix(1);
    return name.ends_with("Backward") || name.ends_with("Backwards");
}

// The top-level operators of each thread, and for every operator the top-level one it is in.
struct TopLevel {
    std::vector<int> topOf;                 // per operator: its top-level operator, or -1 (annotations)
    std::vector<std::vector<int>> byThread; // per thread: top-level operators in time order
    std::unordered_map<int, std::vector<std::int64_t>> seqs; // top-level operator -> numbers, its own first
};

TopLevel findTopLevel(const KinetoTrace& trace)
{
    TopLevel t;
    t.topOf.assign(trace.operators.size(), -1);
    t.byThread.resize(trace.threads.size());
    std::vector<std::vector<int>> ops(trace.threads.size());
    for (std::size_t i = 0; i < trace.operators.size(); ++i)
        if (!trace.operators[i].annotation)
            ops[static_cast<std::size_t>(trace.operators[i].thread)].push_back(static_cast<int>(i));
    for (std::size_t thread = 0; thread < ops.size(); ++thread) {
        std::vector<int>& list = ops[thread];
        std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
            const TraceOperator &x = trace.operators[static_cast<std::size_t>(a)],
                                &y = trace.operators[static_cast<std::size_t>(b)];
            return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur;
        });
        int open = -1;
        double openEnd = -kInfinity;
        for (int i : list) {
            const TraceOperator& op = trace.operators[static_cast<std::size_t>(i)];
            if (open < 0 || op.ts >= openEnd) {
                open = i;
                openEnd = op.ts + op.dur;
                t.byThread[thread].push_back(i);
            }
            if (op.sequence >= 0)
                t.seqs[open].push_back(op.sequence);
            t.topOf[static_cast<std::size_t>(i)] = open;
        }
    }
    return t;
}

// The top-level operator of `thread` running at time `ts`, or -1.
int operatorAt(const KinetoTrace& trace, const TopLevel& top, int thread, double ts)
{
    if (thread < 0 || static_cast<std::size_t>(thread) >= top.byThread.size())
        return -1;
    const std::vector<int>& list = top.byThread[static_cast<std::size_t>(thread)];
    auto it = std::upper_bound(list.begin(), list.end(), ts,
                               [&](double t, int op) { return t < trace.operators[static_cast<std::size_t>(op)].ts; });
    if (it == list.begin())
        return -1;
    const TraceOperator& op = trace.operators[static_cast<std::size_t>(*std::prev(it))];
    return ts <= op.ts + op.dur ? *std::prev(it) : -1;
}

// For each GPU work item, the top-level operator that launched it, or -1.
std::vector<int> launchers(const KinetoTrace& trace, const TopLevel& top)
{
    std::unordered_map<std::int64_t, int> byExternal;
    for (std::size_t i = 0; i < trace.operators.size(); ++i)
        if (trace.operators[i].externalId >= 0 && top.topOf[i] >= 0)
            byExternal.emplace(trace.operators[i].externalId, top.topOf[i]);
    return gpuWorkLaunchers(
        trace, [&](int thread, double ts) { return operatorAt(trace, top, thread, ts); }, byExternal);
}

// Step ranges: ProfilerStep#N; else cut after each Optimizer.step; else the whole trace.
std::vector<Range> stepRanges(const KinetoTrace& trace, std::string& stepsFrom)
{
    std::vector<Range> ranges, optimizerSteps;
    for (const TraceOperator& op : trace.operators) {
        if (op.name.starts_with("ProfilerStep#"))
            ranges.push_back({op.ts, op.ts + op.dur, op.name});
        else if (op.name.starts_with("Optimizer.step"))
            optimizerSteps.push_back({op.ts, op.ts + op.dur, op.name});
    }
    const auto byBegin = [](const Range& a, const Range& b) { return a.begin < b.begin; };
    if (!ranges.empty()) {
        stepsFrom = "ProfilerStep#N";
        std::sort(ranges.begin(), ranges.end(), byBegin);
        return ranges;
    }
    if (!optimizerSteps.empty()) {
        stepsFrom = "Optimizer.step";
        std::sort(optimizerSteps.begin(), optimizerSteps.end(), byBegin);
        double begin = -kInfinity;
        for (std::size_t i = 0; i < optimizerSteps.size(); ++i) {
            ranges.push_back({begin, optimizerSteps[i].end, "step " + std::to_string(i + 1)});
            begin = optimizerSteps[i].end;
        }
        return ranges;
    }
    stepsFrom = "the whole trace";
    return {{-kInfinity, kInfinity, "the whole trace"}};
}

// Optimizer.* ranges per thread (annotations in 2.x, operators in 1.8).
std::vector<std::vector<Range>> optimizerRanges(const KinetoTrace& trace)
{
    std::vector<std::vector<Range>> ranges(trace.threads.size());
    for (const TraceOperator& op : trace.operators)
        if (op.name.starts_with("Optimizer."))
            ranges[static_cast<std::size_t>(op.thread)].push_back({op.ts, op.ts + op.dur, op.name});
    return ranges;
}

OperatorRole roleOf(const TraceOperator& op, const std::vector<std::vector<Range>>& optimizer)
{
    if (op.name.starts_with("Optimizer.") || op.name.find("AccumulateGrad") != std::string::npos)
        return OperatorRole::Optimizer;
    for (const Range& r : optimizer[static_cast<std::size_t>(op.thread)])
        if (op.ts >= r.begin && op.ts < r.end)
            return OperatorRole::Optimizer;
    return isBackwardName(op.name) ? OperatorRole::Backward : OperatorRole::Forward;
}

// The operators of a thread between its first and last backward node that are neither
// nodes nor optimizer work belong to the backward pass (the engine sums the gradients of a
// tensor used twice with a top-level aten::add).
void markBackwardPass(const KinetoTrace& trace, TraceStep& step)
{
    std::unordered_map<int, std::pair<std::size_t, std::size_t>> window; // thread -> first, last node
    for (std::size_t k = 0; k < step.ops.size(); ++k)
        if (step.ops[k].role == OperatorRole::Backward) {
            const int thread = trace.operators[static_cast<std::size_t>(step.ops[k].index)].thread;
            auto [it, inserted] = window.emplace(thread, std::make_pair(k, k));
            it->second.second = k;
        }
    for (std::size_t k = 0; k < step.ops.size(); ++k) {
        StepOperator& op = step.ops[k];
        const auto it = window.find(trace.operators[static_cast<std::size_t>(op.index)].thread);
        if (op.role == OperatorRole::Forward && it != window.end() && k > it->second.first && k < it->second.second) {
            op.role = OperatorRole::Backward;
            op.betweenNodes = true;
        }
    }
}

} // namespace

TraceSteps splitTraceSteps(const KinetoTrace& trace)
{
    TraceSteps result;
    const TopLevel top = findTopLevel(trace);
    const std::vector<Range> ranges = stepRanges(trace, result.stepsFrom);
    const std::vector<std::vector<Range>> optimizer = optimizerRanges(trace);

    // Each top-level operator into the step whose range holds its start.
    std::vector<int> all;
    for (const std::vector<int>& list : top.byThread)
        all.insert(all.end(), list.begin(), list.end());
    std::stable_sort(all.begin(), all.end(), [&](int a, int b) {
        return trace.operators[static_cast<std::size_t>(a)].ts < trace.operators[static_cast<std::size_t>(b)].ts;
    });
    result.steps.resize(ranges.size());
    for (std::size_t s = 0; s < ranges.size(); ++s)
        result.steps[s].name = ranges[s].name;
    std::unordered_map<int, std::pair<std::size_t, std::size_t>> where; // operator -> (step, position)
    for (int i : all) {
        const TraceOperator& op = trace.operators[static_cast<std::size_t>(i)];
        const auto it = std::upper_bound(ranges.begin(), ranges.end(), op.ts,
                                         [](double t, const Range& r) { return t < r.begin; });
        if (it == ranges.begin())
            continue;
        const auto s = static_cast<std::size_t>(std::prev(it) - ranges.begin());
        if (op.ts >= ranges[s].end)
            continue; // between two profiled steps
        StepOperator so;
        so.index = i;
        so.role = roleOf(op, optimizer);
        so.cpuUs = op.dur;
        if (const auto seq = top.seqs.find(i); seq != top.seqs.end()) {
            so.sequence = seq->second.front();
            so.sequences = seq->second;
        }
        where[i] = {s, result.steps[s].ops.size()};
        result.steps[s].ops.push_back(so);
        result.steps[s].cpuUs += op.dur;
    }

    for (TraceStep& step : result.steps)
        markBackwardPass(trace, step);

    const std::vector<int> launcher = launchers(trace, top);
    std::vector<std::pair<double, double>> spans(ranges.size(), {kInfinity, -kInfinity});
    for (std::size_t i = 0; i < trace.gpuWork.size(); ++i) {
        const TraceGpuWork& w = trace.gpuWork[i];
        result.hasGpuWork = true;
        const auto it = launcher[i] >= 0 ? where.find(launcher[i]) : where.end();
        if (it == where.end()) {
            result.unlaunchedGpuUs += w.dur;
            continue;
        }
        TraceStep& step = result.steps[it->second.first];
        step.ops[it->second.second].gpuUs += w.dur;
        if (w.kind == GpuWorkKind::Memcpy)
            step.ops[it->second.second].memcpyUs += w.dur;
        step.gpuUs += w.dur;
        auto& span = spans[it->second.first];
        span = {std::min(span.first, w.ts), std::max(span.second, w.ts + w.dur)};
    }
    for (std::size_t s = 0; s < ranges.size(); ++s)
        if (spans[s].second > spans[s].first)
            result.steps[s].gpuSpanUs = spans[s].second - spans[s].first;
    // A step cut at Optimizer.step with nothing in it (a trailing range) is no step.
    std::erase_if(result.steps, [](const TraceStep& s) { return s.ops.empty(); });
    return result;
}

std::vector<int> gpuWorkLaunchers(const KinetoTrace& trace, const std::function<int(int, double)>& operatorAt,
                                  const std::unordered_map<std::int64_t, int>& byExternal)
{
    std::unordered_map<std::int64_t, const TraceLaunch*> byCorrelation;
    for (const TraceLaunch& l : trace.launches)
        if (l.correlation >= 0)
            byCorrelation.emplace(l.correlation, &l);
    std::map<std::pair<int, double>, std::int64_t> flowEnds;       // (thread, ts) of an "f" -> id
    std::unordered_map<std::int64_t, const TraceFlow*> flowStarts; // id -> its "s"
    for (const TraceFlow& f : trace.flows) {
        if (f.start)
            flowStarts.emplace(f.id, &f);
        else
            flowEnds.emplace(std::make_pair(f.thread, f.ts), f.id);
    }
    std::vector<int> result(trace.gpuWork.size(), -1);
    for (std::size_t i = 0; i < trace.gpuWork.size(); ++i) {
        const TraceGpuWork& w = trace.gpuWork[i];
        int op = -1;
        if (const auto l = byCorrelation.find(w.correlation); w.correlation >= 0 && l != byCorrelation.end())
            op = operatorAt(l->second->thread, l->second->ts);
        if (op < 0)
            if (const auto f = flowEnds.find({w.thread, w.ts}); f != flowEnds.end())
                if (const auto s = flowStarts.find(f->second); s != flowStarts.end())
                    op = operatorAt(s->second->thread, s->second->ts);
        if (op < 0)
            if (const auto e = byExternal.find(w.externalId); w.externalId >= 0 && e != byExternal.end())
                op = e->second;
        result[i] = op;
    }
    return result;
}

std::string formatTraceMs(double us)
{
    char text[32];
    std::snprintf(text, sizeof text, us >= 10'000.0 ? "%.1f ms" : "%.2f ms", us / 1000.0);
    return text;
}

std::string formatShare(double share)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", 100.0 * share);
    return text;
}

} // namespace post
