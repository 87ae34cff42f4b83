#include "core/io/tf/TfGraphDef.h"

#include "core/io/tf/TextProtoParser.h"
#include "core/util/InputError.h"

#include <unordered_map>

namespace post {
namespace {

std::string lineOf(const TextProtoField& f) { return "line " + std::to_string(f.line); }

const std::string& stringField(const TextProtoField& f, const std::string& source)
{
    if (f.isMessage)
        throw InputError(source, lineOf(f), "field '" + f.name + "' must be a string, found a message");
    return f.value;
}

} // namespace

const TextProtoField* TfNode::attr(std::string_view key) const
{
    for (const TextProtoField& a : field->fields) {
        if (a.name != "attr" || !a.isMessage)
            continue;
        const TextProtoField* k = a.find("key");
        if (k && !k->isMessage && k->value == key) {
            const TextProtoField* v = a.find("value");
            return v && v->isMessage ? v : nullptr;
        }
    }
    return nullptr;
}

std::optional<std::string> tfCalledFunction(const TfNode& node)
{
    const TextProtoField* f = node.attr("f");
    const TextProtoField* func = f ? f->find("func") : nullptr;
    const TextProtoField* name = func && func->isMessage ? func->find("name") : nullptr;
    if (!name || name->isMessage)
        return std::nullopt;
    return name->value;
}

TfGraphDef parseTfGraphDef(std::string_view text, const std::string& source)
{
    TfGraphDef graph;
    graph.root = parseTextProto(text, source);
    const TextProtoField* container = &graph.root;
    if (!graph.root.find("node")) {
        const TextProtoField* meta = &graph.root;
        for (const TextProtoField& f : graph.root.fields)
            if (f.name == "meta_graphs" && f.isMessage && graph.metaGraphCount++ == 0)
                meta = &f; // a SavedModel: its first MetaGraphDef
        if (const TextProtoField* def = meta->find("graph_def"); def && def->isMessage)
            container = def; // a MetaGraphDef
    }
    if (const TextProtoField* library = container->find("library"); library && library->isMessage)
        for (const TextProtoField& f : library->fields)
            if (f.name == "function" && f.isMessage) {
                const TextProtoField* signature = f.find("signature");
                const TextProtoField* name = signature && signature->isMessage ? signature->find("name") : nullptr;
                graph.libraryFunctions.push_back(name && !name->isMessage ? name->value : std::string("(unnamed)"));
            }
    std::unordered_map<std::string, int> seen;
    for (const TextProtoField& f : container->fields) {
        if (f.name != "node")
            continue;
        if (!f.isMessage)
            throw InputError(source, lineOf(f), "'node' must be a message: node { name: ... op: ... }");
        TfNode node;
        node.field = &f;
        node.line = f.line;
        const TextProtoField* name = nullptr;
        const TextProtoField* op = nullptr;
        const TextProtoField* device = nullptr;
        for (const TextProtoField& g : f.fields) {
            const TextProtoField** single = g.name == "name" ? &name
                : g.name == "op"                             ? &op
                : g.name == "device"                         ? &device
                                                             : nullptr;
            if (single) {
                if (*single)
                    throw InputError(source, lineOf(g),
                                     "node field '" + g.name + "' given twice (first at line "
                                         + std::to_string((*single)->line) + ")");
                stringField(g, source);
                *single = &g;
            } else if (g.name == "input") {
                stringField(g, source);
                if (g.value.empty())
                    throw InputError(source, lineOf(g), "empty input name");
                node.inputs.push_back(&g);
            }
        }
        if (!name || name->value.empty())
            throw InputError(source, lineOf(f), "node without a name");
        if (!op || op->value.empty())
            throw InputError(source, lineOf(f), "node '" + name->value + "' has no op");
        node.name = name->value;
        node.op = op->value;
        node.device = device ? device->value : std::string();
        const auto [it, fresh] = seen.emplace(node.name, node.line);
        if (!fresh)
            throw InputError(source, lineOf(*name),
                             "duplicate node name '" + node.name + "' (first at line " + std::to_string(it->second) + ")");
        graph.nodes.push_back(std::move(node));
    }
    if (graph.nodes.empty())
        throw InputError(source, {},
                         graph.metaGraphCount > 0
                             ? "no 'node { ... }' in the SavedModel's first meta graph (meta_graphs { graph_def { node "
                               "... } })"
                             : "no 'node { ... }' in the GraphDef");
    return graph;
}

} // namespace post
