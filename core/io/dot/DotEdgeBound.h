#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace post {

// An edge statement between subgraphs makes every pair an edge: "{a1 ... a3000} ->
// {b1 ... b3000}" is 34 KB of DOT but nine million edges, which cgraph would build (minutes,
// gigabytes) before the reader could count them. This scans the text first and throws
// InputError when the edges its statements can make exceed `limit`. It over-counts (every
// identifier in a group counts as a node), never under-counts. It also refuses subgraphs
// nested more than 1,000 levels deep. Named subgraphs keep their nodes when re-opened
// ("subgraph A {...} -> subgraph B {}"), and the scan counts them so.
void checkDotEdgeBound(std::string_view text, const std::string& source, double limit);

// The edges a DOT file of `bytes` bytes may make: max(100,000, bytes). One edge per byte of
// input is more than any edge list written out can make ("a->b;" is five bytes), and cgraph
// needs about 350 bytes per edge, so a file's memory stays below ~350 times its size (35 MB
// for any file up to 100 KB). Far above any real model graph (a few thousand edges).
double dotEdgeLimit(std::size_t bytes);

} // namespace post
