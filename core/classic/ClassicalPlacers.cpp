#include "core/classic/ClassicalPlacers.h"

#include <algorithm>
#include <cmath>

#include "core/classic/CpuPlacer.h"
#include "core/classic/MEtfPlacer.h"
#include "core/classic/MSctPlacer.h"
#include "core/classic/MTopoPlacer.h"
#include "core/classic/MetisPlacer.h"
#include "core/classic/RoundRobinPlacer.h"
#include "core/classic/SingleDevicePlacer.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <exception>

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
        {"single", make<SingleDevicePlacer>(), "Every op on the fastest GPU"},
        {"cpu", make<CpuPlacer>(), "Every op on the CPU"},
        {"round-robin", make<RoundRobinPlacer>(), "Ops dealt to the GPUs in turn, memory permitting", 4},
        {"m-topo", make<MTopoPlacer>(), "Baechi m-TOPO: topological order split into equal-compute runs", 3},
        {"m-etf", make<MEtfPlacer>(), "Baechi m-ETF: earliest task first list scheduling, memory-aware", 1},
        {"m-sct", make<MSctPlacer>(), "Baechi m-SCT: m-ETF plus favourite children from an LP", 2, true},
        {"metis", make<MetisPlacer>(), "METIS k-way min-cut partition balanced by compute", 5},
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

std::vector<ClassicalStart> runClassicalPlacers(const PlaceContext& context, const std::vector<std::string>& names,
                                                const ClassicalRunHooks& hooks)
{
    std::vector<ClassicalStart> starts;
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        if (hooks.mayStart && !hooks.mayStart(starts.size()))
            break;
        const ClassicalPlacerRow* row = findClassicalPlacer(name);
        if (!row)
            continue;
        if (hooks.starting)
            hooks.starting(name, i, names.size());
        PlaceContext quiet = context;
        quiet.observer = nullptr;
        if (hooks.adjust)
            hooks.adjust(quiet);
        try {
            starts.push_back({name, row->make()->place(quiet)});
        } catch (const std::exception&) {
            // A placer that does not apply to this cluster (cpu without a CPU) starts nothing.
            if (!hooks.skipFailures)
                throw;
            continue;
        }
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
