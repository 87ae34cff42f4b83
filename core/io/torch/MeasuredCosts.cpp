#include "core/io/torch/MeasuredCosts.h"

#include "core/graph/GraphBuilder.h"
#include "core/io/json/JsonInput.h"
#include "core/io/torch/AtenOps.h"
#include "core/io/torch/KinetoTrace.h"
#include "core/io/torch/TraceSteps.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

constexpr std::string_view kGradSuffix = "/grad";
// The alignment keeps a byte per (operator, op) pair: 200 MB at most.
constexpr std::size_t kMaxAlignmentCells = 200'000'000;
// The checks of an honest match (docs/pytorch.md): the share of the graph's matchable
// forward ops the trace matches, and the share of the step's time that lands on the graph.
constexpr double kMinOpShare = 0.9;
constexpr double kMinTimeShare = 0.8;
const double kAbsent = std::numeric_limits<double>::quiet_NaN();

// Every operator name the table lists: an operator of a kind some ONNX op comes from.
const std::set<std::string, std::less<>>& knownOperators()
{
    static const std::set<std::string, std::less<>> names = [] {
        std::set<std::string, std::less<>> all;
        for (const auto& [type, atens] : atenOfOnnx())
            all.insert(atens.begin(), atens.end());
        return all;
    }();
    return names;
}

// Whether --costs text is a Chrome trace, read event by event: an array of events, or an
// object with "traceEvents" near its start (KinetoTrace's looksLikeProfilerTrace).
bool looksLikeProfilerTraceText(std::string_view text)
{
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    return (first != std::string_view::npos && text[first] == '[') || looksLikeProfilerTrace(text);
}

bool isGrad(const Op& op) { return std::string_view(op.name).ends_with(kGradSuffix); }
// The step's host-to-device input copy (docs/cost-model.md, "Training step") is no forward op:
// a profile has no operator for it, and it keeps its estimate.
bool isInputCopy(const Op& op) { return op.type == "MemcpyHtoD"; }
bool isForward(const Op& op) { return !isGrad(op) && !isOptimizerOp(op) && !isInputCopy(op); }

// post-costs/1: {"format": "post-costs/1", "device": "cpu", "forward_us": {op: us}, ...}.
std::unordered_map<std::string, double> readPostCosts(const JsonInput& in, const nlohmann::json& root)
{
    in.requireFormat(root, "post-costs", 1);
    in.rejectUnknownKeys(root, {"format", "device", "measured_by", "created", "forward_us", "unmatched"}, {});
    if (const nlohmann::json* device = in.find(root, "device"); device && in.string(*device, "device") != "cpu")
        in.fail("device", "only CPU measurements can be applied, got \"" + device->get<std::string>() + "\"");
    std::unordered_map<std::string, double> times;
    const nlohmann::json& map = in.object(in.require(root, "forward_us", {}), "forward_us");
    for (auto it = map.begin(); it != map.end(); ++it)
        times[it.key()] = in.within(it.value(), JsonInput::member("forward_us", it.key()), 0.0, GraphBuilder::kMaxTimeUs);
    return times;
}

// post-costs/1's "x-inputs": per forward argument its shape, or null for one that is no tensor.
std::vector<std::optional<std::vector<std::int64_t>>> readProfiledInputs(const JsonInput& in, const nlohmann::json& root)
{
    std::vector<std::optional<std::vector<std::int64_t>>> inputs;
    const nlohmann::json* list = in.find(root, "x-inputs");
    if (!list)
        return inputs;
    const nlohmann::json& items = in.array(*list, "x-inputs");
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::optional<std::vector<std::int64_t>>& shape = inputs.emplace_back();
        if (items[i].is_null())
            continue;
        const std::string at = JsonInput::element("x-inputs", i);
        const nlohmann::json& dims = in.array(items[i], at);
        shape.emplace();
        for (std::size_t k = 0; k < dims.size(); ++k)
            shape->push_back(static_cast<std::int64_t>(in.within(dims[k], JsonInput::element(at, k), 0.0, 1e15)));
    }
    return inputs;
}

