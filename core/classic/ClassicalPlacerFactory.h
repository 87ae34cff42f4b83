#pragma once

#include "core/place/Placer.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// The classical placers by the names the CLI uses: single, cpu, round-robin, m-topo,
// m-etf, m-sct, metis. Returns nullptr for an unknown name.
std::unique_ptr<Placer> makeClassicalPlacer(std::string_view name);
std::vector<std::string> classicalPlacerNames();

} // namespace post
