// Compares the shape-based cost model's forward-time estimates with PipeDream's measured
// per-layer profiles (docs/cost-model.md, "Validation against PipeDream"):
//
//     validate_pipedream DATA_DIR [--verbose]      (DATA_DIR = ../shared/data/pipedream)
//
// For ResNet-50 and Inception-V3 it builds the zoo model at the profile's batch, matches
// each profiled PyTorch layer to the zoo op doing the same work (convolutions and fully
// connected layers by their channel/kernel/stride signature, in order; batch norms, ReLUs,
// pools and additions by following the graph from an already matched layer) and prints the
// Pearson correlation of the times, of their logarithms, and the ratio of totals, overall
// and per layer kind.
#include "core/cost/CostModel.h"
#include "core/io/pipedream/PipeDreamStats.h"
#include "core/util/FileText.h"
#include "core/zoo/ZooModels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <queue>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace post;

namespace {

struct Layer {
    std::string id;
    std::string description;
    std::string kind; // "Conv2d", "BatchNorm2d", ...
    PipeDreamStats stats;
    std::vector<int> preds, succs;
    int match = -1; // index into the zoo graph's ops
};

std::vector<Layer> readProfile(const std::string& path)
{
    std::vector<Layer> layers;
    std::map<std::string, int> index;
    std::vector<std::pair<std::string, std::string>> edges;
    std::istringstream in(readFileText(path));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        const auto sep = line.find(" -- ");
        if (line[0] == '\t') {
            edges.emplace_back(line.substr(1, sep - 1), line.substr(sep + 4));
            continue;
        }
        const auto last = line.rfind(" -- ");
        Layer l;
        l.id = line.substr(0, sep);
        l.description = line.substr(sep + 4, last - sep - 4);
        l.kind = l.description.substr(0, l.description.find('('));
        l.stats = parsePipeDreamStats(line.substr(last + 4), path, l.id);
        index[l.id] = static_cast<int>(layers.size());
        layers.push_back(std::move(l));
    }
    for (const auto& [a, b] : edges) {
        layers[static_cast<size_t>(index.at(a))].succs.push_back(index.at(b));
        layers[static_cast<size_t>(index.at(b))].preds.push_back(index.at(a));
    }
    return layers;
}

// Kahn order, ties broken by the node number so the order is stable.
std::vector<int> topological(const std::vector<Layer>& layers)
{
    auto number = [&](int k) { return std::stoi(layers[static_cast<size_t>(k)].id.substr(4)); };
    auto later = [&](int a, int b) { return number(a) > number(b); };
    std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
    std::vector<int> indegree(layers.size());
    for (size_t k = 0; k < layers.size(); ++k)
        if ((indegree[k] = static_cast<int>(layers[k].preds.size())) == 0)
            ready.push(static_cast<int>(k));
    std::vector<int> order;
    while (!ready.empty()) {
        const int k = ready.top();
        ready.pop();
        order.push_back(k);
        for (int s : layers[static_cast<size_t>(k)].succs)
            if (--indegree[static_cast<size_t>(s)] == 0)
                ready.push(s);
    }
    return order;
}

struct Signature {
    std::int64_t cin = 0, cout = 0, kh = 1, kw = 1, stride = 1;
    bool operator==(const Signature&) const = default;
};

std::optional<Signature> profileSignature(const Layer& l)
{
    std::smatch m;
    static const std::regex conv(R"(Conv2d\((\d+), (\d+), kernel_size=\((\d+), (\d+)\), stride=\((\d+), \d+\))");
    static const std::regex linear(R"(Linear\(in_features=(\d+), out_features=(\d+))");
    if (std::regex_search(l.description, m, conv))
        return Signature{std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3]), std::stoll(m[4]), std::stoll(m[5])};
    if (std::regex_search(l.description, m, linear))
        return Signature{std::stoll(m[1]), std::stoll(m[2])};
    return std::nullopt;
}

std::optional<Signature> zooSignature(const ShapedGraph& g, const ShapedOp& op)
{
    if (op.type != "Conv2D" && op.type != "MatMul")
        return std::nullopt;
    const auto& w = g.tensors[static_cast<size_t>(op.inputs[1])].shape;
    if (op.type == "MatMul")
        return Signature{w[0], w[1]};
    const auto strides = op.intAttrs.find("strides");
    const std::int64_t s = strides == op.intAttrs.end() ? 1 : strides->second[1];
    // A 1x1 convolution over a 1x1 map is the zoo's spelling of a fully connected layer.
    const auto& out = g.tensors[static_cast<size_t>(op.outputs[0])].shape;
    if (w[0] == 1 && w[1] == 1 && out[1] == 1 && out[2] == 1)
        return Signature{w[2], w[3]};
    return Signature{w[2], w[3], w[0], w[1], s};
}

