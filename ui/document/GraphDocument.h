#pragma once

#include "core/cluster/Cluster.h"
#include "core/cost/ShapedGraph.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportedGraph.h"
#include "core/io/native/PlacementFile.h"
#include "core/sim/SimOptions.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace post {

// Values for an ONNX or TensorFlow model's unknown input dimensions (post-cli's --dim
// NAME=N and --input-shape INPUT=d0,d1,...), given in File ▸ Input Dimensions.
struct InputDimensions {
    std::map<std::string, std::int64_t> dims;
    std::map<std::string, std::vector<std::int64_t>> inputShapes;
    // ONNX: sizes that depend on the data, by node (post-cli --count NODE=N), and whether the
    // others are taken at their most (--count-max).
    std::map<std::string, std::int64_t> counts;
    bool countsAtMost = false;
    bool empty() const { return dims.empty() && inputShapes.empty() && counts.empty() && !countsAtMost; }
    bool operator==(const InputDimensions&) const = default;
};

// Measured op times a graph is read with (post-cli --costs values, "PATH" or "TYPE=PATH",
// and --costs-partial), given in File ▸ Measured Costs.
struct MeasuredCostsFiles {
    QStringList files;
    bool partial = false; // take a trace that covers too little of the graph
    bool empty() const { return files.isEmpty(); }
    bool operator==(const MeasuredCostsFiles&) const = default;
};

// What the window shows: a graph, the cluster it is placed on and (maybe) a placement.
// Immutable once shared; a new placement makes a new document that shares the graph.
struct GraphDocument {
    QString path;
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const Cluster> cluster;
    Placement placement;      // empty when nothing is placed yet
    PlacementProvenance made; // what made `placement` (a run's placer and seed), when known
    // How every step of this document is timed (the dispatch rule: post-cli --dispatch): the
    // timeline, the learner, Compare, the exports and the cluster editor all simulate with it.
    SimOptions sim;
    GraphFormat format = GraphFormat::Auto; // as read
    std::int64_t batch = 1;                 // ONNX: the size the symbolic batch dimension was given
    // ONNX: the leading dimension the data inputs have once read (ImportedGraph::inputShapes),
    // when they share one; it differs from `batch` where the model fixes it (an export without
    // a dynamic batch axis), and it is the batch the graph's costs are for. 0: not known.
    std::int64_t modelBatch = 0;
    // "2", or "2 (fixed by the model)" where the model's batch is not `batch`: what the status
    // bar and the inspector show.
    QString batchText() const;
    Placement given;   // the placement the file gives (TensorFlow `device` fields), if it fits
    QStringList notes; // what the user should know about how the file was read
    // Eager PyTorch runs it, one host thread issuing every op (ImportedGraph::eagerHost): the
    // status bar says when that thread takes longer than the simulated step (cost/HostDispatch.h).
    bool eagerHost = false;
    InputDimensions dimensions; // ONNX, TF: the unknown input dimensions' values it was read with
    MeasuredCostsFiles costs;   // the measured op times it was read with
    // ONNX, TF: input dimensions nothing gave a value (counted as 1: every cost depending on
    // them is a guess until they are given).
    std::vector<UnresolvedDim> unresolvedDims;
    // ONNX: the ops whose output size depends on the data that the read reached, with the
    // size each was given (ImportedGraph::dataDependentSizes; value -1: none, runs are off).
    std::vector<DataDependentSize> dataSizes;
    bool hasOpenDataSizes() const;
    // Why no run (learner, comparison) may time this graph, as post-cli refuses it: tensors on
    // the compute path without an inferred shape (unshapedTensorsProblem). Empty: it can be timed.
    QString cannotRun;
    // Which graph this is, so panels can tell "another placement or cluster of the same
    // graph" from "another graph" without comparing pointers: every new document gets a
    // new id, a copy keeps it. Give a copy newGraphId() when replacing its `graph`.
    std::uint64_t graphId = newGraphId();

    static std::uint64_t newGraphId(); // never 0

    int opCount() const { return graph ? graph->opCount() : 0; }
    bool isPlaced() const { return graph && placement.size() == static_cast<size_t>(graph->opCount()); }
    // kNoDevice when unplaced or out of the cluster's range.
    DeviceId deviceOf(OpId op) const;
    // The op's time on the device it is placed on, as the simulator takes it (a collective without a
    // measured time: the ring model), or on a GPU at speed 1 when unplaced.
    double placedTimeUs(OpId op) const;
};

using DocumentPtr = std::shared_ptr<const GraphDocument>;

} // namespace post

Q_DECLARE_METATYPE(post::DocumentPtr)
