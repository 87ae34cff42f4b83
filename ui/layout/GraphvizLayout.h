#pragma once

#include "ui/layout/LayoutInput.h"
#include "ui/layout/LayoutResult.h"

#include <functional>

namespace post {

// Lays `input` out with Graphviz and returns positions in scene coordinates.
// Call it from the layout thread only: cgraph and gvc keep global state and are not
// thread-safe, even for reads. `shouldStop` is polled between phases (building the
// graph, layout, reading it back); when it returns true the result is Cancelled.
LayoutResult runGraphvizLayout(const LayoutInput& input, const std::function<bool()>& shouldStop = {});

} // namespace post
