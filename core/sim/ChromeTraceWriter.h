#pragma once

#include <string>

namespace post {

class Graph;
class Cluster;
struct SimResult;

// The simulated step as Chrome trace-event JSON ({"traceEvents": [...]}), which opens in
// Perfetto (ui.perfetto.dev) and chrome://tracing. One process; one thread row per device
// and one per directed link that carried a transfer; "X" events with ts/dur in microseconds.
// `result` must come from Simulator::run(placement, /*recordTimeline=*/true) on the same
// graph and cluster; without a timeline only the row names are written.
std::string chromeTraceJson(const Graph& graph, const Cluster& cluster, const SimResult& result);

} // namespace post
