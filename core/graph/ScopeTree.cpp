#include "core/graph/ScopeTree.h"

#include "core/graph/Graph.h"
#include "core/graph/LayerGroups.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

// End offsets of the name's non-empty '/'-separated components.
void componentEnds(std::string_view name, std::vector<size_t>& ends)
{
    ends.clear();
    size_t i = 0;
    while (i < name.size()) {
        const size_t slash = name.find('/', i);
        const size_t end = slash == std::string_view::npos ? name.size() : slash;
        if (end > i)
            ends.push_back(end);
        i = end + 1;
    }
}

// The scope as first built, one per path component, before chains are merged.
struct RawScope {
    std::string_view path;
    std::string_view label;
    std::vector<int> children;
    std::vector<OpId> ops;
};

} // namespace

std::string ScopeTree::numberPattern(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    for (const char c : name) {
        if (c >= '0' && c <= '9') {
            if (out.empty() || out.back() != '#')
                out.push_back('#');
        } else {
            out.push_back(c);
        }
    }
    return out;
}

namespace {

// The digit runs of a name, in order.
std::vector<std::string_view> digitRuns(std::string_view name)
{
    std::vector<std::string_view> runs;
    for (std::size_t i = 0; i < name.size();) {
        if (name[i] < '0' || name[i] > '9') {
            ++i;
            continue;
        }
        std::size_t e = i;
        while (e < name.size() && name[e] >= '0' && name[e] <= '9')
            ++e;
        runs.push_back(name.substr(i, e - i));
        i = e;
    }
    return runs;
}

long long runValue(std::string_view run)
{
    long long v = 0;
    for (const char c : run)
        v = v > (std::numeric_limits<long long>::max() - 9) / 10 ? v : v * 10 + (c - '0');
    return v;
}

} // namespace

std::string ScopeTree::seriesTitle(std::span<const std::string_view> names)
{
    if (names.empty())
        return {};
    const std::vector<std::string_view> first = digitRuns(names.front());
    std::vector<char> varies(first.size(), 0);
    std::vector<long long> lo(first.size(), std::numeric_limits<long long>::max()), hi(first.size(), -1);
    for (std::string_view name : names) {
        const std::vector<std::string_view> runs = digitRuns(name);
        for (std::size_t k = 0; k < first.size() && k < runs.size(); ++k) {
            varies[k] = varies[k] || runs[k] != first[k];
            lo[k] = std::min(lo[k], runValue(runs[k]));
            hi[k] = std::max(hi[k], runValue(runs[k]));
        }
    }
    std::string title;
    std::string_view rest = names.front();
    bool rangeShown = false;
    for (std::size_t k = 0; k < first.size(); ++k) {
        const std::size_t at = static_cast<std::size_t>(first[k].data() - rest.data());
        title.append(rest.substr(0, at));
        if (!varies[k])
            title.append(first[k]);
        else if (!rangeShown) {
            title.push_back('[');
            title.append(std::to_string(lo[k]));
            title.append("\u2013"); // en dash
            title.append(std::to_string(hi[k]));
            title.push_back(']');
            rangeShown = true;
        } else
            title.push_back('*');
        rest.remove_prefix(at + first[k].size());
    }
    title.append(rest);
    return title;
}

ScopeTree ScopeTree::build(const Graph& graph) { return build(graph, {}); }

std::optional<ScopeTree> ScopeTree::buildByLayers(const Graph& graph)
{
    const LayerGroups layers = LayerGroups::find(graph);
    if (layers.layers < 2)
        return std::nullopt;
    std::vector<std::string> names(static_cast<size_t>(graph.opCount()));
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const std::string& name = graph.op(op).name;
        const std::string path = layers.scopeOf(op);
        if (path.empty()) {
            names[static_cast<size_t>(op)] = name;
            continue;
        }
        // The op's whole name is its label in the layer: its own '/' become U+2215 (∕).
        std::string label;
        for (const char c : name)
            label += c == '/' ? std::string("\u2215") : std::string(1, c);
        names[static_cast<size_t>(op)] = path + "/" + label;
    }
    return build(graph, std::move(names));
}

