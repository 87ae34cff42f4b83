#pragma once

#include "place/Placer.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// Every placement algorithm by its CLI name: learners first, then classical placers.
std::vector<std::string> placerNames();
// True for algorithms whose result depends on the seed (the learners).
bool placerUsesSeed(std::string_view name);
// nullptr for an unknown name.
std::unique_ptr<Placer> makePlacer(std::string_view name);

} // namespace post
