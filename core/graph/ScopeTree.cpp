#include "core/graph/ScopeTree.h"

#include "core/graph/Graph.h"

#include <algorithm>
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

ScopeTree ScopeTree::build(const Graph& graph)
{
    const int n = graph.opCount();
    // Every proper prefix of a name is a scope; a whole name is one when another op is beneath it.
    std::unordered_set<std::string_view> prefixes;
    prefixes.reserve(static_cast<size_t>(n));
    std::vector<size_t> ends;
    for (OpId id = 0; id < n; ++id) {
        const std::string_view name = graph.op(id).name;
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
        const std::string_view name = graph.op(id).name;
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
    ScopeTree tree;
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

std::string ScopeTree::opLabel(const Graph& graph, OpId op) const
{
    const std::string& name = graph.op(op).name;
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
    return rest.empty() ? name : std::string(rest);
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
