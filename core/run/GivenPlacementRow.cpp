#include "core/run/GivenPlacementRow.h"

#include "core/graph/Placement.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"

namespace post {

ComparisonRow givenPlacementRow(const Graph& graph, const Cluster& cluster, const Placement& given,
                                const std::string& source, const SimOptions& sim)
{
    if (auto problem = placementProblem(graph, cluster, given))
        throw InputError(source, "given placement", *problem);
    Simulator simulator(graph, cluster, sim);
    const SimResult& r = simulator.run(given, false);
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
