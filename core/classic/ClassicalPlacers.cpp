#include "core/classic/ClassicalPlacers.h"

#include "core/classic/CpuPlacer.h"
#include "core/classic/MEtfPlacer.h"
#include "core/classic/MSctPlacer.h"
#include "core/classic/MTopoPlacer.h"
#include "core/classic/MetisPlacer.h"
#include "core/classic/OffloadPlacer.h"
#include "core/classic/RoundRobinPlacer.h"
#include "core/classic/SingleDevicePlacer.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <optional>
#include <thread>

namespace post {
namespace {

template <class T> std::function<std::unique_ptr<Placer>()> make()
{
    return [] { return std::make_unique<T>(); };
}

} // namespace

const std::vector<ClassicalPlacerRow>& classicalPlacerRows()
{
    static const std::vector<ClassicalPlacerRow> rows = {
        {"single", make<SingleDevicePlacer>(),
         "Every op on one device: the fastest that holds the graph (the CPU where no GPU does)"},
        {"cpu", make<CpuPlacer>(), "Every op on the CPU"},
        {"round-robin", make<RoundRobinPlacer>(), "Ops dealt to the GPUs in turn, memory permitting", 4},
        {"m-topo", make<MTopoPlacer>(), "Baechi m-TOPO: topological order split into equal-compute runs", 3},
        {"m-etf", make<MEtfPlacer>(), "Baechi m-ETF: earliest task first list scheduling, memory-aware", 1},
        {"m-sct", make<MSctPlacer>(), "Baechi m-SCT: m-ETF plus favourite children from an LP", 2, true},
        {"metis", make<MetisPlacer>(), "METIS k-way min-cut partition balanced by compute", 5},
        {"offload", make<OffloadPlacer>(),
         "m-TOPO after moving to the CPU the groups it runs at the least extra time per byte, until the GPUs "
         "hold the rest"},
    };
    return rows;
}

const ClassicalPlacerRow* findClassicalPlacer(const std::string& name)
{
    for (const ClassicalPlacerRow& row : classicalPlacerRows())
        if (row.name == name)
            return &row;
    return nullptr;
}

std::vector<std::string> warmStartCandidates()
{
    std::vector<const ClassicalPlacerRow*> rows;
    for (const ClassicalPlacerRow& row : classicalPlacerRows())
        if (row.warmStartOrder > 0)
            rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(), [](const ClassicalPlacerRow* a, const ClassicalPlacerRow* b) {
        return a->warmStartOrder < b->warmStartOrder;
    });
    std::vector<std::string> names;
    for (const ClassicalPlacerRow* row : rows)
        names.push_back(row->name);
    return names;
}

std::vector<std::string> classicalStartOrder()
{
    std::vector<std::string> names, last;
    for (const std::string& name : warmStartCandidates())
        (findClassicalPlacer(name)->lastAmongStarts ? last : names).push_back(name);
    for (const ClassicalPlacerRow& row : classicalPlacerRows())
        if (row.warmStartOrder == 0)
            (row.lastAmongStarts ? last : names).push_back(row.name);
    names.insert(names.end(), last.begin(), last.end());
    return names;
}

ClassicalRunHooks deadlineHooks(std::function<double()> secondsLeft, std::function<bool()> stopRequested,
                                bool firstDespiteStop)
{
    ClassicalRunHooks hooks;
    hooks.mayStart = [=](size_t starts) {
        const bool stop = stopRequested();
        if (starts == 0)
            return firstDespiteStop || !stop;
        return !stop && secondsLeft() > 0.0;
    };
    hooks.adjust = [=](PlaceContext& quiet) {
        if (const double left = secondsLeft(); std::isfinite(left))
            quiet.seconds = std::max(1e-3, left);
    };
    return hooks;
}