// The longest common subsequence of `names` (operators in time order) and `ops` (the graph's
// matchable forward ops in graph order), where an operator and an op match when the op's
// kind lists the operator: per operator, the op it is matched with, or -1. (Greedy matching
// would let a stray operator, such as BatchNorm's counter increment in training mode, take a
// later Add and leave everything in between unmatched.)
std::vector<OpId> alignByKind(const Graph& graph, const std::vector<std::string_view>& names,
                              const std::vector<OpId>& ops, const std::string& source)
{
    const std::size_t n = names.size(), m = ops.size();
    std::vector<OpId> result(n, -1);
    if (n == 0 || m == 0)
        return result;
    if (n * m > kMaxAlignmentCells)
        throw InputError(source, {},
                         "a step of the trace has " + std::to_string(n) + " operators for " + std::to_string(m)
                             + " ops: too many to align (at most " + std::to_string(kMaxAlignmentCells)
                             + " pairs); profile fewer steps or mark them with torch.profiler's schedule");
    const AtenOfOnnxTable& table = atenOfOnnx();
    const auto matches = [&](std::size_t i, std::size_t j) {
        return table.at(graph.op(ops[j]).type).count(names[i]) > 0;
    };
    // length[i][j]: LCS of names[i..] and ops[j..], two rows at a time; the choices are kept
    // as one byte a cell (0: match, 1: skip the operator, 2: skip the op).
    std::vector<std::uint8_t> choice(n * m);
    std::vector<std::uint32_t> below(m + 1, 0), row(m + 1, 0);
    for (std::size_t i = n; i-- > 0;) {
        row[m] = 0;
        for (std::size_t j = m; j-- > 0;) {
            const std::uint32_t skipOperator = below[j], skipOp = row[j + 1];
            const std::uint32_t match = matches(i, j) ? below[j + 1] + 1 : 0;
            if (match > 0 && match >= skipOperator && match >= skipOp) {
                row[j] = match;
                choice[i * m + j] = 0;
            } else if (skipOperator >= skipOp) {
                row[j] = skipOperator;
                choice[i * m + j] = 1;
            } else {
                row[j] = skipOp;
                choice[i * m + j] = 2;
            }
        }
        std::swap(row, below);
    }
    for (std::size_t i = 0, j = 0; i < n;) {
        const std::uint8_t c = j < m ? choice[i * m + j] : 1;
        if (c == 0)
            result[i++] = ops[j++];
        else if (c == 1)
            ++i;
        else
            ++j;
    }
    return result;
}

// The graph's ops by role.
struct GraphRoles {
    std::vector<OpId> matchable;           // forward ops of a kind the table lists, graph order
    std::vector<OpId> inputCopies;         // the step's host-to-device input copies (MemcpyHtoD)
    std::unordered_map<OpId, OpId> gradOf; // forward op -> its "X/grad"
    std::vector<OpId> optimizer;           // optimizer update ops
    std::vector<double> optimizerShare;    // each one's share of the optimizer's time
};

GraphRoles graphRoles(const Graph& graph)
{
    GraphRoles r;
    const AtenOfOnnxTable& table = atenOfOnnx();
    double paramBytes = 0.0;
    for (OpId id = 0; id < graph.opCount(); ++id) {
        const Op& op = graph.op(id);
        if (isInputCopy(op)) {
            r.inputCopies.push_back(id);
        } else if (isOptimizerOp(op)) {
            r.optimizer.push_back(id);
            paramBytes += op.paramBytes;
        } else if (isGrad(op)) {
            std::string_view forward = op.name;
            forward.remove_suffix(kGradSuffix.size());
            if (const auto f = graph.find(forward))
                r.gradOf[*f] = id;
        } else if (table.count(op.type)) {
            r.matchable.push_back(id); // ops of a kind no operator comes from cannot match
        }
    }
    // The optimizer's kernels (foreach, fused) cannot be told apart per parameter: the total
    // is split by the parameter bytes each update op owns (equally when none says).
    for (OpId id : r.optimizer)
        r.optimizerShare.push_back(paramBytes > 0.0 ? graph.op(id).paramBytes / paramBytes
                                                    : 1.0 / static_cast<double>(r.optimizer.size()));
    return r;
}

