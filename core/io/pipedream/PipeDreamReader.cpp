#include "core/io/pipedream/PipeDreamReader.h"

#include "core/io/TrainingStepBuilder.h"
#include "core/io/pipedream/PipeDreamStats.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"
#include "core/util/TextNumber.h"

#include <cmath>
#include <unordered_set>
#include <vector>

namespace post {
namespace {

constexpr std::string_view kSeparator = " -- ";

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    while (true) {
        const auto at = line.find(kSeparator);
        fields.push_back(line.substr(0, at));
        if (at == std::string_view::npos)
            return fields;
        line.remove_prefix(at + kSeparator.size());
    }
}

bool isNodeId(std::string_view id) { return !id.empty() && id.find_first_of(" \t") == std::string_view::npos; }

} // namespace

Graph parsePipeDreamGraph(std::string_view text, const std::string& source, const ImportOptions& options,
                          std::vector<std::string>* warnings)
{
    TrainingStepBuilder builder(source, graphNameFromSource(source), options);
    std::vector<std::string> nodes; // in file order
    std::unordered_set<std::string> joined;
    int lineNumber = 0;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (trimBlanks(line).empty())
            continue;
        const std::string location = "line " + std::to_string(lineNumber);

        if (line.front() == '\t' || line.front() == ' ') {
            const std::vector<std::string_view> ends = splitFields(trimBlanks(line));
            if (ends.size() != 2 || !isNodeId(ends[0]) || !isNodeId(ends[1]))
                throw InputError(source, location,
                                 "malformed edge line: expected '<TAB>nodeX -- nodeY', got '"
                                     + std::string(trimBlanks(line)) + "'");
            builder.addEdge(std::string(ends[0]), std::string(ends[1]), location);
            joined.emplace(ends[0]);
            joined.emplace(ends[1]);
            continue;
        }

        std::vector<std::string_view> fields = splitFields(line);
        if (fields.size() >= 4 && trimBlanks(fields.back()).starts_with("stage_id=")) {
            // The stage a PipeDream partition assigned: not a cost, so only checked.
            const auto stage = parseDecimal(trimBlanks(fields.back()).substr(9));
            // floor(), not a cast to an integer: a cast of inf or 1e300 is undefined (fuzz_pipedream).
            if (!stage || !std::isfinite(*stage) || *stage < 0 || *stage != std::floor(*stage))
                throw InputError(source, location,
                                 "stage_id must be an integer >= 0, got '"
                                     + std::string(trimBlanks(fields.back()).substr(9)) + "'");
            fields.pop_back();
        }
        if (fields.size() < 3 || !isNodeId(fields.front()) || fields.back().find('=') == std::string_view::npos)
            throw InputError(source, location,
                             "malformed node line: expected 'nodeN -- description -- forward_compute_time=F, "
                             "backward_compute_time=B, activation_size=A, parameter_size=P'");
        // A description containing " -- " was split too: join the middle back.
        std::string description(fields[1]);
        for (size_t i = 2; i + 1 < fields.size(); ++i)
            description += std::string(kSeparator) + std::string(fields[i]);
        const PipeDreamStats stats = parsePipeDreamStats(fields.back(), source, location);
        builder.addLayer(std::string(fields.front()), std::string(trimBlanks(description)), stats, location);
        nodes.emplace_back(fields.front());
    }
    Graph graph = std::move(builder).build(); // refuses edges to nodes that are not there first
    if (warnings && !joined.empty()) {
        std::vector<std::string> alone;
        for (const std::string& node : nodes)
            if (!joined.count(node))
                alone.push_back(node);
        if (!alone.empty()) {
            std::string names;
            for (std::size_t i = 0; i < alone.size() && i < 3; ++i)
                names += (i ? ", " : "") + alone[i];
            warnings->push_back(std::to_string(alone.size()) + " of " + std::to_string(nodes.size())
                                + " nodes have no edge (" + names + (alone.size() > 3 ? ", ..." : "")
                                + "): the file may be cut short. They run beside the others, tied to none of them");
        }
    }
    return graph;
}

} // namespace post
