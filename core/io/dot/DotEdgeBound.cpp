#include "core/io/dot/DotEdgeBound.h"

#include "core/util/InputError.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace post {
namespace {

// One brace group being read: how many identifiers it holds, and the size of the operand
// an arrow before it left pending (-1: none), to multiply once the group closes.
struct Group {
    double count = 0.0;
    double pendingLeft = -1.0;
    std::optional<std::string> name; // "subgraph NAME { ... }": a body that may re-open an earlier one
};

bool isIdChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c >= 0x80; }

bool isKeyword(std::string_view word, std::string_view keyword)
{
    if (word.size() != keyword.size())
        return false;
    for (std::size_t k = 0; k < word.size(); ++k)
        if (std::tolower(static_cast<unsigned char>(word[k])) != keyword[k])
            return false;
    return true;
}

// The name cgraph gives "subgraph NAME": a quoted name loses its line continuations and the
// backslash of \". kAnyName stands for a name this scan cannot know ("A" + "B" concatenations,
// the %N names cgraph gives anonymous subgraphs): such a body may hold every node.
const std::string kAnyName = "%";

std::string subgraphKey(std::string_view token, bool quoted)
{
    std::string key;
    for (std::size_t k = 0; k < token.size(); ++k) {
        if (quoted && token[k] == '\\' && k + 1 < token.size()) {
            const char next = token[k + 1];
            if (next == '\n' || next == '"') {
                k += next == '"' ? 0 : 1;
                continue;
            }
            if (next == '\r' && k + 2 < token.size() && token[k + 2] == '\n') {
                k += 2;
                continue;
            }
        }
        key += token[k];
    }
    return key.starts_with('%') ? kAnyName : key;
}

// cgraph's parser spends seconds on tens of thousands of nested subgraphs; real graphs nest
// a handful.
constexpr std::size_t kMaxDotNesting = 1000;

} // namespace

double dotEdgeLimit(std::size_t bytes) { return std::max(1e5, static_cast<double>(bytes)); }

void checkDotEdgeBound(std::string_view text, const std::string& source, double limit)
{
    std::vector<Group> groups(1);
    double edges = 0.0;
    double lastOperand = 0.0;  // size of the operand just read (an arrow multiplies it)
    double pendingLeft = -1.0; // left operand of an arrow waiting for its right one
    bool attributeValue = false;
    bool subgraphName = false;
    std::optional<std::string> pendingName; // the NAME of "subgraph NAME" before its '{'
    // A named subgraph keeps its nodes when it is re-opened: "subgraph A {a1 ... a1500}" and
    // later "subgraph A {} -> subgraph B {}" joins every node of A with every node of B, though
    // both bodies written there are empty. So each name keeps the nodes its bodies held so
    // far; no group holds more nodes than there were node identifiers before it closed.
    std::unordered_map<std::string, double> named;
    double identifiers = 0.0;
    int line = 1;

    auto operand = [&](double size) {
        if (pendingLeft >= 0.0) {
            edges += pendingLeft * size;
            if (edges > limit) {
                char count[32];
                std::snprintf(count, sizeof count, "%.0f", limit);
                throw InputError(source, "line " + std::to_string(line),
                                 "the edge statements make more than " + std::string(count)
                                     + " edges (an edge between two {...} groups joins every pair)");
            }
        }
        pendingLeft = -1.0;
        lastOperand = size;
        groups.back().count = std::min(groups.back().count + size, identifiers);
    };
    auto identifier = [&] {
        identifiers += 1.0;
        operand(1.0);
    };
    // The identifier after "subgraph" names it; anything else is an operand (or a value).
    auto word = [&](std::string_view token, bool quoted) {
        if (subgraphName)
            pendingName = subgraphKey(token, quoted);
        else if (!attributeValue)
            identifier();
        attributeValue = subgraphName = false;
    };

    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            ++i;
        } else if (std::isspace(c) || c == ',') {
            ++i;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n')
                ++i;
        } else if (c == '#') {
            while (i < n && text[i] != '\n')
                ++i;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/'))
                line += text[i++] == '\n';
            i += 2;
        } else if (c == '"' || c == '<') {
            // A quoted or HTML identifier (HTML strings nest their angle brackets).
            int depth = 0;
            const char close = c == '"' ? '"' : '>';
            const std::size_t start = ++i;
            while (i < n && !(text[i] == close && depth == 0)) {
                if (c == '"' && text[i] == '\\')
                    ++i;
                else if (c == '<' && text[i] == '<')
                    ++depth;
                else if (c == '<' && text[i] == '>')
                    --depth;
                if (i < n)
                    line += text[i] == '\n';
                ++i;
            }
            word(text.substr(start, std::min(i, n) - start), c == '"');
            ++i;
        } else if (c == '[') {
            // An attribute list: holds no nodes. Strings inside may contain ']'.
            ++i;
            while (i < n && text[i] != ']') {
                if (text[i] == '"') {
                    ++i;
                    while (i < n && text[i] != '"') {
                        if (text[i] == '\\')
                            ++i;
                        if (i < n)
                            line += text[i] == '\n';
                        ++i;
                    }
                }
                if (i < n)
                    line += text[i] == '\n';
                ++i;
            }
            ++i;
        } else if (c == '{') {
            if (groups.size() > kMaxDotNesting)
                throw InputError(source, "line " + std::to_string(line),
                                 "subgraphs nested more than " + std::to_string(kMaxDotNesting) + " levels deep");
            subgraphName = false;
            groups.push_back(Group{0.0, pendingLeft, std::move(pendingName)});
            pendingName.reset();
            pendingLeft = -1.0;
            ++i;
        } else if (c == '}') {
            Group group = groups.back();
            if (groups.size() > 1)
                groups.pop_back();
            if (group.name && *group.name == kAnyName) {
                group.count = identifiers;
            } else if (group.name) {
                double& known = named[*group.name];
                known = std::min(known + group.count, identifiers);
                group.count = known;
            }
            pendingLeft = group.pendingLeft;
            operand(group.count);
            ++i;
        } else if (c == '-' && i + 1 < n && (text[i + 1] == '>' || text[i + 1] == '-')) {
            pendingLeft = lastOperand;
            i += 2;
        } else if (c == '+' && pendingName) {
            pendingName = kAnyName; // "subgraph "A" + "B" {": a concatenated name
            ++i;
        } else if (c == ';') {
            pendingLeft = -1.0;
            lastOperand = 0.0;
            ++i;
        } else if (c == '=') {
            attributeValue = true;
            ++i;
        } else if (isIdChar(c) || c == '-') {
            const std::size_t start = i++;
            while (i < n && isIdChar(static_cast<unsigned char>(text[i])))
                ++i;
            const std::string_view token = text.substr(start, i - start);
            if (isKeyword(token, "subgraph")) {
                subgraphName = true; // "subgraph NAME {": the name is no operand
                pendingName.reset();
            } else if (isKeyword(token, "node") || isKeyword(token, "edge") || isKeyword(token, "graph")
                       || isKeyword(token, "digraph") || isKeyword(token, "strict")) {
                // statement keywords: no operand
            } else {
                word(token, false);
            }
        } else {
            ++i; // ':' ports and stray characters: cgraph reports what is malformed
        }
    }
}

} // namespace post
