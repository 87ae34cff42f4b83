#include "classic/MEtfPlacer.h"

#include "classic/ClassicalReport.h"
#include "classic/ListScheduler.h"

namespace post {

PlaceResult MEtfPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    ListSchedule schedule = ListScheduler(context.graph, context.cluster, context.sim).run();
    return reportPlacement(context, std::move(schedule.placement), start);
}

} // namespace post
