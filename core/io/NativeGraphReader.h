// placeholder: replaced by the native branch
#pragma once

#include "graph/Graph.h"
#include "io/ImportOptions.h"

#include <string>
#include <string_view>

namespace post {

Graph parseNativeGraph(std::string_view text, const std::string& source, const ImportOptions& options);

} // namespace post