namespace {

// Runs `row` as runClassicalPlacers does (without its `done`): its start, or none when it does not
// apply (a failure the hooks skip).
std::optional<ClassicalStart> runOne(const PlaceContext& context, const std::string& name, size_t index, size_t count,
                                     const ClassicalRunHooks& hooks)
{
    const ClassicalPlacerRow* row = findClassicalPlacer(name);
    if (!row)
        return std::nullopt;
    if (hooks.starting)
        hooks.starting(name, index, count);
    PlaceContext quiet = context;
    quiet.observer = nullptr;
    if (hooks.adjust)
        hooks.adjust(quiet);
    try {
        return ClassicalStart{name, row->make()->place(quiet)};
    } catch (const std::exception&) {
        // A placer that does not apply to this cluster (cpu without a CPU) starts nothing.
        if (!hooks.skipFailures)
            throw;
        return std::nullopt;
    }
}

// The placers before `end` of `names`, `threads` at a time, each taking the next one not yet
// claimed while mayStart allows; their starts by index.
std::vector<std::optional<ClassicalStart>> runAtOnce(const PlaceContext& context, const std::vector<std::string>& names,
                                                     size_t end, int threads, const ClassicalRunHooks& hooks)
{
    std::vector<std::optional<ClassicalStart>> results(end);
    std::vector<std::exception_ptr> errors(end);
    std::atomic<size_t> next{0};
    std::atomic<bool> closed{false};
    auto work = [&] {
        for (;;) {
            const size_t i = next.fetch_add(1);
            if (i >= end || closed.load())
                return;
            if (hooks.mayStart && !hooks.mayStart(i)) {
                closed.store(true); // as the sequential loop: no placer after one refused
                return;
            }
            try {
                results[i] = runOne(context, names[i], i, names.size(), hooks);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < threads && static_cast<size_t>(t) < end; ++t)
        workers.emplace_back(work);
    work();
    for (std::thread& w : workers)
        w.join();
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);
    return results;
}

} // namespace

std::vector<ClassicalStart> runClassicalPlacers(const PlaceContext& context, const std::vector<std::string>& names,
                                                const ClassicalRunHooks& hooks)
{
    std::vector<ClassicalStart> starts;
    const int threads = hooks.threads > 0 ? hooks.threads : static_cast<int>(std::thread::hardware_concurrency());
    // Those before the first lastAmongStarts placer may run at once; the rest one at a time.
    size_t together = 0;
    if (threads > 1)
        while (together < names.size()) {
            const ClassicalPlacerRow* row = findClassicalPlacer(names[together]);
            if (row && row->lastAmongStarts)
                break;
            ++together;
        }
    if (together > 1) {
        for (std::optional<ClassicalStart>& start : runAtOnce(context, names, together, threads, hooks))
            if (start) {
                starts.push_back(std::move(*start));
                if (hooks.done)
                    hooks.done(starts.back());
            }
    } else {
        together = 0;
    }
    for (size_t i = together; i < names.size(); ++i) {
        if (hooks.mayStart && !hooks.mayStart(threads > 1 ? i : starts.size()))
            break;
        std::optional<ClassicalStart> start = runOne(context, names[i], i, names.size(), hooks);
        if (!start)
            continue;
        starts.push_back(std::move(*start));
        if (hooks.done)
            hooks.done(starts.back());
    }
    return starts;
}

void sortStarts(std::vector<ClassicalStart>& starts)
{
    std::stable_sort(starts.begin(), starts.end(),
                     [](const ClassicalStart& a, const ClassicalStart& b) { return betterResult(a.result, b.result); });
}

const ClassicalStart& bestStart(const std::vector<ClassicalStart>& starts, const std::string& clusterName,
                                const std::string& who)
{
    if (starts.empty())
        throw InputError(clusterName, "devices", who + " found no classical placement to start from");
    size_t best = 0;
    for (size_t i = 1; i < starts.size(); ++i)
        if (betterResult(starts[i].result, starts[best].result))
            best = i;
    return starts[best];
}

} // namespace post
