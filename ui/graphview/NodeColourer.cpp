#include "ui/graphview/NodeColourer.h"

#include "ui/theme/CategoryPalette.h"
#include "ui/theme/GradientScale.h"
#include "ui/util/Format.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

namespace post {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("NodeColourer", text); }

NodePaint categoryPaint(const QColor& category, const ViewTheme& theme)
{
    NodePaint p;
    p.fill = theme.nodeFill(category);
    p.border = theme.dark ? category.lighter(115) : category.darker(115);
    p.text = ViewTheme::textOn(p.fill);
    return p;
}

NodePaint gradientPaint(const QColor& colour, const ViewTheme& theme)
{
    NodePaint p;
    p.fill = colour;
    p.border = theme.dark ? colour.lighter(130) : colour.darker(130);
    p.text = ViewTheme::textOn(colour);
    return p;
}

QString deviceLabel(const Cluster& cluster, DeviceId d) { return QString::fromStdString(cluster.device(d).name); }

NodeColouring byDevice(const GraphDocument& doc, const ViewGraph& view, const ViewTheme& theme)
{
    NodeColouring out;
    out.legend.title = tr("Device");
    const int devices = doc.cluster ? doc.cluster->deviceCount() : 0;
    auto colourOf = [&](DeviceId d) { return d == kNoDevice ? theme.unplaced : CategoryPalette::colour(d); };
    std::vector<int> used(static_cast<size_t>(devices) + 1, 0); // last slot: unplaced
    std::vector<int> count(static_cast<size_t>(devices) + 1, 0);
    for (const ViewNode& node : view.nodes) {
        std::fill(count.begin(), count.end(), 0);
        for (OpId op : node.ops) {
            const DeviceId d = doc.deviceOf(op);
            ++count[d == kNoDevice ? static_cast<size_t>(devices) : static_cast<size_t>(d)];
        }
        // The box takes the colour of the device holding most of its ops.
        const auto top = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
        NodePaint paint = categoryPaint(colourOf(top == devices ? kNoDevice : top), theme);
        if (node.isGroup()) {
            for (int d = 0; d <= devices; ++d)
                if (count[static_cast<size_t>(d)] > 0)
                    paint.mix.emplace_back(colourOf(d == devices ? kNoDevice : d),
                                           double(count[static_cast<size_t>(d)]) / double(node.ops.size()));
        }
        for (size_t d = 0; d < count.size(); ++d)
            used[d] += count[d];
        out.paints.push_back(std::move(paint));
    }
    for (int d = 0; d < devices; ++d)
        if (used[static_cast<size_t>(d)] > 0)
            out.legend.entries.push_back({CategoryPalette::colour(d), deviceLabel(*doc.cluster, d)});
    if (used[static_cast<size_t>(devices)] > 0)
        out.legend.entries.push_back({theme.unplaced, tr("unplaced")});
    return out;
}

// The type most of a box's ops have; ties go to the op listed first (a layer's forward op).
const std::string& dominantType(const Graph& graph, const ViewNode& node)
{
    if (node.ops.size() == 1)
        return graph.op(node.ops.front()).type;
    std::map<std::string_view, int> count;
    for (OpId op : node.ops)
        ++count[graph.op(op).type];
    const std::string* best = &graph.op(node.ops.front()).type;
    int bestCount = 0;
    for (OpId op : node.ops) {
        const int c = count[graph.op(op).type];
        if (c > bestCount) {
            best = &graph.op(op).type;
            bestCount = c;
        }
    }
    return *best;
}

NodeColouring byOpType(const GraphDocument& doc, const ViewGraph& view, const ViewTheme& theme)
{
    NodeColouring out;
    out.legend.title = tr("Op type");
    // Box types by frequency; the most frequent get the palette's colours (stable: ties by
    // name), the rest share grey.
    std::vector<const std::string*> boxType;
    boxType.reserve(view.nodes.size());
    std::map<std::string, int> frequency;
    for (const ViewNode& node : view.nodes) {
        boxType.push_back(&dominantType(*doc.graph, node));
        ++frequency[*boxType.back()];
    }
    std::vector<std::pair<std::string, int>> types(frequency.begin(), frequency.end());
    std::stable_sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    const int named = std::min(static_cast<int>(types.size()), CategoryPalette::kSize);
    std::map<std::string, int> colourIndex;
    for (int i = 0; i < named; ++i)
        colourIndex[types[static_cast<size_t>(i)].first] = i;
    for (const std::string* type : boxType) {
        auto it = colourIndex.find(*type);
        out.paints.push_back(
            categoryPaint(it == colourIndex.end() ? theme.unplaced : CategoryPalette::colour(it->second), theme));
    }
    for (int i = 0; i < named; ++i) {
        const QString label = QString::fromStdString(types[static_cast<size_t>(i)].first);
        out.legend.entries.push_back({CategoryPalette::colour(i), label.isEmpty() ? tr("(no type)") : label});
    }
    if (named < static_cast<int>(types.size()))
        out.legend.entries.push_back({theme.unplaced, tr("other (%1 types)").arg(static_cast<int>(types.size()) - named)});
    return out;
}

template <typename ValueOf>
NodeColouring byGradient(const ViewGraph& view, const ViewTheme& theme, const QString& title, ValueOf valueOf,
                         QString (*format)(double))
{
    NodeColouring out;
    out.legend.title = title + tr(" (log scale)");
    out.legend.gradient = true;
    std::vector<double> values;
    values.reserve(view.nodes.size());
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0.0;
    for (const ViewNode& node : view.nodes) {
        double v = 0.0;
        for (OpId op : node.ops)
            v += valueOf(op);
        values.push_back(v);
        if (v > 0.0)
            lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (!(lo < std::numeric_limits<double>::infinity()))
        lo = hi = 0.0;
    const GradientScale scale(lo, hi);
    for (double v : values)
        out.paints.push_back(gradientPaint(scale.colour(v), theme));
    // The ends are the values they map: everything below the smallest positive value (an op
    // that takes no time, a box of them) gets the lowest colour as well, so that end says so.
    // The ramp is logarithmic: its middle is the geometric mean, and the title says it.
    const bool below = std::any_of(values.begin(), values.end(), [lo](double v) { return v < lo; });
    out.legend.lowLabel = below ? QStringLiteral("≤ ") + format(lo) : format(lo);
    out.legend.highLabel = format(hi);
    if (lo > 0.0 && hi > lo)
        out.legend.midLabel = format(std::sqrt(lo * hi));
    return out;
}

} // namespace

NodeColouring colourNodes(const GraphDocument& document, const ViewGraph& view, ColourMode mode, const ViewTheme& theme)
{
    if (!document.graph)
        return {};
    switch (mode) {
    case ColourMode::Device:
        return byDevice(document, view, theme);
    case ColourMode::OpType:
        return byOpType(document, view, theme);
    case ColourMode::ComputeTime:
        return byGradient(
            view, theme, tr("Compute time"), [&](OpId op) { return document.placedTimeUs(op); }, &formatMicroseconds);
    case ColourMode::Memory:
        return byGradient(
            view, theme, tr("Memory (output + parameters)"),
            [&](OpId op) { return document.graph->op(op).outputBytes + document.graph->op(op).paramBytes; },
            &formatBytes);
    }
    return {};
}

} // namespace post
