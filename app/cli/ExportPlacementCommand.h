#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// post-cli export-placement PLACEMENT --to torch --out FILE: a placement of a PyTorch export
// as the module -> device map post_torch.apply reads (docs/pytorch.md).
void addExportPlacementCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
