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
#include "core/io/sweep/SweepFiles.h"
#include "core/io/tf/PbtxtReader.h"
#include "core/io/torch/ExecutionTrace.h"
#include "core/io/torch/KinetoTrace.h"
#include "core/io/torch/MeasuredCosts.h"
#include "core/io/torch/RecordFunctionLink.h"
#include "core/io/torch/TorchModules.h"
#include "core/io/torch/TraceSteps.h"
#include "core/session/SessionFile.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <stdexcept>
#include <string>

namespace post::fuzz {
namespace {

// A PyTorch ONNX export's training step in miniature, for the sidecars read against a graph
// (module paths, measured costs): forward ops of kinds a trace's operators match
// (python/post_torch/aten_of_onnx.json), one the trace never shows, their "X/grad" ops and an
// optimizer op. scripts/fuzz-seeds writes the seeds for these op names.
const Graph& toyExport()
{
    static const Graph graph = [] {
        GraphBuilder b("toy");
        auto add = [&](const char* name, const char* type, double cpuUs) {
            Op op;
            op.name = name;
            op.type = type;
            op.timeUs = {cpuUs, cpuUs / 10};
            op.flops = 1e6;
            b.addOp(op);
        };
        add("/conv/Conv", "Conv", 100);
        add("/Constant", "Constant", 1);
        add("/bn/BatchNormalization", "BatchNormalization", 50);
        add("/relu/Relu", "Relu", 5);
        add("/fc/Gemm", "Gemm", 40);
        add("/Add", "Add", 10);
        add("/Add/grad", "Add", 20);
        add("/fc/Gemm/grad", "Gemm", 80);
        add("/relu/Relu/grad", "Relu", 10);
        add("/bn/BatchNormalization/grad", "BatchNormalization", 100);
        add("/conv/Conv/grad", "Conv", 200);
        add("update/fc.weight", "ApplyAdam", 3);
        const char* chain[] = {"/conv/Conv",
                               "/bn/BatchNormalization",
                               "/relu/Relu",
                               "/fc/Gemm",
                               "/Add",
                               "/Add/grad",
                               "/fc/Gemm/grad",
                               "/relu/Relu/grad",
                               "/bn/BatchNormalization/grad",
                               "/conv/Conv/grad"};
        for (std::size_t k = 0; k + 1 < std::size(chain); ++k)
            b.addEdge(chain[k], chain[k + 1], 4);
        b.addEdge("/Constant", "/Add", 4);
        b.addEdge("/fc/Gemm/grad", "update/fc.weight", 4);
        return std::move(b).build();
    }();
    return graph;
}

// The sweep manifest's algorithm names without the placer registry (which sits above the io
// layers): a name of lower-case letters, digits, '-', '_' and at most one '@' is known; one
// starting with 'p' or 'r', or a warm start (LEARNER@PLACER), runs once per seed.
std::optional<bool> fuzzAlgorithm(std::string_view name)
{
    if (name.empty() || name.size() > 40 || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_@") != name.npos
        || name.find('@') != name.rfind('@'))
        return std::nullopt;
    return name.front() == 'p' || name.front() == 'r' || name.find('@') != name.npos;
}

bool sameResult(const SweepResult& a, const SweepResult& b)
{
    return a.index == b.index && a.jobCount == b.jobCount && a.graph == b.graph && a.cluster == b.cluster
        && a.algorithm == b.algorithm && a.precision == b.precision && a.dispatch == b.dispatch && a.seed == b.seed
        && a.samples == b.samples && a.ops == b.ops && a.bestStepTimeMs == b.bestStepTimeMs && a.feasible == b.feasible
        && a.samplesUsed == b.samplesUsed && a.wallSeconds == b.wallSeconds;
}

// --costs refuses a trace that covers too little unless --costs-partial: a refused input is
// read again as --costs-partial takes it, to reach what comes after the check.
template <class Apply> void withAndWithoutPartial(Apply apply)
{
    try {
        apply(MeasuredCostsOptions{});
    } catch (const InputError&) {
        apply(MeasuredCostsOptions{.partial = true});
    }
}

} // namespace

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
        // Sweeps (core/io/sweep): a manifest and its jobs; a job's result file, which must read
        // back unchanged once written (a rerun compares it with its job) and make a table.
        {"sweep-manifest",
         [](std::string_view b) {
             const SweepManifest m = parseSweepManifest(std::string(b), "sweep.json", fuzzAlgorithm);
             shardOf(sweepJobs(m), 1, 3);
         }},
        {"sweep-result",
         [](std::string_view b) {
             const SweepResult r = parseSweepResult(std::string(b), "job-000000.json");
             if (!sameResult(r, parseSweepResult(sweepResultJson(r), "again.json")))
                 throw std::logic_error("a sweep result written and read back differs");
             sweepTable({r});
         }},
        // The sidecars of a PyTorch export (docs/pytorch.md): module paths, measured costs (a
        // post-costs/1 file or a torch.profiler trace), a placement with module paths as
        // `export-placement --to torch` reads it, and a Kineto trace linked to an execution trace.
        {"modules", [](std::string_view b) { parseOpModules(b, "m.onnx.modules.json", toyExport()); }},
        {"costs",
         [](std::string_view b) {
             withAndWithoutPartial([&](const MeasuredCostsOptions& options) {
                 applyMeasuredCostsText(toyExport(), std::string(b), "costs.json", nullptr, options);
             });
         }},
        {"torch-map", [](std::string_view b) { torchMapJson(b, "placement.json"); }},
        {"costs-et",
         [](std::string_view b) {
             static const ImportedGraph et = parseExecutionTrace(readFileText(POST_FUZZ_EXECUTION_TRACE),
                                                                 POST_FUZZ_EXECUTION_TRACE, {});
             withAndWithoutPartial([&](const MeasuredCostsOptions& options) {
                 applyKinetoTextToExecutionTrace(et, std::string(b), "kineto.json", nullptr, options);
             });
         }},
        // Post Studio's sessions (core/session): what reads back must write the same file again,
        // or a saved session would change each time it is opened and saved.
        {"session",
         [](std::string_view b) {
             const std::string once = sessionJson(parseSession(b, "fuzz.session.json"));
             if (sessionJson(parseSession(once, "again.session.json")) != once)
                 throw std::logic_error("a session written, read back and written again differs");
         }},
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
