#pragma once

#include "core/graph/Graph.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

struct PlacementProvenance; // core/io/native/PlacementFile.h

// The module path of each op of a graph imported from a PyTorch ONNX export, read from the
// export's sidecar `MODEL.onnx.modules.json` ("post-torch-modules/1", written by
// python/post_torch: ONNX node name -> module path, "" for the root module). A forward op
// takes its node's module; a backward op "X/grad" takes the module of X; other ops (the
// optimizer's, ops the sidecar does not name) have none. Throws InputError naming the file
// and field. See docs/pytorch.md.
using OpModules = std::vector<std::optional<std::string>>;
OpModules readOpModules(const std::string& sidecarPath, const Graph& graph);
// The same for the sidecar's text (`source` names it in errors).
OpModules parseOpModules(std::string_view text, const std::string& source, const Graph& graph);

// `graph` with each PyTorch module's ops in one colocation group (joined with the groups
// they were in), as post_torch.apply runs them: every module on one device, its forward ops
// and their gradients with it. A search of this graph finds placements apply carries out as
// they were timed; without it apply moved the ops of a module the search had split (a ReLU
// module called twice, its two ops on two GPUs) and the step was another (ResNet-18 on k80x4:
// 2.622 ms placed, 2.922 ms applied). Ops without a module keep their group. `joined`, when
// given, gets how many groups of two or more ops the modules made or enlarged.
Graph colocatedByModule(const Graph& graph, const OpModules& modules, int* joined = nullptr);

// `graphPath` + ".modules.json" when that is a regular file, otherwise nothing.
std::optional<std::string> moduleSidecarOf(const std::string& graphPath);

// A PyTorch export's module groups, as place, compare and Post Studio take them: `graph` gets
// colocatedByModule with the sidecar's modules. `sidecar`: the file (--modules), or empty for
// `graphPath`'s own .modules.json when there is one. Returns nothing when there is no sidecar;
// throws InputError naming a sidecar that cannot be read or does not fit the graph.
struct ModuleGroups {
    std::string sidecar;
    OpModules modules;
    int joined = 0; // colocatedByModule's count
    // "SIDECAR: each PyTorch module's ops are placed together, as post_torch.apply runs them
    // (N colocation groups made or joined)", or empty when the modules joined nothing.
    std::string note() const;
};
std::optional<ModuleGroups> groupByModules(Graph& graph, const std::string& graphPath, const std::string& sidecar = {});

// A post-placement/1 document with module paths (post-cli place of such an export) as a
// "post-torch-map/1" document: module path -> device, where a module's device is the one
// most of its ops are placed on (ties: the device of its first op in the file's order) —
// the rule post_torch.apply uses. The file's other fields are checked as parsePlacement
// checks them (checkPlacementHeader), and `made`, when given, gets what they record. Throws
// InputError naming `source` and the field.
std::string torchMapJson(std::string_view placementText, const std::string& source, PlacementProvenance* made = nullptr);

} // namespace post
