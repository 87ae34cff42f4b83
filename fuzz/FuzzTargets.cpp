#include "FuzzTargets.h"

#include "io/ClusterFile.h"
#include "io/ClusterPresets.h"
#include "io/DotReader.h"
#include "io/GraphFile.h"
#include "io/MsrReader.h"
#include "io/NativeGraphReader.h"
#include "io/OnnxReader.h"
#include "io/PbtxtReader.h"
#include "io/PipeDreamReader.h"
#include "io/PlacementFile.h"

namespace post::fuzz {

const std::vector<FuzzTarget>& fuzzTargets()
{
    // To fuzz a new importer: add a row here and its name to POST_FUZZ_TARGETS in
    // fuzz/CMakeLists.txt (and, once it finds something, tests/data/fuzz-regressions/<name>/).
    static const std::vector<FuzzTarget> targets = {
        {"native", [](std::string_view b) { parseNativeGraph(b, "fuzz.json"); }},
        {"pipedream", [](std::string_view b) { parsePipeDreamGraph(b, "graph.txt", {}); }},
        {"msr", [](std::string_view b) { parseMsrGraph(b, "fuzz.json", {}); }},
        {"dot", [](std::string_view b) { parseDotGraph(b, "fuzz.dot", {}); }},
        {"sniff", [](std::string_view b) { parseGraph(b, "fuzz"); }},
        {"cluster", [](std::string_view b) { parseCluster(b, "cluster.json"); }},
        {"placement",
         [](std::string_view b) {
             // samples/graphs/tiny-mlp.json on the k80x4 preset: scripts/fuzz-seeds makes the
             // seed placements for that pair.
             static const Graph graph = readGraphFile(POST_FUZZ_PLACEMENT_GRAPH);
             static const Cluster cluster = loadCluster("k80x4");
             parsePlacement(b, "placement.json", graph, cluster);
         }},
        {"onnx", [](std::string_view b) { parseOnnxGraph(b, "fuzz.onnx", {}); }},
        {"pbtxt", [](std::string_view b) { parsePbtxtGraph(b, "fuzz.pbtxt", {}); }},
    };
    return targets;
}

const FuzzTarget* findFuzzTarget(std::string_view name)
{
    for (const FuzzTarget& target : fuzzTargets())
        if (target.name == name)
            return &target;
    return nullptr;
}

} // namespace post::fuzz
