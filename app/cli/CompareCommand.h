#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli compare GRAPH --cluster C`: every algorithm over several seeds, one table.
void addCompareCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
