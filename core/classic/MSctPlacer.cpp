#include "classic/MSctPlacer.h"

#include "classic/ClassicalReport.h"
#include "classic/FavouriteChildLp.h"
#include "classic/ListScheduler.h"

namespace post {

PlaceResult MSctPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    FavouriteChildLp lp(context.graph, context.cluster, options_.maxLpOps, options_.threshold);
    const std::vector<OpId> favourite = lp.solve();
    ListSchedule schedule = ListScheduler(context.graph, context.cluster, context.sim).run(favourite);
    return reportPlacement(context, std::move(schedule.placement), start);
}

} // namespace post
