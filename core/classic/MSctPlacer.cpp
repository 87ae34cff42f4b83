#include "core/classic/MSctPlacer.h"

#include "core/classic/FavouriteChildLp.h"
#include "core/classic/ListScheduler.h"
#include "core/classic/MemoryFeedback.h"

namespace post {

PlaceResult MSctPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    FavouriteChildLp lp(context.graph, context.cluster, options_.maxLpOps, options_.threshold);
    const std::vector<OpId> favourite = lp.solve();
    return placeWithMemoryFeedback(
        context,
        [&](const std::vector<double>& budgets) {
            return ListScheduler(context.graph, context.cluster, context.sim, budgets).run(favourite).placement;
        },
        start);
}

} // namespace post
