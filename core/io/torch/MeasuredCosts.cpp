#include "core/io/torch/MeasuredCosts.h"

#include "core/graph/GraphBuilder.h"
#include "core/io/json/JsonInput.h"
#include "core/util/EmbeddedText.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>

namespace post {
namespace {

constexpr std::string_view kGradSuffix = "/grad";
constexpr int kCpu = static_cast<int>(DeviceKind::Cpu);
// The alignment keeps a byte per (operator, op) pair: 200 MB at most.
constexpr std::size_t kMaxAlignmentCells = 200'000'000;

using AtenTable = std::unordered_map<std::string, std::set<std::string, std::less<>>>;

// python/post_torch/aten_of_onnx.json, compiled in (core/CMakeLists.txt).
const AtenTable& atenOfOnnx()
{
    static const AtenTable table = [] {
        AtenTable t;
        for (const EmbeddedText& file : embeddedTorchTables())
            if (file.name == "aten_of_onnx") {
                const nlohmann::json doc = nlohmann::json::parse(file.text); // outlives the loop
                for (const auto& [type, atens] : doc.at("table").items())
                    for (const auto& aten : atens)
                        t[type].insert(aten.get<std::string>());
            }
        return t;
    }();
    return table;
}

bool isForward(const Op& op) { return !std::string_view(op.name).ends_with(kGradSuffix); }

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

struct TraceOp {
    std::string name;
    double ts = 0.0;
    double dur = 0.0;
    double tid = 0.0;
};

// The top-level CPU operators of a torch.profiler Chrome trace, in time order: "X" events of
// category "cpu_op" (PyTorch 2.x: {"traceEvents": [...]}) or, without a category, named
// "aten::..." (PyTorch 1.13: a bare array), not inside another such event of the same thread.
std::vector<TraceOp> topLevelOperators(const JsonInput& in, const nlohmann::json& root)
{
    const nlohmann::json& events = in.array(root.is_array() ? root : in.require(root, "traceEvents", {}), "traceEvents");
    std::vector<TraceOp> ops;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const nlohmann::json& e = events[i];
        if (!e.is_object() || e.value("ph", "") != "X")
            continue;
        const bool cpuOp = e.contains("cat") ? e.value("cat", "") == "cpu_op"
                                             : std::string_view(e.value("name", "")).starts_with("aten::");
        if (!cpuOp)
            continue;
        const std::string path = JsonInput::element("traceEvents", i);
        TraceOp op;
        op.name = in.string(in.require(e, "name", path), JsonInput::member(path, "name"));
        op.ts = in.number(in.require(e, "ts", path), JsonInput::member(path, "ts"));
        op.dur = in.within(in.require(e, "dur", path), JsonInput::member(path, "dur"), 0.0, GraphBuilder::kMaxTimeUs);
        if (const nlohmann::json* tid = in.find(e, "tid"); tid && tid->is_number())
            op.tid = tid->get<double>();
        ops.push_back(std::move(op));
    }
    std::stable_sort(ops.begin(), ops.end(), [](const TraceOp& a, const TraceOp& b) {
        return a.tid != b.tid ? a.tid < b.tid : a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
    });
    std::vector<TraceOp> top;
    double openEnd = -1.0, openTid = 0.0;
    for (TraceOp& op : ops) {
        if (!top.empty() && op.tid == openTid && op.ts < openEnd)
            continue; // nested inside the last top-level operator
        openEnd = op.ts + op.dur;
        openTid = op.tid;
        top.push_back(std::move(op));
    }
    std::stable_sort(top.begin(), top.end(), [](const TraceOp& a, const TraceOp& b) { return a.ts < b.ts; });
    return top;
}

// The matching rule of python/post_torch/profile.py, over the whole graph: the longest common
// subsequence of the operators and the forward ops, where an operator and an op match when the
// op's kind lists the operator; an operator left out adds its time to the op matched before it.
// (Greedy matching would let a stray operator, such as BatchNorm's counter increment in
// training mode, an aten::add_, take a later Add and leave everything in between unmatched.)
std::unordered_map<std::string, double> matchTrace(const Graph& graph, const std::vector<TraceOp>& operators,
                                                   const std::string& source)
{
    std::vector<OpId> forward;
    const AtenTable& table = atenOfOnnx();
    for (OpId op = 0; op < graph.opCount(); ++op)
        if (isForward(graph.op(op)) && table.count(graph.op(op).type))
            forward.push_back(op); // ops of a kind no operator comes from cannot match
    const std::size_t n = operators.size(), m = forward.size();
    if (n == 0 || m == 0)
        return {};
    if (n * m > kMaxAlignmentCells)
        throw InputError(source, {},
                         "the trace has " + std::to_string(n) + " operators for " + std::to_string(m)
                             + " ops: too many to align (at most " + std::to_string(kMaxAlignmentCells)
                             + " pairs); profile fewer steps");
    const auto matches = [&](std::size_t i, std::size_t j) {
        return table.at(graph.op(forward[j]).type).count(operators[i].name) > 0;
    };
    // length[i][j]: LCS of operators[i..] and forward[j..], two rows at a time; the choices are
    // kept as one byte a cell (0: match, 1: skip the operator, 2: skip the op).
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
    std::unordered_map<std::string, double> times;
    std::optional<OpId> last;
    for (std::size_t i = 0, j = 0; i < n;) {
        const std::uint8_t c = j < m ? choice[i * m + j] : 1;
        if (c == 0) {
            last = forward[j];
            times[graph.op(*last).name] += operators[i].dur;
            ++i;
            ++j;
        } else if (c == 1) {
            if (last)
                times[graph.op(*last).name] += operators[i].dur;
            ++i;
        } else {
            ++j;
        }
    }
    return times;
}

} // namespace

