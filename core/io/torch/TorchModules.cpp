#include "core/io/torch/TorchModules.h"

#include "core/graph/GraphBuilder.h"
#include "core/io/json/JsonInput.h"
#include "core/io/json/JsonOutput.h"
#include "core/io/native/PlacementFile.h"
#include "core/util/FileText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace post {
namespace {

constexpr std::string_view kGradSuffix = "/grad";

// The keys of the top-level "placement" object in the order the file writes them. Only
// called on text JsonInput has parsed already.
class PlacementKeys final : public nlohmann::json_sax<nlohmann::json> {
public:
    std::vector<std::string> keys;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override
    {
        inPlacement_ = depth_ == 1 && lastTopKey_ == "placement";
        ++depth_;
        return true;
    }
    bool end_object() override
    {
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override
    {
        ++depth_;
        return true;
    }
    bool end_array() override
    {
        --depth_;
        return true;
    }
    bool key(string_t& k) override
    {
        if (depth_ == 1)
            lastTopKey_ = k;
        else if (depth_ == 2 && inPlacement_)
            keys.push_back(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    int depth_ = 0;
    bool inPlacement_ = false;
    std::string lastTopKey_;
};

std::vector<std::string> placementKeysInFileOrder(std::string_view text)
{
    PlacementKeys sax;
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    return std::move(sax.keys);
}

} // namespace

OpModules readOpModules(const std::string& sidecarPath, const Graph& graph)
{
    return parseOpModules(JsonInput::readFile(sidecarPath, JsonInput::kMaxPlacementBytes), sidecarPath, graph);
}

OpModules parseOpModules(std::string_view text, const std::string& source, const Graph& graph)
{
    const JsonInput in(source);
    const nlohmann::json root = in.parse(text);
    in.requireFormat(root, "post-torch-modules", 1);
    in.rejectUnknownKeys(root, {"format", "model", "modules"}, {});
    if (const nlohmann::json* model = in.find(root, "model"))
        in.string(*model, "model");
    const nlohmann::json& map = in.object(in.require(root, "modules", {}), "modules");
    std::unordered_map<std::string, std::string> ofNode;
    for (auto it = map.begin(); it != map.end(); ++it)
        ofNode.emplace(it.key(), in.string(it.value(), JsonInput::member("modules", it.key())));

    // An op the importer made of a Loop it unrolled or an If it took ("<Loop>/unrolled3/<body
    // op>", "<If>/taken/<op>", docs/importers.md step 7) runs in that node's module.
    const auto moduleOf = [&ofNode](std::string_view name) -> const std::string* {
        if (const auto it = ofNode.find(std::string(name)); it != ofNode.end())
            return &it->second;
        for (const std::string_view marker : {"/unrolled", "/taken/"})
            if (const auto at = name.find(marker); at != std::string_view::npos)
                if (const auto it = ofNode.find(std::string(name.substr(0, at))); it != ofNode.end())
                    return &it->second;
        return nullptr;
    };
    OpModules modules(static_cast<size_t>(graph.opCount()));
    int named = 0;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        std::string_view name = graph.op(op).name;
        if (name.ends_with(kGradSuffix))
            name.remove_suffix(kGradSuffix.size());
        if (const std::string* module = moduleOf(name)) {
            modules[static_cast<size_t>(op)] = *module;
            ++named;
        }
    }
    // A sidecar of another export names none of these ops: its placement would carry no
    // module, and post_torch.apply would refuse it only at the end of the round trip.
    if (!ofNode.empty() && named == 0)
        in.fail("modules",
                "names none of the ops of graph '" + graph.name() + "' (it names " + std::to_string(ofNode.size())
                    + " ONNX nodes, such as '" + ofNode.begin()->first + "'): the sidecar of another export?");
    return modules;
}

Graph colocatedByModule(const Graph& graph, const OpModules& modules, int* joined)
{
    if (static_cast<int>(modules.size()) != graph.opCount())
        throw std::invalid_argument("colocatedByModule: module list size does not match the graph");
    // Union-find over ops: one set per colocation group and per module.
    std::vector<OpId> parent(static_cast<size_t>(graph.opCount()));
    std::iota(parent.begin(), parent.end(), 0);
    const auto find = [&parent](OpId op) {
        while (parent[static_cast<size_t>(op)] != op)
            op = parent[static_cast<size_t>(op)] = parent[static_cast<size_t>(parent[static_cast<size_t>(op)])];
        return op;
    };
    const auto unite = [&](OpId a, OpId b) {
        a = find(a);
        b = find(b);
        if (a != b)
            parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b); // the set's first op is its root
    };
    std::unordered_map<std::string, OpId> firstOfGroup, firstOfModule;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        if (const std::string& group = graph.op(op).colocate; !group.empty())
            if (auto [it, added] = firstOfGroup.try_emplace(group, op); !added)
                unite(it->second, op);
        if (const auto& module = modules[static_cast<size_t>(op)])
            if (auto [it, added] = firstOfModule.try_emplace(*module, op); !added)
                unite(it->second, op);
    }
    // A set that joins two or more of the graph's groups (an op without a group counts as its
    // own) is named after its first module; the others keep their names, so a graph whose
    // modules join nothing comes back as it was.
    const auto unitOf = [&graph](OpId op) {
        const std::string& group = graph.op(op).colocate;
        if (!group.empty())
            return group;
        std::string own(1, '#'); // not "#" + to_string: GCC 12's -Wrestrict misfires on it
        own += std::to_string(op);
        return own;
    };
    std::vector<const std::string*> moduleOf(static_cast<size_t>(graph.opCount()), nullptr);
    std::vector<std::string> firstUnit(static_cast<size_t>(graph.opCount()));
    std::vector<char> joins(static_cast<size_t>(graph.opCount()), 0);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const auto root = static_cast<size_t>(find(op));
        if (const auto& module = modules[static_cast<size_t>(op)]; module && !moduleOf[root])
            moduleOf[root] = &*module;
        std::string unit = unitOf(op);
        if (firstUnit[root].empty())
            firstUnit[root] = std::move(unit);
        else if (firstUnit[root] != unit)
            joins[root] = 1;
    }
    std::vector<Op> ops(graph.ops().begin(), graph.ops().end());
    int changed = 0;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const auto root = static_cast<size_t>(find(op));
        if (!joins[root])
            continue;
        if (static_cast<OpId>(root) == op)
            ++changed;
        ops[static_cast<size_t>(op)].colocate = "module:" + *moduleOf[root];
    }
    if (joined)
        *joined = changed;
    return withOps(graph, std::move(ops));
}

