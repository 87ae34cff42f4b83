#include "core/io/torch/KinetoTrace.h"

#include "core/io/json/JsonInput.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <map>
#include <unordered_map>

namespace post {
namespace {

using nlohmann::json;

enum class EventKind { Ignored, Operator, Annotation, Launch, Kernel, Memcpy, Memset };

// The category of a complete ("X") event; `layout` learns which PyTorch wrote it.
EventKind kindOf(const json& event, std::string_view name, int& layout)
{
    const auto cat = event.find("cat");
    if (cat == event.end() || !cat->is_string()) { // 1.13 bare array: every event is a record function
        if (name.empty())
            return EventKind::Ignored;
        return name.starts_with("Optimizer.") || name.starts_with("ProfilerStep#") ? EventKind::Annotation
                                                                                   : EventKind::Operator;
    }
    static const std::unordered_map<std::string_view, std::pair<EventKind, int>> kinds = {
        {"Operator", {EventKind::Operator, 1}},
        {"cpu_op", {EventKind::Operator, 2}},
        {"user_annotation", {EventKind::Annotation, 2}},
        {"Runtime", {EventKind::Launch, 1}},
        {"cuda_runtime", {EventKind::Launch, 2}},
        {"cuda_driver", {EventKind::Launch, 2}},
        {"Kernel", {EventKind::Kernel, 1}},
        {"kernel", {EventKind::Kernel, 2}},
        {"Memcpy", {EventKind::Memcpy, 1}},
        {"gpu_memcpy", {EventKind::Memcpy, 2}},
        {"Memset", {EventKind::Memset, 1}},
        {"gpu_memset", {EventKind::Memset, 2}},
    };
    const auto it = kinds.find(cat->get_ref<const std::string&>());
    if (it == kinds.end())
        return EventKind::Ignored;
    layout = std::max(layout, it->second.second);
    return it->second.first;
}

// pid and tid are numbers in some layouts and strings in others ("25738", "stream 7").
std::string idText(const json& event, const char* key)
{
    const auto it = event.find(key);
    if (it == event.end())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_number_integer())
        return std::to_string(it->get<std::int64_t>());
    return it->dump();
}

class EventReader {
public:
    EventReader(const JsonInput& in, KinetoTrace& trace)
        : in_(in)
        , trace_(trace)
    {
    }

    void read(const json& event, std::size_t index);
    int layout() const { return layout_; }

private:
    int thread(const json& event)
    {
        std::string key = idText(event, "pid") + "/" + idText(event, "tid");
        auto [it, inserted] = threads_.emplace(std::move(key), static_cast<int>(trace_.threads.size()));
        if (inserted)
            trace_.threads.push_back(it->first);
        return it->second;
    }
    // An integer arg under any of `keys` (the layouts spell them differently), or -1.
    std::int64_t intArg(const json& args, std::initializer_list<const char*> keys, const std::string& path) const
    {
        for (const char* key : keys)
            if (const auto it = args.find(key); it != args.end())
                return id(*it, JsonInput::member(JsonInput::member(path, "args"), key));
        return -1;
    }
    // An id: an integer (the trace's ids are below 2^63; a double past that has no int64).
    std::int64_t id(const json& value, const std::string& path) const
    {
        const double number = in_.within(value, path, -9.2e18, 9.2e18);
        return static_cast<std::int64_t>(number);
    }

    const JsonInput& in_;
    KinetoTrace& trace_;
    std::unordered_map<std::string, int> threads_;
    int layout_ = 0;
};

void EventReader::read(const json& e, std::size_t index)
{
    if (!e.is_object())
        return;
    const auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string())
        return;
    const std::string& phase = ph->get_ref<const std::string&>();
    const std::string path = JsonInput::element("traceEvents", index);
    if (phase == "s" || phase == "f") {
        const std::string cat = in_.stringOr(e, "cat", path, "");
        if (cat != "ac2g" && !(cat == "async" && in_.stringOr(e, "name", path, "") == "launch"))
            return;
        TraceFlow flow;
        flow.id = id(in_.require(e, "id", path), JsonInput::member(path, "id"));
        flow.start = phase == "s";
        flow.thread = thread(e);
        flow.ts = in_.number(in_.require(e, "ts", path), JsonInput::member(path, "ts"));
        trace_.flows.push_back(flow);
        return;
    }
    if (phase != "X")
        return;
    const auto nameIt = e.find("name");
    const std::string_view name = nameIt != e.end() && nameIt->is_string()
        ? std::string_view(nameIt->get_ref<const std::string&>())
        : std::string_view();
    const EventKind kind = kindOf(e, name, layout_);
    if (kind == EventKind::Ignored)
        return;
    const double ts = in_.number(in_.require(e, "ts", path), JsonInput::member(path, "ts"));
    const double dur = in_.nonNegative(in_.require(e, "dur", path), JsonInput::member(path, "dur"));
    static const json kNoArgs = json::object();
    const auto argsIt = e.find("args");
    const json& args = argsIt != e.end() && argsIt->is_object() ? *argsIt : kNoArgs;
    const std::int64_t external = intArg(args, {"External id", "external id"}, path);
    const std::int64_t correlation = intArg(args, {"correlation"}, path);
    switch (kind) {
    case EventKind::Operator:
    case EventKind::Annotation: {
        TraceOperator op;
        op.name = in_.string(in_.require(e, "name", path), JsonInput::member(path, "name"));
        op.thread = thread(e);
        op.ts = ts;
        op.dur = dur;
        op.externalId = external;
        op.sequence = intArg(args, {"Sequence number"}, path);
        op.recordFunctionId = intArg(args, {"Record function id"}, path);
        op.annotation = kind == EventKind::Annotation || op.name.starts_with("ProfilerStep#");
        trace_.operators.push_back(std::move(op));
        break;
    }
    case EventKind::Launch:
        trace_.launches.push_back({thread(e), ts, correlation, external});
        break;
    default: {
        TraceGpuWork work;
        work.kind = kind == EventKind::Kernel ? GpuWorkKind::Kernel
            : kind == EventKind::Memcpy       ? GpuWorkKind::Memcpy
                                              : GpuWorkKind::Memset;
        work.thread = thread(e);
        work.device = static_cast<int>(intArg(args, {"device"}, path));
        work.ts = ts;
        work.dur = dur;
        work.correlation = correlation;
        work.externalId = external;
        trace_.gpuWork.push_back(work);
        break;
    }
    }
}

