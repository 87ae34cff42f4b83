#include "core/io/TrainingStepBuilder.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/graph/TopologicalSort.h"
#include "core/util/InputError.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <set>
#include <utility>

namespace post {
namespace {

constexpr double kUsPerMs = 1000.0;

} // namespace

TrainingStepBuilder::TrainingStepBuilder(std::string source, std::string graphName, const ImportOptions& options)
    : source_(std::move(source))
    , graphName_(std::move(graphName))
    , options_(options)
{
}

bool TrainingStepBuilder::isInputLayer(const std::string& description) { return description.starts_with("Input"); }

std::string TrainingStepBuilder::layerType(const std::string& description)
{
    if (isInputLayer(description))
        return "Input";
    std::string type = description.substr(0, description.find('('));
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
        type.pop_back();
    return type.empty() ? std::string("Layer") : type;
}

void TrainingStepBuilder::addLayer(std::string id, std::string description, const PipeDreamStats& stats,
                                   std::string location)
{
    if (id.empty())
        throw InputError(source_, location, "node id is empty");
    // GraphBuilder checks these too, but only here is the layer's line known.
    if (std::string problem = utf8Problem(id, "node id"); !problem.empty())
        throw InputError(source_, location, problem);
    if (std::string problem = utf8Problem(description, "node description"); !problem.empty())
        throw InputError(source_, location, problem);
    if (id.ends_with(kGradSuffix))
        throw InputError(source_, location,
                         "node id '" + id + "' ends with '" + kGradSuffix
                             + "', which names backward ops in the expanded step");
    auto [it, inserted] = index_.emplace(id, static_cast<int>(layers_.size()));
    if (!inserted)
        throw InputError(source_, location,
                         "duplicate node '" + id + "' (first defined at "
                             + layers_[static_cast<size_t>(it->second)].location + ")");
    layers_.push_back(Layer{std::move(id), std::move(description), stats, std::move(location)});
}

void TrainingStepBuilder::addEdge(std::string from, std::string to, std::string location)
{
    pending_.push_back(PendingEdge{std::move(from), std::move(to), std::move(location)});
}

std::vector<TrainingStepBuilder::LayerEdge> TrainingStepBuilder::resolveEdges() const
{
    std::vector<LayerEdge> edges;
    edges.reserve(pending_.size());
    std::set<std::pair<int, int>> seen;
    for (const PendingEdge& p : pending_) {
        auto endpoint = [&](const std::string& id) {
            auto it = index_.find(id);
            if (it == index_.end())
                throw InputError(source_, p.location, "edge names unknown node '" + id + "'");
            return it->second;
        };
        const int from = endpoint(p.from);
        const int to = endpoint(p.to);
        // A profile lists data dependencies, not tensors: a repeated pair adds nothing.
        if (seen.emplace(from, to).second)
            edges.push_back(LayerEdge{from, to, p.location});
    }
    return edges;
}

std::vector<int> TrainingStepBuilder::forwardOrder(const std::vector<LayerEdge>& edges) const
{
    // The project's one topological sort (a FIFO seeded in input order): the same input
    // gives the same order whichever reader produced it.
    std::vector<std::vector<int>> successors(layers_.size());
    for (const LayerEdge& e : edges)
        successors[static_cast<size_t>(e.from)].push_back(e.to);
    TopologicalSort sorted = topologicalSort(successors);
    if (!sorted.acyclic())
        throwCycle(edges, sorted.cycle);
    return std::move(sorted.order);
}

void TrainingStepBuilder::throwCycle(const std::vector<LayerEdge>& edges, const std::vector<int>& cycle) const
{
    // Quote the cycle edge listed last in the input: a cycle is closed by its last edge read,
    // and an edge added by mistake is more often below the ones it loops back to.
    int quoted = -1;
    for (size_t i = 0; i < cycle.size(); ++i) {
        const int from = cycle[i];
        const int to = cycle[(i + 1) % cycle.size()];
        for (size_t e = 0; e < edges.size(); ++e)
            if (edges[e].from == from && edges[e].to == to) {
                if (quoted < 0 || static_cast<int>(e) > quoted)
                    quoted = static_cast<int>(e);
                break;
            }
    }
    std::string text = "cycle: ";
    for (int layer : cycle)
        text += layers_[static_cast<size_t>(layer)].id + " -> ";
    text += layers_[static_cast<size_t>(cycle.front())].id;
    throw InputError(source_, quoted >= 0 ? edges[static_cast<size_t>(quoted)].location : std::string(), text);
}

Graph TrainingStepBuilder::build() &&
{
    const std::vector<LayerEdge> edges = resolveEdges(); // first: an edge's line beats "no layers"
    if (layers_.empty())
        throw InputError(source_, {}, "no layers found");
    const std::vector<int> order = forwardOrder(edges);

    const size_t n = layers_.size();
    std::vector<std::vector<int>> out(n), in(n);
    for (size_t e = 0; e < edges.size(); ++e) {
        out[static_cast<size_t>(edges[e].from)].push_back(static_cast<int>(e));
        in[static_cast<size_t>(edges[e].to)].push_back(static_cast<int>(e));
    }
    auto isInput = [&](int layer) { return isInputLayer(layers_[static_cast<size_t>(layer)].description); };
    auto activation = [&](int layer) { return layers_[static_cast<size_t>(layer)].stats.activationBytes; };

    try {
        GraphBuilder builder(graphName_);
        builder.reserve(2 * n, 2 * edges.size() + n);
        std::vector<OpId> forwardOp(n, kNoOp), gradOp(n, kNoOp);
        // A refused op (a value past GraphBuilder's bounds) is named at its layer's line.
        auto addOp = [&](Op op, const Layer& layer) {
            try {
                return builder.addOp(std::move(op));
            } catch (const GraphError& e) {
                throw InputError(source_, layer.location, e.what());
            }
        };

        for (int l : order) {
            const Layer& layer = layers_[static_cast<size_t>(l)];
            const bool input = isInput(l);
            Op op;
            op.name = layer.id;
            op.type = layerType(layer.description);
            // Input layers' time is data loading on the host, not accelerator compute.
            const double gpuUs = input ? 0.0 : layer.stats.forwardMs * kUsPerMs;
            op.timeUs[static_cast<size_t>(DeviceKind::Gpu)] = gpuUs;
            op.timeUs[static_cast<size_t>(DeviceKind::Cpu)] = derivedCpuTimeUs(gpuUs, options_);
            op.derivedKinds = 1U << static_cast<int>(DeviceKind::Cpu);
            op.outputBytes = layer.stats.activationBytes;
            op.paramBytes = layer.stats.parameterBytes;
            op.colocate = input ? std::string() : layer.id;
            forwardOp[static_cast<size_t>(l)] = addOp(std::move(op), layer);
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const int l = *it;
            if (isInput(l))
                continue; // nothing to differentiate: inputs need no gradient
            const Layer& layer = layers_[static_cast<size_t>(l)];
            Op op;
            op.name = layer.id + kGradSuffix;
            op.type = layerType(layer.description) + "Backward";
            const double gpuUs = layer.stats.backwardMs * kUsPerMs;
            op.timeUs[static_cast<size_t>(DeviceKind::Gpu)] = gpuUs;
            op.timeUs[static_cast<size_t>(DeviceKind::Cpu)] = derivedCpuTimeUs(gpuUs, options_);
            op.derivedKinds = 1U << static_cast<int>(DeviceKind::Cpu);
            // It outputs the gradient with respect to each (non-input) input tensor.
            for (int e : in[static_cast<size_t>(l)])
                if (!isInput(edges[static_cast<size_t>(e)].from))
                    op.outputBytes += activation(edges[static_cast<size_t>(e)].from);
            op.colocate = layer.id;
            gradOp[static_cast<size_t>(l)] = addOp(std::move(op), layer);
        }

        for (int u : order)
            for (int e : out[static_cast<size_t>(u)])
                builder.addEdge(forwardOp[static_cast<size_t>(u)],
                                forwardOp[static_cast<size_t>(edges[static_cast<size_t>(e)].to)], activation(u));
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const int v = *it;
            if (isInput(v))
                continue;
            // The backward op reads the activations its forward op saved; both sit on one
            // device (colocated), so this edge only orders the step and carries no bytes.
            builder.addEdge(forwardOp[static_cast<size_t>(v)], gradOp[static_cast<size_t>(v)], 0.0);
            for (int e : in[static_cast<size_t>(v)]) {
                const int u = edges[static_cast<size_t>(e)].from;
                if (!isInput(u)) // the gradient w.r.t. u's output has the size of u's output
                    builder.addEdge(gradOp[static_cast<size_t>(v)], gradOp[static_cast<size_t>(u)], activation(u));
            }
        }
        return std::move(builder).build();
    } catch (const GraphError& e) {
        throw InputError(source_, {}, e.what());
    }
}

} // namespace post
