#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli sweep MANIFEST --shard I/N --out DIR` and `post-cli sweep merge DIR` (docs/sweeps.md).
void addSweepCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
