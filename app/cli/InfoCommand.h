#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli info GRAPH`: sizes, total compute, parameter bytes, critical path.
void addInfoCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