// Fully connected layers: the zoo's Inception has TF-slim's 1001 classes, PyTorch 1000.
bool sameLayer(const Signature& a, const Signature& b)
{
    return a.cin == b.cin && a.kh == b.kh && a.kw == b.kw && a.stride == b.stride
        && (a.cout == b.cout || (a.kh == 1 && a.kw == 1 && std::llabs(a.cout - b.cout) == 1));
}

const std::map<std::string, std::set<std::string>>& kindMap()
{
    static const std::map<std::string, std::set<std::string>> m{
        {"BatchNorm2d", {"FusedBatchNorm"}}, {"ReLU", {"Relu"}}, {"MaxPool2d", {"MaxPool"}},
        {"AvgPool2d", {"AvgPool", "Mean"}},  {"Add", {"AddV2"}}, {"Concat", {"ConcatV2"}}};
    return m;
}

struct Stats {
    std::vector<double> ours, theirs;
    void add(double a, double b)
    {
        ours.push_back(a);
        theirs.push_back(b);
    }
};

double pearson(const std::vector<double>& x, const std::vector<double>& y)
{
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (size_t k = 0; k < x.size(); ++k) {
        mx += x[k] / n;
        my += y[k] / n;
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t k = 0; k < x.size(); ++k) {
        sxy += (x[k] - mx) * (y[k] - my);
        sxx += (x[k] - mx) * (x[k] - mx);
        syy += (y[k] - my) * (y[k] - my);
    }
    return sxy / std::sqrt(sxx * syy);
}

void printStats(const std::string& label, const Stats& s)
{
    if (s.ours.size() < 2) {
        std::printf("  %-12s %4zu layers\n", label.c_str(), s.ours.size());
        return;
    }
    std::vector<double> lx, ly;
    double so = 0, st = 0;
    for (size_t k = 0; k < s.ours.size(); ++k) {
        lx.push_back(std::log(s.ours[k]));
        ly.push_back(std::log(s.theirs[k]));
        so += s.ours[k];
        st += s.theirs[k];
    }
    std::printf(
        "  %-12s %4zu layers  pearson %6.3f  log-pearson %6.3f  total est %9.2f ms  measured %9.2f ms  ratio %5.2f\n",
        label.c_str(), s.ours.size(), pearson(s.ours, s.theirs), pearson(lx, ly), so / 1000.0, st / 1000.0, so / st);
}

// What-if corrections of the cost model, applied here only (docs/cost-model.md).
struct Variant {
    std::string label;
    bool skipFirstLayer = false;   // the profiles' first convolution carries a start-up cost
    double memoryEfficiency = 0.0; // > 0: replaces the reference GPU's
    bool direct = false;           // every convolution by the direct formula (no Winograd rule)
};

double estimateUs(const ShapedGraph& g, const ShapedOp& op, const Variant& v)
{
    DeviceSpec gpu = CostModelOptions{}.reference[static_cast<int>(DeviceKind::Gpu)];
    if (v.memoryEfficiency > 0.0)
        gpu.memoryEfficiency = v.memoryEfficiency;
    OpCost cost = estimateOpCost(g, op);
    if (v.direct) // the model before its Winograd rule (docs/cost-model.md, "Winograd convolutions")
        cost.winogradFlops = 0.0;
    return rooflineTimeUs(cost, gpu);
}

