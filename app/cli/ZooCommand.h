#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli zoo list` and `post-cli zoo generate NAME [--batch B] [--out FILE]`:
// the model zoo's training graphs as post-graph/1 (docs/zoo.md).
void addZooCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
