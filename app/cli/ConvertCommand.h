#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli convert GRAPH --out FILE.json`: any importable graph as post-graph/1.
void addConvertCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
