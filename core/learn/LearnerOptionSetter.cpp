#include "core/learn/LearnerOptionSetter.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

namespace post {
namespace {

std::optional<double> number(std::string_view text)
{
    double v = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::string shortNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// Built with append() rather than chained operator+: GCC 12 raises a false -Wrestrict
// on some chains of std::string concatenation at -O2.
std::string join(std::initializer_list<std::string_view> parts)
{
    std::string text;
    for (std::string_view p : parts)
        text.append(p);
    return text;
}

using Setter = std::function<std::optional<std::string>(LearnerOptions&, std::string_view)>;

// Which ends of a numeric option's range it may take: [lo, hi], (lo, hi] or [lo, hi). The
// range is the one validateLearnerOptions() enforces, so every value --set accepts runs and
// every value it refuses is refused here, under the key the user typed.
enum class Ends { Closed, OpenLow, OpenHigh };

// A numeric option in its range; integral ones reject fractions.
Setter numeric(double lo, double hi, bool integral, std::function<void(LearnerOptions&, double)> apply,
               Ends ends = Ends::Closed)
{
    return [=](LearnerOptions& o, std::string_view text) -> std::optional<std::string> {
        const auto v = number(text);
        if (!v && text.find_first_of("0123456789") == std::string_view::npos && !text.empty())
            return join({"expects a number, got '", text, "' (not a finite number)"}); // nan, inf
        if (!v || (integral && std::floor(*v) != *v))
            return join({"expects ", integral ? "an integer" : "a number", ", got '", text, "'"});
        const bool low = ends == Ends::OpenLow ? *v > lo : *v >= lo;
        const bool high = ends == Ends::OpenHigh ? *v < hi : *v <= hi;
        if (!low || !high)
            return join({"must be in ", ends == Ends::OpenLow ? "(" : "[", shortNumber(lo), ", ", shortNumber(hi),
                         ends == Ends::OpenHigh ? ")" : "]", ", got ", text});
        apply(o, *v);
        return std::nullopt;
    };
}

using Getter = std::function<std::string(const LearnerOptions&)>;

struct Entry {
    LearnerOptionInfo info;
    Setter set;
    Getter get;
};

// Shortest text that reads back as the same double (%g alone rounds to 6 digits).
std::string exactNumber(double v)
{
    char buf[32];
    for (int precision = 6; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (number(buf) == v)
            break;
    }
    return buf;
}

const char* groupingName(GroupingStrategy s)
{
    switch (s) {
    case GroupingStrategy::Auto:
        return "auto";
    case GroupingStrategy::None:
        return "none";
    case GroupingStrategy::Chains:
        return "chains";
    case GroupingStrategy::Chunks:
        return "chunks";
    case GroupingStrategy::NameScopes:
        return "scopes";
    }
    return "auto";
}

const std::vector<Entry>& entries()
{
    static const std::vector<Entry> table = {
        {{"batch", "K: samples between PPO/REINFORCE updates (default 20)", {}},
         numeric(1, 1e6, true, [](LearnerOptions& o, double v) { o.batchSize = static_cast<int>(v); }),
         [](const LearnerOptions& o) { return exactNumber(o.batchSize); }},
        {{"ce-interval", "N: samples between cross-entropy steps (default 100)", {}},
         numeric(1, 1e8, true, [](LearnerOptions& o, double v) { o.ceInterval = static_cast<int>(v); }),
         [](const LearnerOptions& o) { return exactNumber(o.ceInterval); }},
        {{"elite", "rho: elite fraction of the last N samples (default 0.1)", {}},
         numeric(1e-6, 1, false, [](LearnerOptions& o, double v) { o.eliteFraction = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.eliteFraction); }},
        {{"ce-smoothing", "eps: mix with uniform after a CE step (default 0.05)", {}},
         numeric(0, 1, false, [](LearnerOptions& o, double v) { o.ceSmoothing = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.ceSmoothing); }},
        {{"ppo-epochs", "gradient steps per PPO batch (default 10)", {}},
         numeric(0, 1000, true, [](LearnerOptions& o, double v) { o.ppoEpochs = static_cast<int>(v); }),
         [](const LearnerOptions& o) { return exactNumber(o.ppoEpochs); }},
        {{"ppo-clip", "clip epsilon of the surrogate (default 0.2)", {}},
         numeric(
             0, 10, false, [](LearnerOptions& o, double v) { o.ppoClip = v; }, Ends::OpenLow),
         [](const LearnerOptions& o) { return exactNumber(o.ppoClip); }},
        {{"entropy-bonus", "PPO entropy weight (default 0)", {}},
         numeric(0, 100, false, [](LearnerOptions& o, double v) { o.entropyBonus = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.entropyBonus); }},
        {{"reinforce-decay", "REINFORCE baseline EMA decay (default 0.9)", {}},
         numeric(
             0, 1, false, [](LearnerOptions& o, double v) { o.reinforceBaselineDecay = v; }, Ends::OpenHigh),
         [](const LearnerOptions& o) { return exactNumber(o.reinforceBaselineDecay); }},
        {{"lr", "Adam learning rate on the logits (default 0.05)", {}},
         numeric(1e-9, 100, false, [](LearnerOptions& o, double v) { o.adam.learningRate = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.adam.learningRate); }},
        {{"max-groups", "cap on policy groups for large graphs (default 256)", {}},
         numeric(1, 1e7, true, [](LearnerOptions& o, double v) { o.grouping.maxGroups = static_cast<int>(v); }),
         [](const LearnerOptions& o) { return exactNumber(o.grouping.maxGroups); }},
        {{"warm-mass", "probability a warm start puts on its device (default 0.9)", {}},
         numeric(0, 1, false, [](LearnerOptions& o, double v) { o.warmStartMass = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.warmStartMass); }},
        {{"grouping", "auto, none, chains, chunks or scopes (default auto)", {"auto", "none", "chains", "chunks", "scopes"}},
         [](LearnerOptions& o, std::string_view v) -> std::optional<std::string> {
             static const std::pair<const char*, GroupingStrategy> names[] = {{"auto", GroupingStrategy::Auto},
                                                                              {"none", GroupingStrategy::None},
                                                                              {"chains", GroupingStrategy::Chains},
                                                                              {"chunks", GroupingStrategy::Chunks},
                                                                              {"scopes", GroupingStrategy::NameScopes}};
             for (const auto& [name, strategy] : names)
                 if (v == name) {
                     o.grouping.strategy = strategy;
                     return std::nullopt;
                 }
             return join({"expects auto, none, chains, chunks or scopes, got '", v, "'"});
         },
         [](const LearnerOptions& o) { return std::string(groupingName(o.grouping.strategy)); }},
        {{"penalty", "out-of-memory penalty: growing or fixed (default growing)", {"growing", "fixed"}},
         [](LearnerOptions& o, std::string_view v) -> std::optional<std::string> {
             if (v == "growing")
                 o.penalty.kind = InfeasiblePenalty::GrowingWithExcess;
             else if (v == "fixed")
                 o.penalty.kind = InfeasiblePenalty::Fixed;
             else
                 return join({"expects growing or fixed, got '", v, "'"});
             return std::nullopt;
         },
         [](const LearnerOptions& o) {
             return std::string(o.penalty.kind == InfeasiblePenalty::Fixed ? "fixed" : "growing");
         }},
        {{"symmetry", "post: relabel interchangeable devices per sample, 1 or 0 (default 1)", {}},
         numeric(0, 1, true, [](LearnerOptions& o, double v) { o.symmetryBreaking = v != 0.0; }),
         [](const LearnerOptions& o) { return std::string(o.symmetryBreaking ? "1" : "0"); }},
        {{"coarse-to-fine", "post: contiguous chunks first on chain-like graphs, 1 or 0 (default 1)", {}},
         numeric(0, 1, true, [](LearnerOptions& o, double v) { o.coarseToFine = v != 0.0; }),
         [](const LearnerOptions& o) { return std::string(o.coarseToFine ? "1" : "0"); }},
        {{"local-search", "post: hill-climb the best and elite placements, 1 or 0 (default 1)", {}},
         numeric(0, 1, true, [](LearnerOptions& o, double v) { o.localSearch = v != 0.0; }),
         [](const LearnerOptions& o) { return std::string(o.localSearch ? "1" : "0"); }},
        {{"block-moves",
          "post, post@best: the local search also moves the blocks of ops the critical path waited for, 1 or 0 "
          "(default 1)",
          {}},
         numeric(0, 1, true, [](LearnerOptions& o, double v) { o.blockMoves = v != 0.0; }),
         [](const LearnerOptions& o) { return std::string(o.blockMoves ? "1" : "0"); }},
        {{"kicks",
          "post@best: share of the budget for the search after the race (the plateau walk, then the local search "
          "with kicks where it stalls; or the kicks alone), 0 to 0.9 (default 0.3)",
          {}},
         numeric(0, 0.9, false, [](LearnerOptions& o, double v) { o.kickShare = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.kickShare); }},
        {{"walk",
          "post@best: after the race, the plateau walk, then the local search with kicks where it stalls (1), or the "
          "kicks alone (0) (default 1)",
          {}},
         numeric(0, 1, true, [](LearnerOptions& o, double v) { o.plateauWalk = v != 0.0; }),
         [](const LearnerOptions& o) { return std::string(o.plateauWalk ? "1" : "0"); }},
        {{"coarse-width", "post: graphs narrower than this (work / critical path) start coarse (default 3)", {}},
         numeric(0, 1e9, false, [](LearnerOptions& o, double v) { o.coarseWidthLimit = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.coarseWidthLimit); }},
        {{"guide", "post: pull of each draw toward the earliest-finishing device, 0 turns it off (default 30)", {}},
         numeric(0, 1e6, false, [](LearnerOptions& o, double v) { o.guide = v; }),
         [](const LearnerOptions& o) { return exactNumber(o.guide); }},
        {{"restarts", "post: refine or restart on entropy collapse, 1 or 0 (default 1)", {}},
         numeric(0, 1, true, [](LearnerOptions& o, double v) { o.restarts = v != 0.0; }),
         [](const LearnerOptions& o) { return std::string(o.restarts ? "1" : "0"); }},
        {{"milp-groups",
          "milp: solve on N contiguous chunks (grouped bound); 0: op-level when it fits, else the most that fit "
          "(default 0)",
          {}},
         numeric(0, 1e6, true, [](LearnerOptions& o, double v) { o.milpGroups = static_cast<int>(v); }),
         [](const LearnerOptions& o) { return exactNumber(o.milpGroups); }},
    };
    return table;
}

} // namespace

const std::vector<LearnerOptionInfo>& learnerOptionKeys()
{
    static const std::vector<LearnerOptionInfo> keys = [] {
        std::vector<LearnerOptionInfo> k;
        for (const Entry& e : entries())
            k.push_back(e.info);
        return k;
    }();
    return keys;
}

std::optional<std::string> learnerOptionValue(const LearnerOptions& options, std::string_view key)
{
    for (const Entry& e : entries())
        if (e.info.key == key)
            return e.get(options);
    return std::nullopt;
}

std::optional<std::string> setLearnerOption(LearnerOptions& options, std::string_view key, std::string_view value)
{
    for (const Entry& e : entries())
        if (e.info.key == key) {
            if (auto problem = e.set(options, value))
                return join({"'", key, "' ", *problem});
            return std::nullopt;
        }
    std::string known;
    for (const Entry& e : entries())
        known.append(known.empty() ? "" : ", ").append(e.info.key);
    return join({"unknown learner option '", key, "' (", known, ")"});
}

} // namespace post