// One step's measured time per graph op (kAbsent: none) and what did not land.
struct StepTimes {
    std::vector<double> us;
    double total = 0.0, mapped = 0.0;
    std::map<std::string, double> unattributed;
    bool backward = false; // the step has backward operators
};

void addTime(StepTimes& t, OpId op, double us)
{
    double& slot = t.us[static_cast<std::size_t>(op)];
    slot = std::isnan(slot) ? us : slot + us;
    t.mapped += us;
}

// The ops a Linear on a sequence exports besides its MatMul, which PyTorch runs inside the
// one aten::linear matched to it: the weight's Transpose (of the MatMul's scope, fed by no op)
// and the bias's Add (of its scope, fed by the MatMul alone). Empty where there are none.
std::vector<OpId> linearParts(const Graph& graph, OpId matmul)
{
    const std::string_view name = graph.op(matmul).name;
    const std::size_t slash = name.rfind('/');
    if (slash == std::string_view::npos || slash == 0)
        return {};
    const std::string_view scope = name.substr(0, slash + 1);
    const auto inScope = [&](OpId id) {
        const std::string_view other = graph.op(id).name;
        return other.starts_with(scope) && other.find('/', scope.size()) == std::string_view::npos;
    };
    std::vector<OpId> parts;
    for (EdgeId e : graph.inEdges(matmul))
        if (const OpId from = graph.edge(e).from;
            graph.op(from).type == "Transpose" && inScope(from) && graph.inEdges(from).empty())
            parts.push_back(from);
    for (EdgeId e : graph.outEdges(matmul))
        if (const OpId to = graph.edge(e).to; graph.op(to).type == "Add" && inScope(to) && graph.inEdges(to).size() == 1)
            parts.push_back(to);
    return parts;
}

// Forward operators: aligned by kind; an operator left out between two matched ones adds
// its time to the one before it (views, copies, allocations: part of that op's work) unless
// it is of a kind the graph could have matched (then it is not this graph's: unattributed);
// before the first and after the last match it is unattributed (the input copy, the loss).
// Returns, per autograd sequence number, the graph op of the forward operator carrying it.
std::unordered_map<std::int64_t, OpId> attributeForward(const Graph& graph, const KinetoTrace& trace,
                                                        const TraceStep& step, const GraphRoles& roles, bool gpu,
                                                        StepTimes& t)
{
    std::vector<const StepOperator*> forward;
    std::vector<std::string_view> names;
    for (const StepOperator& op : step.ops)
        if (op.role == OperatorRole::Forward) {
            forward.push_back(&op);
            names.push_back(trace.operators[static_cast<std::size_t>(op.index)].name);
        }
    std::vector<OpId> match = alignByKind(graph, names, roles.matchable, trace.source);
    // A Linear on a sequence (Transpose, MatMul, Add in the graph; one aten::linear in the
    // trace): its Transpose and Add are parts of the linear's time, not ops for other operators
    // (a residual aten::add) to be aligned with. Aligned again without them, they take 0.
    std::unordered_set<OpId> parts;
    for (std::size_t i = 0; i < match.size(); ++i)
        if (match[i] >= 0 && names[i] == "aten::linear" && graph.op(match[i]).type == "MatMul")
            for (OpId part : linearParts(graph, match[i]))
                parts.insert(part);
    if (!parts.empty()) {
        std::vector<OpId> candidates;
        for (OpId id : roles.matchable)
            if (!parts.count(id))
                candidates.push_back(id);
        match = alignByKind(graph, names, candidates, trace.source);
        for (OpId part : parts)
            addTime(t, part, 0.0);
    }
    const auto first = std::find_if(match.begin(), match.end(), [](OpId id) { return id >= 0; }) - match.begin();
    const auto last = std::find_if(match.rbegin(), match.rend(), [](OpId id) { return id >= 0; }).base() - match.begin();
    std::unordered_map<std::int64_t, OpId> bySequence;
    OpId previous = -1;
    for (std::size_t i = 0; i < forward.size(); ++i) {
        const double us = gpu ? forward[i]->gpuUs : forward[i]->cpuUs;
        const auto at = static_cast<std::ptrdiff_t>(i);
        if (match[i] >= 0) {
            addTime(t, match[i], us);
            previous = match[i];
        } else if (at > first && at < last && !knownOperators().count(names[i])) {
            addTime(t, previous, us);
        } else if (gpu && at < first && forward[i]->memcpyUs > 0.0 && !roles.inputCopies.empty()) {
            // Before the first layer, a copy to the GPU: the batch's input copy (its labels' too).
            for (OpId copy : roles.inputCopies)
                addTime(t, copy, forward[i]->memcpyUs / static_cast<double>(roles.inputCopies.size()));
            if (us > forward[i]->memcpyUs)
                t.unattributed[std::string(names[i])] += us - forward[i]->memcpyUs;
        } else if (us > 0.0) {
            t.unattributed[std::string(names[i])] += us;
        }
        // Autograd numbers a node with the counter's value when it is created; operators that
        // create none carry the next node's number, so the last operator carrying a number is
        // the one whose node it is.
        for (std::int64_t seq : forward[i]->sequences)
            bySequence[seq] = match[i] >= 0 ? match[i] : -1;
    }
    return bySequence;
}

