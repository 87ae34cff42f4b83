#include "core/classic/MEtfPlacer.h"

#include "core/classic/ListScheduler.h"
#include "core/classic/MemoryFeedback.h"

namespace post {

PlaceResult MEtfPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    return placeWithMemoryFeedback(
        context,
        [&](const std::vector<double>& budgets) {
            return ListScheduler(context.graph, context.cluster, context.sim, budgets).run().placement;
        },
        start);
}

} // namespace post
