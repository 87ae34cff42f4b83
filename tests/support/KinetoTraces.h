#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

// Small torch.profiler (Kineto) traces for the measured-costs tests, in either layout
// PyTorch writes (docs/pytorch.md, "Measured costs"). Operators are laid out one after the
// other in time; each top-level operator has a nested one, and a GPU operator launches one
// kernel through a runtime call, linked by correlation id (and by flow arrows in 2.x).
namespace testdata {

enum class KinetoLayout { PyTorch18, PyTorch2 };

class KinetoTraceWriter {
public:
    static constexpr int kMainThread = 100;
    static constexpr int kAutogradThread = 200;

    explicit KinetoTraceWriter(KinetoLayout layout)
        : layout_(layout)
    {
    }

    // Kernels without args.correlation / "External id": only the flow arrows link them (2.x).
    KinetoTraceWriter& linkByFlowsOnly()
    {
        flowsOnly_ = true;
        return *this;
    }

    // A top-level CPU operator of `cpuUs` on `thread`, launching one kernel of `gpuUs` (none
    // when 0), with autograd sequence number `seq` (-1: none).
    KinetoTraceWriter& op(const std::string& name, double gpuUs, std::int64_t seq = -1, int thread = kMainThread,
                          double cpuUs = 20.0)
    {
        const double ts = t_;
        const std::int64_t ext = ++external_;
        nlohmann::json args = {{"External id", ext}};
        if (seq >= 0)
            args["Sequence number"] = seq;
        events_.push_back(cpuEvent(name, thread, ts, cpuUs, args));
        nlohmann::json nested = {{"External id", ++external_}};
        events_.push_back(cpuEvent("aten::empty", thread, ts + 1, 1, nested)); // inside, never counted twice
        if (gpuUs > 0.0)
            launch(thread, ts + 2, ext, gpuUs);
        t_ += cpuUs + 1.0;
        return *this;
    }

    // A backward node: 2.x wraps it in "autograd::engine::evaluate_function: NAME0".
    KinetoTraceWriter& backward(const std::string& name, double gpuUs, std::int64_t seq)
    {
        const std::string full = layout_ == KinetoLayout::PyTorch2 ? "autograd::engine::evaluate_function: " + name + "0"
                                                                   : name;
        return op(full, gpuUs, seq, kAutogradThread);
    }

    // A range (ProfilerStep#N, Optimizer.step#SGD.step) over what `body` adds: an operator in
    // 1.8, a user annotation in 2.x.
    template <typename F> KinetoTraceWriter& range(const std::string& name, F&& body)
    {
        const double begin = t_;
        t_ += 1.0;
        body(*this);
        t_ += 1.0;
        nlohmann::json e = cpuEvent(name, kMainThread, begin, t_ - begin, {{"External id", ++external_}});
        if (layout_ == KinetoLayout::PyTorch2)
            e["cat"] = "user_annotation";
        events_.push_back(e);
        return *this;
    }

    nlohmann::json document() const
    {
        nlohmann::json doc = {{"schemaVersion", 1},
                              {"deviceProperties", {{{"id", 0}, {"name", "Tesla V100-SXM2-16GB"}}}},
                              {"traceEvents", events_}};
        return doc;
    }
    std::string text() const { return document().dump(1); }

private:
    bool v18() const { return layout_ == KinetoLayout::PyTorch18; }
    nlohmann::json tid(int thread) const
    {
        return v18() ? nlohmann::json(std::to_string(thread)) : nlohmann::json(thread);
    }

    nlohmann::json cpuEvent(const std::string& name, int thread, double ts, double dur, nlohmann::json args) const
    {
        return {{"ph", "X"},          {"cat", v18() ? "Operator" : "cpu_op"},
                {"name", name},       {"pid", 1},
                {"tid", tid(thread)}, {"ts", ts},
                {"dur", dur},         {"args", std::move(args)}};
    }

    void launch(int thread, double ts, std::int64_t external, double gpuUs)
    {
        const std::int64_t correlation = ++correlation_;
        nlohmann::json runtimeArgs = {{"correlation", correlation}};
        runtimeArgs[v18() ? "external id" : "External id"] = external;
        events_.push_back({{"ph", "X"},
                           {"cat", v18() ? "Runtime" : "cuda_runtime"},
                           {"name", "cudaLaunchKernel"},
                           {"pid", 1},
                           {"tid", tid(thread)},
                           {"ts", ts},
                           {"dur", 3},
                           {"args", runtimeArgs}});
        gpuTime_ = std::max(gpuTime_, ts + 5.0);
        nlohmann::json kernelArgs = {{"device", 0}, {"stream", 7}};
        if (!flowsOnly_) {
            kernelArgs["correlation"] = correlation;
            kernelArgs[v18() ? "external id" : "External id"] = external;
        }
        const nlohmann::json stream = v18() ? nlohmann::json("stream 7") : nlohmann::json(7);
        events_.push_back({{"ph", "X"},
                           {"cat", v18() ? "Kernel" : "kernel"},
                           {"name", "volta_sgemm_128x64_nn"},
                           {"pid", 0},
                           {"tid", stream},
                           {"ts", gpuTime_},
                           {"dur", gpuUs},
                           {"args", kernelArgs}});
        if (!v18()) {
            events_.push_back({{"ph", "s"},
                               {"cat", "ac2g"},
                               {"name", "ac2g"},
                               {"id", correlation},
                               {"pid", 1},
                               {"tid", tid(thread)},
                               {"ts", ts}});
            events_.push_back({{"ph", "f"},
                               {"cat", "ac2g"},
                               {"name", "ac2g"},
                               {"id", correlation},
                               {"pid", 0},
                               {"tid", stream},
                               {"ts", gpuTime_},
                               {"bp", "e"}});
        }
        gpuTime_ += gpuUs;
    }

    KinetoLayout layout_;
    bool flowsOnly_ = false;
    nlohmann::json events_ = nlohmann::json::array();
    double t_ = 1000.0;
    double gpuTime_ = 0.0;
    std::int64_t external_ = 0;
    std::int64_t correlation_ = 0;
};

} // namespace testdata
