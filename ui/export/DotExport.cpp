#include "ui/export/DotExport.h"

#include "ui/theme/CategoryPalette.h"
#include "ui/theme/ViewTheme.h"

#include <charconv>
#include <string_view>

namespace post {
namespace {

void appendQuoted(std::string& out, std::string_view text)
{
    out += '"';
    for (char c : text) {
        if (c == '"')
            out += '\\';
        out += c;
    }
    out += '"';
}

// Numbers are written quoted: the shortest exact form may carry an exponent (6.44e-05),
// which a DOT numeral cannot (unquoted, cgraph splits it into "6.44e" and "-05"), and a
// quoted ID reads back as the same text, so the reader gets the exact value.
void appendNumber(std::string& out, double value)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value); // shortest exact form
    out += '"';
    out.append(buffer, result.ptr);
    out += '"';
}

std::string hex(const QColor& colour) { return colour.name(QColor::HexRgb).toStdString(); }

} // namespace

std::string dotWithDeviceColours(const GraphDocument& document)
{
    const Graph& graph = *document.graph;
    const ViewTheme theme = ViewTheme::light();
    std::string out;
    out.reserve(static_cast<size_t>(graph.opCount()) * 160 + static_cast<size_t>(graph.edgeCount()) * 40 + 256);
    out += "digraph ";
    appendQuoted(out, graph.name());
    out += " {\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n";
    for (OpId id = 0; id < graph.opCount(); ++id) {
        const Op& op = graph.op(id);
        const DeviceId device = document.deviceOf(id);
        const QColor fill = device == kNoDevice ? theme.unplaced : CategoryPalette::colour(device);
        out += "  ";
        appendQuoted(out, op.name);
        out += " [type=";
        appendQuoted(out, op.type);
        out += ", time_us_gpu=";
        appendNumber(out, op.time(DeviceKind::Gpu));
        out += ", time_us_cpu=";
        appendNumber(out, op.time(DeviceKind::Cpu));
        out += ", output_bytes=";
        appendNumber(out, op.outputBytes);
        out += ", param_bytes=";
        appendNumber(out, op.paramBytes);
        if (!op.colocate.empty()) {
            out += ", colocate=";
            appendQuoted(out, op.colocate);
        }
        if (device != kNoDevice) {
            out += ", device=";
            appendQuoted(out, document.cluster->device(device).name);
        }
        out += ", fillcolor=\"" + hex(fill) + "\", fontcolor=\"" + hex(ViewTheme::textOn(fill)) + "\"];\n";
    }
    for (const Edge& edge : graph.edges()) {
        out += "  ";
        appendQuoted(out, graph.op(edge.from).name);
        out += " -> ";
        appendQuoted(out, graph.op(edge.to).name);
        out += " [bytes=";
        appendNumber(out, edge.bytes);
        out += "];\n";
    }
    out += "}\n";
    return out;
}

} // namespace post