ScopeTree ScopeTree::build(const Graph& graph, std::vector<std::string> names)
{
    const int n = graph.opCount();
    ScopeTree tree;
    tree.names_ = std::move(names);
    auto nameOf = [&](OpId id) -> std::string_view { return tree.nameOf(graph, id); };
    // Every proper prefix of a name is a scope; a whole name is one when another op is beneath it.
    std::unordered_set<std::string_view> prefixes;
    prefixes.reserve(static_cast<size_t>(n));
    std::vector<size_t> ends;
    for (OpId id = 0; id < n; ++id) {
        const std::string_view name = nameOf(id);
        componentEnds(name, ends);
        // Longest first: a prefix already there has its own prefixes there too.
        for (size_t j = ends.size() - (ends.empty() ? 0 : 1); j-- > 0;)
            if (!prefixes.insert(name.substr(0, ends[j])).second)
                break;
    }

    std::vector<RawScope> raw(1);
    raw.reserve(prefixes.size() + 1);
    std::unordered_map<std::string_view, int> index;
    index.reserve(prefixes.size());
    for (OpId id : graph.topologicalOrder()) {
        const std::string_view name = nameOf(id);
        componentEnds(name, ends);
        size_t levels = ends.empty() ? 0 : ends.size() - 1;
        if (!ends.empty() && prefixes.count(name) > 0)
            levels = ends.size();
        if (levels > 0) {
            // Most ops share their scope with an op before them: one look-up then.
            const auto known = index.find(name.substr(0, ends[levels - 1]));
            if (known != index.end()) {
                raw[static_cast<size_t>(known->second)].ops.push_back(id);
                continue;
            }
        }
        int scope = kRoot;
        size_t labelStart = 0;
        for (size_t j = 0; j < levels; ++j) {
            const std::string_view path = name.substr(0, ends[j]);
            auto [it, inserted] = index.emplace(path, static_cast<int>(raw.size()));
            if (inserted) {
                while (labelStart < ends[j] && name[labelStart] == '/')
                    ++labelStart;
                RawScope child;
                child.path = path;
                child.label = name.substr(labelStart, ends[j] - labelStart);
                raw[static_cast<size_t>(scope)].children.push_back(it->second);
                raw.push_back(std::move(child));
            }
            scope = it->second;
            labelStart = ends[j] + 1;
        }
        raw[static_cast<size_t>(scope)].ops.push_back(id);
    }

    // Depth first from the root, merging chains of scopes without ops of their own.
    tree.scopeOfOp_.assign(static_cast<size_t>(n), kRoot);
    tree.order_.reserve(static_cast<size_t>(n));
    tree.scopes_.reserve(raw.size());
    struct Frame {
        int raw;
        int parent;
        size_t next = 0; // next child to visit
        int built = -1;
    };
    std::vector<Frame> stack;
    auto enter = [&](int r, int parent) {
        std::string label(raw[static_cast<size_t>(r)].label);
        if (r != kRoot) {
            while (raw[static_cast<size_t>(r)].ops.empty() && raw[static_cast<size_t>(r)].children.size() == 1) {
                r = raw[static_cast<size_t>(r)].children.front();
                label.append("/").append(raw[static_cast<size_t>(r)].label);
            }
        }
        RawScope& rs = raw[static_cast<size_t>(r)];
        const int id = tree.scopeCount();
        Scope s;
        s.path = std::string(rs.path);
        s.label = std::move(label);
        s.parent = parent;
        s.depth = parent < 0 ? 0 : tree.scope(parent).depth + 1;
        s.ops = std::move(rs.ops); // each raw scope is entered once
        s.begin = static_cast<int>(tree.order_.size());
        for (OpId op : s.ops) {
            tree.scopeOfOp_[static_cast<size_t>(op)] = id;
            tree.order_.push_back(op);
            const Op& o = graph.op(op);
            for (size_t k = 0; k < s.timeUs.size(); ++k)
                s.timeUs[k] += o.timeUs[k];
        }
        if (parent >= 0)
            tree.scopes_[static_cast<size_t>(parent)].children.push_back(id);
        tree.scopes_.push_back(std::move(s));
        stack.push_back(Frame{r, parent, 0, id});
    };
    enter(kRoot, -1);
    while (!stack.empty()) {
        Frame& top = stack.back();
        const RawScope& rs = raw[static_cast<size_t>(top.raw)];
        if (top.next < rs.children.size()) {
            const int child = rs.children[top.next++];
            enter(child, top.built);
            continue;
        }
        Scope& done = tree.scopes_[static_cast<size_t>(top.built)];
        done.end = static_cast<int>(tree.order_.size());
        const int parent = top.parent;
        const std::array<double, kDeviceKindCount> times = done.timeUs;
        stack.pop_back();
        if (parent >= 0)
            for (size_t k = 0; k < times.size(); ++k)
                tree.scopes_[static_cast<size_t>(parent)].timeUs[k] += times[k];
    }
    // Boxes when open, and series membership.
    std::unordered_map<std::string, int> alike;
    for (int id = 0; id < tree.scopeCount(); ++id) {
        Scope& sc = tree.scopes_[static_cast<size_t>(id)];
        alike.clear();
        int plain = 0;
        auto add = [&](std::string_view label) {
            std::string pattern = numberPattern(label);
            if (pattern.find('#') == std::string::npos)
                ++plain;
            else
                ++alike[std::move(pattern)];
        };
        for (OpId op : sc.ops)
            add(tree.opLabel(graph, op));
        for (int c : sc.children)
            add(tree.scope(c).label);
        sc.boxes = plain;
        for (const auto& [pattern, count] : alike)
            sc.boxes += count >= kSeriesMin ? 1 : count;
        for (int c : sc.children) {
            const auto it = alike.find(numberPattern(tree.scope(c).label));
            tree.scopes_[static_cast<size_t>(c)].inSeries = it != alike.end() && it->second >= kSeriesMin;
        }
    }
    return tree;
}

