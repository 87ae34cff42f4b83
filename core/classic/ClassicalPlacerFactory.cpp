#include "core/classic/ClassicalPlacerFactory.h"

#include "core/classic/CpuPlacer.h"
#include "core/classic/MEtfPlacer.h"
#include "core/classic/MSctPlacer.h"
#include "core/classic/MTopoPlacer.h"
#include "core/classic/MetisPlacer.h"
#include "core/classic/RoundRobinPlacer.h"
#include "core/classic/SingleDevicePlacer.h"

namespace post {

std::unique_ptr<Placer> makeClassicalPlacer(std::string_view name)
{
    if (name == "single")
        return std::make_unique<SingleDevicePlacer>();
    if (name == "cpu")
        return std::make_unique<CpuPlacer>();
    if (name == "round-robin")
        return std::make_unique<RoundRobinPlacer>();
    if (name == "m-topo")
        return std::make_unique<MTopoPlacer>();
    if (name == "m-etf")
        return std::make_unique<MEtfPlacer>();
    if (name == "m-sct")
        return std::make_unique<MSctPlacer>();
    if (name == "metis")
        return std::make_unique<MetisPlacer>();
    return nullptr;
}

std::vector<std::string> classicalPlacerNames()
{
    return {"single", "cpu", "round-robin", "m-topo", "m-etf", "m-sct", "metis"};
}

} // namespace post
