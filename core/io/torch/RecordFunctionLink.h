#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportedGraph.h"
#include "core/io/torch/ExecutionTrace.h"
#include "core/io/torch/KinetoTrace.h"
#include "core/io/torch/MeasuredCosts.h"

#include <string>

namespace post {

// What linking a Kineto trace to an execution trace's graph found (docs/pytorch.md,
// "Execution traces with --costs").
struct RecordFunctionLinkReport {
    std::string source;
    std::string layout;       // the Kineto trace's layout
    std::string gpuName;      // the traced GPU, or empty
    std::string linkedBy;     // "record-function ids" or "operator order"
    int copies = 0;           // operator order: how often the execution trace's step is in the trace
    int copiesUsed = 0;       // of them, the ones whose median is taken (all but the first of several)
    int ops = 0;              // ops of the graph
    int linkedOps = 0;        // ops that took a measured time
    double gpuUs = 0.0;       // per step: GPU work launched by the step's record functions
    double mappedGpuUs = 0.0; // of it, on the graph's ops
    bool partial = false;     // taken under --costs-partial despite failing a check
};

// Per record-function id of `imported` (an execution trace's graph), the measured CPU and GPU
// times of a Kineto trace of the same run:
//  - where the trace's operators carry "Record function id" (PyTorch 2.1 and later), by that id;
//  - else by operator order: a record function's id counts the record functions started before it,
//    so the trace's record functions in start order are the execution trace's rf_ids from some
//    offset on; every offset where the graph's ops' names all line up is a copy of the step
//    (the median over the copies, the first left out as warm-up when there are several).
// A GPU kernel, memcpy or memset goes to the innermost operator whose span holds its launch.
// Throws InputError naming the trace when it is not of this run: no op links, or (unless
// options.partial) the names of the linked ops differ from the trace's, or under 90% of the ops
// link.
RecordFunctionTimes linkRecordFunctions(const ImportedGraph& imported, const KinetoTrace& trace,
                                        RecordFunctionLinkReport& report, const MeasuredCostsOptions& options = {});

// --costs KINETO for an execution trace's graph: reads the trace at `path`, links it and sets
// the measured times (marked as measured by `path`).
Graph applyKinetoToExecutionTrace(const ImportedGraph& imported, const std::string& path,
                                  RecordFunctionLinkReport* report = nullptr, const MeasuredCostsOptions& options = {});
// The same for the trace's text already read (decompressed); `path` names it.
Graph applyKinetoTextToExecutionTrace(const ImportedGraph& imported, std::string text, const std::string& path,
                                      RecordFunctionLinkReport* report = nullptr,
                                      const MeasuredCostsOptions& options = {});

// The CLI's note: how the link was made and its coverage.
std::string describeRecordFunctionLink(const RecordFunctionLinkReport& report);

} // namespace post
