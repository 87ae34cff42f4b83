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

TfGraphDef parseTfGraphDef(std::string_view text, const std::string& source)
{
    TfGraphDef graph;
    graph.root = parseTextProto(text, source);
    const TextProtoField* container = &graph.root;
    if (!graph.root.find("node"))
        if (const TextProtoField* def = graph.root.find("graph_def"); def && def->isMessage)
            container = def; // a MetaGraphDef
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
        throw InputError(source, {}, "no 'node { ... }' in the GraphDef");
    return graph;
}

} // namespace post