void readDeviceNames(const json& root, KinetoTrace& trace)
{
    const auto props = root.find("deviceProperties");
    if (props == root.end() || !props->is_array())
        return;
    for (const json& p : *props) {
        if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
            continue;
        const json id = p.value("id", json(static_cast<int>(trace.deviceNames.size())));
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > 4096)
            continue;
        const auto i = static_cast<std::size_t>(id.get<std::int64_t>());
        if (trace.deviceNames.size() <= i)
            trace.deviceNames.resize(i + 1);
        trace.deviceNames[i] = p["name"].get<std::string>();
    }
}

std::string_view skipBlanks(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' || text.front() == '\t'))
        text.remove_prefix(1);
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    return text;
}

} // namespace

std::string KinetoTrace::gpuName() const
{
    std::map<int, double> busy;
    for (const TraceGpuWork& w : gpuWork)
        busy[w.device] += w.dur;
    int best = -1;
    double most = -1.0;
    for (const auto& [device, us] : busy)
        if (us > most) {
            most = us;
            best = device;
        }
    if (best < 0 && !gpuWork.empty())
        best = 0; // no "device" arg: the first listed
    if (best < 0 || static_cast<std::size_t>(best) >= deviceNames.size())
        return {};
    return deviceNames[static_cast<std::size_t>(best)];
}

KinetoTrace parseKinetoTrace(std::string_view text, const std::string& source)
{
    // Event by event: the document is never held whole (a 200 MB trace was 1.9 GB as one).
    const JsonInput in(source);
    KinetoTrace trace;
    trace.source = source;
    EventReader reader(in, trace);
    const json rest = in.parseStreaming(text, "traceEvents",
                                        [&](const json& event, std::size_t i) { reader.read(event, i); });
    if (!rest.is_array() && !(rest.is_object() && rest.contains("traceEvents")))
        in.fail({}, "not a Chrome trace: neither an array of events nor an object with \"traceEvents\"");
    if (rest.is_object()) {
        in.array(rest["traceEvents"], "traceEvents");
        readDeviceNames(rest, trace);
    }
    trace.layout = reader.layout() == 1 ? "PyTorch 1.8" : reader.layout() == 2 ? "PyTorch 2.x" : "CPU-only";
    return trace;
}

KinetoTrace kinetoTraceFromJson(const json& root, const std::string& source)
{
    const JsonInput in(source);
    if (!root.is_array() && !(root.is_object() && root.contains("traceEvents")))
        in.fail({}, "not a Chrome trace: neither an array of events nor an object with \"traceEvents\"");
    const json& events = in.array(root.is_array() ? root : root["traceEvents"], "traceEvents");
    KinetoTrace trace;
    trace.source = source;
    EventReader reader(in, trace);
    for (std::size_t i = 0; i < events.size(); ++i)
        reader.read(events[i], i);
    if (root.is_object())
        readDeviceNames(root, trace);
    trace.layout = reader.layout() == 1 ? "PyTorch 1.8" : reader.layout() == 2 ? "PyTorch 2.x" : "CPU-only";
    return trace;
}

bool looksLikeProfilerTrace(std::string_view text)
{
    text = skipBlanks(text);
    const std::string_view head = text.substr(0, 64 << 10);
    if (text.starts_with("{"))
        return head.find("\"traceEvents\"") != std::string_view::npos
            && head.find("post-graph") == std::string_view::npos;
    if (text.starts_with("[")) {
        const std::string_view first = skipBlanks(text.substr(1));
        const std::size_t end = first.find('}');
        return first.starts_with("{") && end != std::string_view::npos
            && first.substr(0, end).find("\"ph\"") != std::string_view::npos;
    }
    return false;
}

void refuseProfilerTraceAsGraph(std::string_view text, const std::string& source)
{
    if (looksLikeProfilerTrace(text))
        throw InputError(source, {},
                         "a torch.profiler (Chrome/Kineto) trace, not a graph: it holds measured op times; give the "
                         "model's graph as the graph and this file as --costs "
                             + source + " (docs/pytorch.md, \"Measured costs\")");
}

} // namespace post