std::span<const OpId> ScopeTree::opsBelow(int s) const
{
    const Scope& sc = scope(s);
    return std::span<const OpId>(order_).subspan(static_cast<size_t>(sc.begin), static_cast<size_t>(sc.end - sc.begin));
}

bool ScopeTree::isWithin(int s, int ancestor) const
{
    while (s >= 0) {
        if (s == ancestor)
            return true;
        s = scope(s).parent;
    }
    return false;
}

int ScopeTree::find(const std::string& path) const
{
    for (int s = 0; s < scopeCount(); ++s)
        if (scope(s).path == path)
            return s;
    return -1;
}

std::string_view ScopeTree::nameOf(const Graph& graph, OpId op) const
{
    return names_.empty() ? std::string_view(graph.op(op).name) : std::string_view(names_[static_cast<size_t>(op)]);
}

std::string ScopeTree::opLabel(const Graph& graph, OpId op) const
{
    const std::string_view name = nameOf(graph, op);
    const std::string& path = scope(scopeOf(op)).path;
    std::string_view rest = name;
    if (path.size() < name.size())
        rest.remove_prefix(path.size());
    else {
        // The op is its scope's own name: show its last component.
        const size_t trimmed = name.find_last_not_of('/');
        const size_t slash = trimmed == std::string::npos ? std::string::npos : name.rfind('/', trimmed);
        rest = slash == std::string::npos ? std::string_view(name) : std::string_view(name).substr(slash + 1);
    }
    while (!rest.empty() && rest.front() == '/')
        rest.remove_prefix(1);
    return std::string(rest.empty() ? name : rest);
}

std::vector<int> ScopeTree::deviceCounts(int s, const Placement& placement, int deviceCount) const
{
    std::vector<int> counts(static_cast<size_t>(std::max(0, deviceCount)) + 1, 0);
    for (OpId op : opsBelow(s)) {
        const DeviceId d = static_cast<size_t>(op) < placement.size() ? placement[static_cast<size_t>(op)] : kNoDevice;
        const bool known = d >= 0 && d < deviceCount;
        ++counts[known ? static_cast<size_t>(d) : static_cast<size_t>(deviceCount)];
    }
    return counts;
}

int ScopeTree::visibleCount(const std::vector<int>& open) const
{
    auto isOpen = [&](int s) { return std::binary_search(open.begin(), open.end(), s); };
    int count = 0;
    std::vector<int> stack;
    if (isOpen(kRoot))
        stack.push_back(kRoot);
    else
        count = 1;
    while (!stack.empty()) {
        const int s = stack.back();
        stack.pop_back();

        // Its boxes, less the open children (frames, counted by what they show).
        count += scope(s).boxes;
        for (int c : scope(s).children) {
            if (scope(c).inSeries)
                continue; // inside the series' box
            if (isOpen(c)) {
                --count;
                stack.push_back(c);
            }
        }
    }
    return count;
}

std::vector<int> ScopeTree::openWithin(int budget) const
{
    std::vector<char> open(static_cast<size_t>(scopeCount()), 0);
    std::vector<char> decided(static_cast<size_t>(scopeCount()), 0);
    open[kRoot] = 1;
    // Scopes whose paths differ only in numbers (every layer's "attention") open together.
    std::vector<std::string> pattern(static_cast<size_t>(scopeCount()));
    std::unordered_map<std::string, std::vector<int>> alike;
    for (int s = 1; s < scopeCount(); ++s) {
        pattern[static_cast<size_t>(s)] = numberPattern(scope(s).path);
        alike[pattern[static_cast<size_t>(s)]].push_back(s);
    }
    auto grows = [&](int s) { return scope(s).boxes - 1; };
    int visible = grows(kRoot) + 1;
    auto bigger = [&](int a, int b) { return opCount(a) != opCount(b) ? opCount(a) < opCount(b) : a > b; };
    std::priority_queue<int, std::vector<int>, decltype(bigger)> queue(bigger);
    for (int c : scope(kRoot).children)
        queue.push(c);
    while (!queue.empty()) {
        const int s = queue.top();
        queue.pop();
        if (decided[static_cast<size_t>(s)])
            continue;
        std::vector<int> group;
        int cost = 0;
        for (int a : alike[pattern[static_cast<size_t>(s)]]) {
            if (decided[static_cast<size_t>(a)])
                continue;
            decided[static_cast<size_t>(a)] = 1;
            if (!open[static_cast<size_t>(scope(a).parent)] || opCount(a) < kMinOpenOps || scope(a).inSeries)
                continue; // inside a closed scope or series (or too small): opening it shows nothing
            group.push_back(a);
            cost += grows(a);
        }
        if (group.empty() || visible + cost > budget)
            continue;
        visible += cost;
        for (int g : group) {
            open[static_cast<size_t>(g)] = 1;
            for (int c : scope(g).children)
                queue.push(c);
        }
    }
    std::vector<int> out;
    for (int s = 0; s < scopeCount(); ++s)
        if (open[static_cast<size_t>(s)])
            out.push_back(s);
    return out;
}

} // namespace post
