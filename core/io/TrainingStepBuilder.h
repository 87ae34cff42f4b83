#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"
#include "core/io/pipedream/PipeDreamStats.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace post {

// Expands a PipeDream layer profile (forward layers and their data edges) into the op
// graph of ONE training step: the forward ops, then a backward op per layer along the
// reversed edges. Shared by the graph.txt and graph.dot readers so both give the same
// graph. The mapping is specified in docs/importers.md.
class TrainingStepBuilder {
public:
    // Suffix of a backward op's name: "node4" -> "node4/grad".
    static constexpr const char* kGradSuffix = "/grad";

    TrainingStepBuilder(std::string source, std::string graphName, const ImportOptions& options);

    // `location` ("line 7", "node 'node4'") is quoted by errors about this layer or edge.
    void addLayer(std::string id, std::string description, const PipeDreamStats& stats, std::string location);
    void addEdge(std::string from, std::string to, std::string location);

    // Throws InputError for an unknown node in an edge, a cycle, or no layers at all.
    Graph build() &&;

    // "Conv2d(3, 64, ...)" -> "Conv2d"; "Input0" -> "Input".
    static std::string layerType(const std::string& description);
    static bool isInputLayer(const std::string& description);

private:
    struct Layer {
        std::string id;
        std::string description;
        PipeDreamStats stats;
        std::string location;
    };
    struct LayerEdge {
        int from = -1;
        int to = -1;
        std::string location;
    };
    struct PendingEdge {
        std::string from, to, location;
    };

    std::vector<LayerEdge> resolveEdges() const;
    std::vector<int> forwardOrder(const std::vector<LayerEdge>& edges) const;
    // `cycle` as topologicalSort gives it: each layer feeds the next, the last the first.
    [[noreturn]] void throwCycle(const std::vector<LayerEdge>& edges, const std::vector<int>& cycle) const;

    std::string source_;
    std::string graphName_;
    ImportOptions options_;
    std::vector<Layer> layers_;
    std::unordered_map<std::string, int> index_;
    std::vector<PendingEdge> pending_;
};

} // namespace post
