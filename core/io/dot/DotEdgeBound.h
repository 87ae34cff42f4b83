#pragma once

#include <string>
#include <string_view>

namespace post {

// An edge statement between subgraphs makes every pair an edge: "{a1 ... a3000} ->
// {b1 ... b3000}" is 34 KB of DOT but nine million edges, which cgraph would build (minutes,
// gigabytes) before the reader could count them. This scans the text first and throws
// InputError when the edges its statements can make exceed `limit`. It over-counts (every
// identifier in a group counts as a node), never under-counts. It also refuses subgraphs
// nested more than 1,000 levels deep.
void checkDotEdgeBound(std::string_view text, const std::string& source, double limit);

} // namespace post
