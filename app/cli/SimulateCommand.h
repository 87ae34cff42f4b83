#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli simulate GRAPH --cluster C (--placement FILE | --all-on DEVICE)`.
void addSimulateCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
