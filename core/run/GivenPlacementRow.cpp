#include "core/run/GivenPlacementRow.h"

#include "core/graph/Placement.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"

namespace post {

ComparisonRow givenPlacementRow(const Graph& graph, const Cluster& cluster, const Placement& given,
                                const std::string& source)
{
    if (auto problem = placementProblem(graph, cluster, given))
        throw InputError(source, "given placement", *problem);
    Simulator sim(graph, cluster, SimOptions{});
    const SimResult& r = sim.run(given, false);
    ComparisonRow row;
    row.algorithm = "given";
    row.bestUs = {r.stepTimeUs};
    row.feasibleRuns = r.feasible ? 1 : 0;
    row.best = given;
    row.bestUsOverRuns = r.stepTimeUs;
    row.bestFeasible = r.feasible;
    return row;
}

} // namespace post