Graph applyMeasuredCosts(const Graph& graph, const std::string& path, MeasuredCostsReport* report)
{
    const JsonInput in(path);
    const nlohmann::json root = in.parse(readFileText(path));
    const bool isTrace = root.is_array() || (root.is_object() && root.contains("traceEvents"));
    if (!isTrace && !(root.is_object() && root.contains("format")))
        in.fail({}, "neither a post-costs/1 file nor a Chrome trace (no \"format\" and no \"traceEvents\")");
    const std::unordered_map<std::string, double> measured = isTrace
        ? matchTrace(graph, topLevelOperators(in, root), path)
        : readPostCosts(in, root);
    if (!isTrace)
        for (const auto& [name, us] : measured)
            if (!graph.find(name))
                in.fail(JsonInput::member("forward_us", name),
                        "op \"" + name + "\" is not in graph \"" + graph.name() + "\"");

    MeasuredCostsReport local;
    MeasuredCostsReport& r = report ? *report : local;
    r = {};
    r.source = path;
    GraphBuilder builder(graph.name());
    builder.reserve(static_cast<size_t>(graph.opCount()), static_cast<size_t>(graph.edgeCount()));
    for (OpId id = 0; id < graph.opCount(); ++id) {
        Op op = graph.op(id);
        std::string_view forwardName = op.name;
        const bool grad = forwardName.ends_with(kGradSuffix);
        if (grad)
            forwardName.remove_suffix(kGradSuffix.size());
        const auto it = measured.find(std::string(forwardName));
        if (!grad) {
            ++r.forwardOps;
            if (it == measured.end())
                r.unmatched.push_back(op.name);
            else
                ++r.matched;
        }
        if (it != measured.end()) {
            double us = it->second;
            if (grad) {
                const auto forward = graph.find(forwardName);
                const double estimated = forward ? graph.op(*forward).timeUs[kCpu] : 0.0;
                us = estimated > 0.0 ? it->second * (op.timeUs[kCpu] / estimated) : op.timeUs[kCpu];
            }
            if (std::isfinite(us)) {
                op.timeUs[kCpu] = us;
                op.measuredKinds |= 1U << kCpu;
            }
        }
        builder.addOp(std::move(op));
    }
    for (EdgeId e = 0; e < graph.edgeCount(); ++e)
        builder.addEdge(graph.edge(e).from, graph.edge(e).to, graph.edge(e).bytes);
    return std::move(builder).build();
}

} // namespace post