StepTimes attributeStep(const Graph& graph, const KinetoTrace& trace, const TraceStep& step, const GraphRoles& roles,
                        bool gpu)
{
    StepTimes t;
    t.us.assign(static_cast<std::size_t>(graph.opCount()), kAbsent);
    t.total = gpu ? step.gpuUs : step.cpuUs;
    const auto bySequence = attributeForward(graph, trace, step, roles, gpu, t);
    double optimizerUs = 0.0;
    OpId lastGrad = -1; // the grad op of the last backward node: it gets what runs after it
    for (const StepOperator& op : step.ops) {
        const double us = gpu ? op.gpuUs : op.cpuUs;
        if (op.role == OperatorRole::Optimizer) {
            optimizerUs += us;
        } else if (op.betweenNodes) {
            if (lastGrad >= 0)
                addTime(t, lastGrad, us);
            else if (us > 0.0)
                t.unattributed[trace.operators[static_cast<std::size_t>(op.index)].name + " (backward pass)"] += us;
        } else if (op.role == OperatorRole::Backward) {
            // Autograd's sequence number names the forward operator this one differentiates.
            t.backward = true;
            const auto forward = op.sequence >= 0 ? bySequence.find(op.sequence) : bySequence.end();
            const auto grad = forward != bySequence.end() && forward->second >= 0 ? roles.gradOf.find(forward->second)
                                                                                  : roles.gradOf.end();
            lastGrad = grad != roles.gradOf.end() ? grad->second : -1;
            if (grad != roles.gradOf.end())
                addTime(t, grad->second, us);
            else if (us > 0.0)
                t.unattributed[trace.operators[static_cast<std::size_t>(op.index)].name
                               + " (backward of an operator not in the graph)"] += us;
        }
    }
    if (roles.optimizer.empty()) {
        if (optimizerUs > 0.0)
            t.unattributed["optimizer (Optimizer.step, zero_grad, AccumulateGrad): the graph has no optimizer ops"] +=
                optimizerUs;
    } else {
        for (std::size_t k = 0; k < roles.optimizer.size(); ++k)
            addTime(t, roles.optimizer[k], optimizerUs * roles.optimizerShare[k]);
    }
    return t;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return kAbsent;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct Measured {
    std::unordered_map<OpId, double> us;
    DeviceKind kind = DeviceKind::Cpu;
    bool scaleBackward = false; // no backward in the trace: "X/grad" = measured X x estimated ratio
};

// The trace's times per graph op: the median over the steady steps.
Measured measureTrace(const Graph& graph, const KinetoTrace& trace, MeasuredCostsReport& r)
{
    const TraceSteps split = splitTraceSteps(trace);
    const bool gpu = split.hasGpuWork;
    const GraphRoles roles = graphRoles(graph);
    r.kind = gpu ? "GPU" : "CPU";
    r.gpuName = trace.gpuName();
    r.steps = static_cast<int>(split.steps.size());
    r.stepsFrom = split.stepsFrom;
    // Steady state: the first profiled step pays for warm-up (cuDNN's algorithm search, the
    // caching allocator's first allocations), so it is left out when there are others.
    const std::size_t firstUsed = split.steps.size() >= 2 ? 1 : 0;
    std::vector<StepTimes> steps;
    for (std::size_t s = firstUsed; s < split.steps.size(); ++s) {
        steps.push_back(attributeStep(graph, trace, split.steps[s], roles, gpu));
        r.stepsUsed.push_back(split.steps[s].name);
    }
    Measured m;
    m.kind = gpu ? DeviceKind::Gpu : DeviceKind::Cpu;
    if (steps.empty())
        return m;
    std::vector<double> totals, mapped, spans;
    std::map<std::string, std::vector<double>> lost;
    bool backward = false;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        totals.push_back(steps[k].total);
        mapped.push_back(steps[k].mapped);
        spans.push_back(split.steps[firstUsed + k].gpuSpanUs);
        backward = backward || steps[k].backward;
        for (const auto& [what, us] : steps[k].unattributed)
            lost[what].push_back(us);
    }
    r.stepUs = median(totals);
    r.mappedUs = median(mapped);
    if (split.unlaunchedGpuUs > 0.0) {
        // GPU work no launch could be found for (no correlation, flow or external id): part of
        // the trace's time all the same, spread over the steps.
        const double perStep = split.unlaunchedGpuUs / static_cast<double>(split.steps.size());
        r.stepUs += perStep;
        lost["GPU work without a known launch"].assign(steps.size(), perStep);
    }
    r.gpuSpanUs = median(spans);
    for (auto& [what, values] : lost) {
        values.resize(steps.size(), 0.0); // absent from a step: nothing lost there
        r.unattributed.emplace_back(what, median(values));
    }
    std::stable_sort(r.unattributed.begin(), r.unattributed.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    // An op is measured when most steps measured it; its time is the median of those.
    for (OpId id = 0; id < graph.opCount(); ++id) {
        std::vector<double> values;
        for (const StepTimes& t : steps)
            if (!std::isnan(t.us[static_cast<std::size_t>(id)]))
                values.push_back(t.us[static_cast<std::size_t>(id)]);
        if (2 * values.size() > steps.size())
            m.us[id] = median(std::move(values));
    }
    m.scaleBackward = !backward;
    return m;
}

std::string formatMs(double us) { return formatTraceMs(us); }
std::string percent(double share) { return formatShare(share); }

// Refuses a trace that is not this graph's (docs/pytorch.md, "Honest matching").
void checkCoverage(const Graph& graph, MeasuredCostsReport& r, const MeasuredCostsOptions& options)
{
    const std::string what = "the trace (" + r.kind + " times, " + r.layout + ")";
    if (r.measuredOps == 0)
        throw InputError(r.source, {},
                         "no op of graph \"" + graph.name() + "\" matches an operator of " + what + " ("
                             + std::to_string(r.matchableOps) + " forward ops could have): not this model's trace");
    if (r.stepUs > 0.0 && r.mappedUs <= 0.0)
        throw InputError(r.source, {},
                         "none of the step's " + r.kind + " time (" + formatMs(r.stepUs) + ") in " + what
                             + " lands on graph \"" + graph.name() + "\""
                             + (r.unattributed.empty() ? std::string() : ": " + r.unattributed.front().first));
    std::string problem;
    if (r.matchableOps > 0 && r.matched < kMinOpShare * r.matchableOps)
        problem = "its operators match only " + std::to_string(r.matched) + " of the " + std::to_string(r.matchableOps)
            + " forward ops of graph \"" + graph.name() + "\" (" + percent(double(r.matched) / r.matchableOps)
            + ", at least " + percent(kMinOpShare) + " needed): the operator sequence is not this model's";
    else if (r.stepUs > 0.0 && r.mappedUs < kMinTimeShare * r.stepUs)
        problem = "only " + percent(r.mappedUs / r.stepUs) + " of the step's " + r.kind + " time ("
            + formatMs(r.mappedUs) + " of " + formatMs(r.stepUs) + ") maps onto graph \"" + graph.name()
            + "\" (at least " + percent(kMinTimeShare) + " needed)"
            + (r.unattributed.empty() ? std::string() : "; the most not in the graph: " + r.unattributed.front().first);
    if (problem.empty())
        return;
    if (!options.partial)
        throw InputError(r.source, {}, what + ": " + problem + " (--costs-partial takes it anyway)");
    r.partial = true;
}

} // namespace

