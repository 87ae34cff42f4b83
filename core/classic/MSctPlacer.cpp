#include "core/classic/MSctPlacer.h"

#include "core/classic/FavouriteChildLp.h"
#include "core/classic/ListScheduler.h"
#include "core/classic/MemoryFeedback.h"

namespace post {

namespace {
constexpr double kLpShareOfBudget = 0.5;
} // namespace

PlaceResult MSctPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    FavouriteChildLp lp(context.graph, context.cluster, options_.maxLpOps, options_.threshold);
    // Under a time budget the LP windows get half of it (the list scheduling after them, with
    // its memory-feedback rounds, needs the rest on dense graphs: 3 s on a 3,664-op Chakra
    // step of 181,878 edges); windows left when it runs out take the fallback rule.
    const auto deadline = context.seconds > 0.0 ? start
            + std::chrono::duration_cast<PlacerClock::duration>(
                                                      std::chrono::duration<double>(kLpShareOfBudget * context.seconds))
                                                : PlacerClock::time_point::max();
    const std::vector<OpId> favourite = lp.solve(deadline);
    return placeWithMemoryFeedback(
        context,
        [&](const std::vector<double>& budgets) {
            return ListScheduler(context.graph, context.cluster, context.sim, budgets).run(favourite).placement;
        },
        start);
}

} // namespace post
