#include "fuzz/FuzzTargets.h"

#include "core/io/GraphFile.h"
#include "core/io/chakra/ChakraTrace.h"
#include "core/io/dot/DotReader.h"
#include "core/io/msr/MsrReader.h"
#include "core/io/native/ClusterFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/native/PlacementFile.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/io/pipedream/PipeDreamReader.h"
#include "core/io/tf/PbtxtReader.h"
#include "core/io/torch/ExecutionTrace.h"
#include "core/io/torch/KinetoTrace.h"
#include "core/io/torch/TraceSteps.h"

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
        {"pytorch-et", [](std::string_view b) { parseExecutionTrace(b, "fuzz_et.json", {}); }},
        {"chakra-json", [](std::string_view b) { parseChakraJson(b, "fuzz_chakra.json", {}); }},
        {"chakra-et", [](std::string_view b) { parseChakraEt(b, "fuzz.et", {}); }},
        {"kineto", [](std::string_view b) { splitTraceSteps(parseKinetoTrace(b, "fuzz.pt.trace.json")); }},
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
