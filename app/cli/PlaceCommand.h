#pragma once

namespace CLI {
class App;
}

namespace post::cli {

// `post-cli place GRAPH --cluster C --algo A`: search for a placement and write it.
void addPlaceCommand(CLI::App& app, int& exitCode);

} // namespace post::cli