bool isOptimizerOp(const Op& op)
{
    const std::string_view type = op.type;
    return type.starts_with("Apply") || type.starts_with("ResourceApply");
}

void setMeasuredTime(Op& op, DeviceKind kind, double us, const std::string& source)
{
    op.timeUs[static_cast<std::size_t>(kind)] = us;
    op.measuredKinds |= 1U << static_cast<unsigned>(kind);
    op.derivedKinds &= ~(1U << static_cast<unsigned>(kind));
    op.measuredBy = source;
}

Graph applyMeasuredCosts(const Graph& graph, const std::string& path, MeasuredCostsReport* report,
                         const MeasuredCostsOptions& options)
{
    return applyMeasuredCostsText(graph, readFileText(path), path, report, options);
}

Graph applyMeasuredCostsText(const Graph& graph, std::string text, const std::string& path, MeasuredCostsReport* report,
                             const MeasuredCostsOptions& options)
{
    MeasuredCostsReport local;
    MeasuredCostsReport& r = report ? *report : local;
    r = {};
    r.source = path;
    const JsonInput in(path);
    Measured measured;
    bool isTrace = false;
    {
        std::optional<KinetoTrace> trace;
        nlohmann::json root;
        if (looksLikeProfilerTraceText(text)) {
            trace = parseKinetoTrace(text, path); // streamed: never one document (docs/performance.md)
        } else {
            root = in.parse(text);
            if (root.is_array() || (root.is_object() && root.contains("traceEvents")))
                trace = kinetoTraceFromJson(root, path);
            else if (!(root.is_object() && root.contains("format")))
                in.fail({}, "neither a post-costs/1 file nor a Chrome trace (no \"format\" and no \"traceEvents\")");
        }
        std::string().swap(text); // the trace holds what it needs
        isTrace = trace.has_value();
        if (trace) {
            r.layout = trace->layout;
            measured = measureTrace(graph, *trace, r);
        } else {
            r.layout = "post-costs/1";
            r.kind = "CPU";
            r.profiledInputs = readProfiledInputs(in, root);
            measured.scaleBackward = true;
            for (const auto& [name, us] : readPostCosts(in, root)) {
                const auto id = graph.find(name);
                if (!id)
                    in.fail(JsonInput::member("forward_us", name),
                            "op \"" + name + "\" is not in graph \"" + graph.name() + "\"");
                measured.us[*id] = us;
            }
        }
    }
    const auto kind = static_cast<std::size_t>(measured.kind);

    std::vector<Op> ops;
    ops.reserve(static_cast<size_t>(graph.opCount()));
    r.graphOps = graph.opCount();
    for (OpId id = 0; id < graph.opCount(); ++id) {
        Op op = graph.op(id);
        std::optional<double> us;
        bool scaled = false;
        if (const auto it = measured.us.find(id); it != measured.us.end())
            us = it->second;
        if (isForward(op)) {
            ++r.forwardOps;
            r.matchableOps += atenOfOnnx().count(op.type) > 0 ? 1 : 0;
            if (us)
                ++r.matched;
            else
                r.unmatched.push_back(op.name);
        } else if (!us && measured.scaleBackward && isGrad(op)) {
            // No backward in the measurement: the estimated backward/forward ratio.
            std::string_view forwardName = op.name;
            forwardName.remove_suffix(kGradSuffix.size());
            const auto forward = graph.find(forwardName);
            if (forward && measured.us.count(*forward)) {
                const double estimated = graph.op(*forward).timeUs[kind];
                us = estimated > 0.0 ? measured.us.at(*forward) * (op.timeUs[kind] / estimated) : op.timeUs[kind];
                scaled = true;
            }
        }
        if (us && std::isfinite(*us)) {
            setMeasuredTime(op, measured.kind, std::min(*us, GraphBuilder::kMaxTimeUs), path);
            ++r.measuredOps;
            r.scaledBackward += scaled ? 1 : 0;
        }
        ops.push_back(std::move(op));
    }
    if (!isTrace && r.measuredOps == 0)
        throw InputError(path, {}, "measures no op of graph \"" + graph.name() + "\" (forward_us is empty)");
    if (isTrace)
        checkCoverage(graph, r, options);
    return withOps(graph, std::move(ops));
}

