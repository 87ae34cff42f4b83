#pragma once

#include "core/io/ImportedGraph.h"
#include "core/io/torch/MeasuredCosts.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// One file of measured op times (post-cli --costs, Post Studio's File ▸ Measured Costs): a
// torch.profiler trace or a post-costs/1 file, and the device type its times are of.
struct CostsFile {
    std::string type; // empty: the trace's device kind (every GPU, or every CPU)
    std::string path;
};

// "PATH", or "TYPE=PATH" for the times of devices of one type (v100=a.json.gz); a value whose
// part before '=' is no device type name is a path.
CostsFile parseCostsFile(std::string_view value);

// Applies each file's measured times to `imported`, in order (docs/pytorch.md, "Measured
// costs"): an execution trace's ops are linked to a Kineto trace by record-function ids, any
// other graph's are aligned with the trace's operators by kind. Returns one line per file of
// what it measured (the CLI's note). Throws InputError naming the file: one that matches no op,
// or too little of the graph unless options.partial.
std::vector<std::string> applyCostsFiles(ImportedGraph& imported, std::span<const CostsFile> files,
                                         const MeasuredCostsOptions& options = {});

} // namespace post