std::optional<std::string> moduleSidecarOf(const std::string& graphPath)
{
    std::string sidecar = graphPath + ".modules.json";
    std::error_code error;
    if (std::filesystem::is_regular_file(sidecar, error))
        return sidecar;
    return std::nullopt;
}

std::optional<ModuleGroups> groupByModules(Graph& graph, const std::string& graphPath, const std::string& sidecar)
{
    std::optional<std::string> path = sidecar.empty() ? moduleSidecarOf(graphPath) : sidecar;
    if (!path)
        return std::nullopt;
    ModuleGroups groups{*path, readOpModules(*path, graph), 0};
    graph = colocatedByModule(graph, groups.modules, &groups.joined);
    return groups;
}

std::string ModuleGroups::note() const
{
    if (joined == 0)
        return {};
    std::string text = sidecar;
    text += ": each PyTorch module's ops are placed together, as post_torch.apply runs them (";
    text += std::to_string(joined);
    text += joined == 1 ? " colocation group made or joined)" : " colocation groups made or joined)";
    return text;
}

std::string torchMapJson(std::string_view placementText, const std::string& source, PlacementProvenance* made)
{
    const JsonInput in(source);
    const nlohmann::json root = in.parse(placementText);
    const PlacementProvenance header = checkPlacementHeader(in, root);
    if (made)
        *made = header;
    const nlohmann::json& placement = in.object(in.require(root, "placement", {}), "placement");
    const nlohmann::json* modules = in.find(root, "modules");
    if (!modules)
        in.fail("modules",
                "missing: this placement carries no module paths (place the PyTorch export with its "
                ".modules.json sidecar beside it; docs/pytorch.md)");
    in.object(*modules, "modules");

    // nlohmann::json objects iterate in key order; the tie rule needs the file's order, read
    // by one SAX pass (an ordered_json parse looks each key up linearly: quadratic, 43 s at 107k ops).
    const std::vector<std::string> ordered = placementKeysInFileOrder(placementText);
    struct Votes {
        std::vector<std::pair<std::string, int>> count; // devices in the order first seen
        std::size_t order = 0;
    };
    std::map<std::string, Votes> byModule;
    std::size_t order = 0;
    for (const std::string& op : ordered) {
        const auto it = modules->find(op);
        if (it == modules->end())
            continue;
        const std::string module = in.string(*it, JsonInput::member("modules", op));
        const std::string name = in.string(placement.at(op), JsonInput::member("placement", op));
        Votes& votes = byModule[module];
        if (votes.count.empty())
            votes.order = order++;
        auto seen = std::find_if(votes.count.begin(), votes.count.end(), [&](const auto& c) { return c.first == name; });
        if (seen == votes.count.end())
            votes.count.emplace_back(name, 1);
        else
            ++seen->second;
    }
    for (auto it = modules->begin(); it != modules->end(); ++it)
        if (!placement.contains(it.key()))
            in.fail(JsonInput::member("modules", it.key()), "op \"" + it.key() + "\" is not in the placement");

    std::vector<std::pair<std::size_t, std::pair<std::string, std::string>>> rows;
    for (const auto& [module, votes] : byModule) {
        // The most ops; among equals, the device seen first.
        const auto chosen = std::max_element(votes.count.begin(), votes.count.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; });
        rows.push_back({votes.order, {module, chosen->first}});
    }
    std::sort(rows.begin(), rows.end());
    nlohmann::ordered_json out;
    out["format"] = "post-torch-map/1";
    if (const nlohmann::json* g = in.find(root, "graph"))
        out["graph"] = in.string(*g, "graph");
    if (const nlohmann::json* c = in.find(root, "cluster"))
        out["cluster"] = in.string(*c, "cluster");
    nlohmann::ordered_json& map = out["modules"] = nlohmann::ordered_json::object();
    // Appended to the ordered map's vector: its operator[] searches linearly (the modules are
    // distinct, from a std::map).
    auto& entries = static_cast<nlohmann::ordered_json::object_t::Container&>(
        map.get_ref<nlohmann::ordered_json::object_t&>());
    entries.reserve(rows.size());
    for (const auto& [_, row] : rows)
        entries.emplace_back(row.first, row.second);
    return JsonOutput::document(out);
}

} // namespace post