std::string describeMeasuredCosts(const MeasuredCostsReport& r)
{
    std::string text = "measured " + r.kind + " times for " + std::to_string(r.matched) + " of "
        + std::to_string(r.forwardOps) + " forward ops";
    if (r.layout != "post-costs/1") {
        text += " (" + (r.gpuName.empty() ? std::string() : r.gpuName + ", ") + r.layout + " trace";
        if (r.steps > 1)
            text += "; median of " + std::to_string(r.stepsUsed.size()) + " steady steps " + r.stepsUsed.front() + ".."
                + r.stepsUsed.back() + ", the first of " + std::to_string(r.steps) + " steps (" + r.stepsFrom
                + ") left out as warm-up";
        text += ")";
        if (r.stepUs > 0.0)
            text += ": " + percent(r.mappedUs / r.stepUs) + " of the step's " + r.kind + " time ("
                + formatMs(r.mappedUs) + " of " + formatMs(r.stepUs) + ") mapped onto " + std::to_string(r.measuredOps)
                + " of " + std::to_string(r.graphOps) + " ops";
        if (r.gpuSpanUs > 0.0)
            text += "; GPU busy span " + formatMs(r.gpuSpanUs) + " per step";
        if (!r.unattributed.empty()) {
            text += "; not in the graph:";
            for (std::size_t i = 0; i < r.unattributed.size() && i < 4; ++i)
                text += (i == 0 ? " " : ", ") + r.unattributed[i].first + " " + formatMs(r.unattributed[i].second);
            if (r.unattributed.size() > 4)
                text += ", ...";
        }
        if (r.partial)
            text += " (taken under --costs-partial)";
    }
    if (r.scaledBackward > 0)
        text += "; " + std::to_string(r.scaledBackward)
            + " backward ops take their forward op's measured time x the cost model's backward/forward ratio"
              " (the measurement has no backward)";
    if (!r.unmatched.empty()) {
        text += "; not matched (estimated times kept):";
        for (std::size_t i = 0; i < r.unmatched.size() && i < 12; ++i)
            text += (i == 0 ? " " : ", ") + r.unmatched[i];
        if (r.unmatched.size() > 12)
            text += ", ... (" + std::to_string(r.unmatched.size()) + " in all)";
    }
    return text;
}

} // namespace post