void validate(const std::string& dir, const std::string& model, const ShapedGraph& g, bool verbose,
              const std::vector<Variant>& variants)
{
    std::vector<Layer> layers = readProfile(dir + "/" + model + "/graph.txt");
    const std::vector<int> order = topological(layers);

    // Consumers of each zoo op (through its first output).
    std::vector<int> producer(g.tensors.size(), -1);
    for (size_t k = 0; k < g.ops.size(); ++k)
        for (int t : g.ops[k].outputs)
            producer[static_cast<size_t>(t)] = static_cast<int>(k);
    std::vector<std::vector<int>> consumers(g.ops.size());
    for (size_t k = 0; k < g.ops.size(); ++k)
        for (int t : g.ops[k].inputs)
            if (producer[static_cast<size_t>(t)] >= 0)
                consumers[static_cast<size_t>(producer[static_cast<size_t>(t)])].push_back(static_cast<int>(k));
    std::vector<bool> used(g.ops.size(), false);

    for (int k : order) {
        Layer& l = layers[static_cast<size_t>(k)];
        if (auto sig = profileSignature(l)) {
            for (size_t o = 0; o < g.ops.size() && l.match < 0; ++o)
                if (!used[o])
                    if (auto z = zooSignature(g, g.ops[o]); z && sameLayer(*z, *sig)) {
                        l.match = static_cast<int>(o);
                        used[o] = true;
                    }
            continue;
        }
        const auto types = kindMap().find(l.kind);
        if (types == kindMap().end())
            continue;
        for (int p : l.preds) {
            // Skip the zoo ops PyTorch folds into the layer before (BiasAdd, Squeeze).
            int from = layers[static_cast<size_t>(p)].match;
            while (from >= 0 && consumers[static_cast<size_t>(from)].size() == 1) {
                const int next = consumers[static_cast<size_t>(from)][0];
                const std::string& type = g.ops[static_cast<size_t>(next)].type;
                if (type != "BiasAdd" && type != "Squeeze")
                    break;
                from = next;
            }
            if (from < 0)
                continue;
            for (int c : consumers[static_cast<size_t>(from)])
                if (!used[static_cast<size_t>(c)] && types->second.count(g.ops[static_cast<size_t>(c)].type)) {
                    l.match = c;
                    used[static_cast<size_t>(c)] = true;
                    break;
                }
            if (l.match >= 0)
                break;
        }
    }

    int profiled = 0, unmatched = 0;
    for (int k : order) {
        const Layer& l = layers[static_cast<size_t>(k)];
        if (l.kind == "Input" || l.stats.forwardMs <= 0.0)
            continue;
        ++profiled;
        if (l.match < 0) {
            ++unmatched;
            std::printf("    unmatched %s %s (%.3f ms)\n", l.id.c_str(), l.description.c_str(), l.stats.forwardMs);
        } else if (verbose) {
            const ShapedOp& op = g.ops[static_cast<size_t>(l.match)];
            std::printf("    %-8s %-14s %10.1f us est %10.1f us measured  %s\n", l.id.c_str(), l.kind.c_str(),
                        estimateUs(g, op, variants.front()), l.stats.forwardMs * 1000.0, op.name.c_str());
        }
    }
    std::printf("%s (batch %lld): %d profiled layers with time > 0, %d matched\n", model.c_str(),
                static_cast<long long>(g.tensors.front().shape.front()), profiled, profiled - unmatched);
    for (const Variant& v : variants) {
        std::map<std::string, Stats> byKind;
        Stats all;
        bool first = true;
        for (int k : order) {
            const Layer& l = layers[static_cast<size_t>(k)];
            if (l.kind == "Input" || l.stats.forwardMs <= 0.0 || l.match < 0)
                continue;
            if (first && l.kind == "Conv2d") {
                first = false;
                if (v.skipFirstLayer)
                    continue;
            }
            const double est = estimateUs(g, g.ops[static_cast<size_t>(l.match)], v);
            byKind[l.kind].add(est, l.stats.forwardMs * 1000.0);
            all.add(est, l.stats.forwardMs * 1000.0);
        }
        std::printf(" %s\n", v.label.c_str());
        printStats("all", all);
        for (const auto& [kind, st] : byKind)
            printStats(kind, st);
    }
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: validate_pipedream PIPEDREAM_DIR [--verbose]\n");
        return 2;
    }
    const std::string dir = argv[1];
    const bool verbose = argc > 2 && std::strcmp(argv[2], "--verbose") == 0;
    // Both profiles are at batch 128: ResNet-50's conv1 output is 411,041,792 bytes =
    // 128 x 64 x 112 x 112 x 4, Inception-V3's input 137,319,936 = 128 x 3 x 299 x 299 x 4.
    const std::vector<Variant> variants{
        {"cost model as shipped", false, 0.0, false},
        {"as shipped, without the first convolution", true, 0.0, false},
        {"memory efficiency 0.3 (before the throughput calibration), without the first convolution", true, 0.3, false},
        {"without the Winograd rule (direct formula), without the first convolution", true, 0.0, true},
    };
    validate(dir, "resnet50", buildResNet50(128), verbose, variants);
    validate(dir, "inception_v3", buildInceptionV3(128), verbose, variants);
    return 0;
}
