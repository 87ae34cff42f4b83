#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/place/Placer.h"

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
// `options` configure learners (and the learner of LEARNER@PLACER); classical placers ignore them.
std::unique_ptr<Placer> makePlacer(std::string_view name, const LearnerOptions& options = {});

} // namespace post
