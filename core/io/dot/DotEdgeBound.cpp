#include "core/io/dot/DotEdgeBound.h"

#include "core/util/InputError.h"

#include <cctype>
#include <cstdio>
#include <vector>

namespace post {
namespace {

// One brace group being read: how many identifiers it holds, and the size of the operand
// an arrow before it left pending (-1: none), to multiply once the group closes.
struct Group {
    double count = 0.0;
    double pendingLeft = -1.0;
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

// cgraph's parser spends seconds on tens of thousands of nested subgraphs; real graphs nest
// a handful.
constexpr std::size_t kMaxDotNesting = 1000;

} // namespace

void checkDotEdgeBound(std::string_view text, const std::string& source, double limit)
{
    std::vector<Group> groups(1);
    double edges = 0.0;
    double lastOperand = 0.0;  // size of the operand just read (an arrow multiplies it)
    double pendingLeft = -1.0; // left operand of an arrow waiting for its right one
    bool attributeValue = false;
    bool subgraphName = false;
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
        groups.back().count += size;
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
            ++i;
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
            ++i;
            if (!attributeValue && !subgraphName)
                operand(1.0);
            attributeValue = subgraphName = false;
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
            groups.push_back(Group{0.0, pendingLeft});
            pendingLeft = -1.0;
            ++i;
        } else if (c == '}') {
            const Group group = groups.back();
            if (groups.size() > 1)
                groups.pop_back();
            pendingLeft = group.pendingLeft;
            operand(group.count);
            ++i;
        } else if (c == '-' && i + 1 < n && (text[i + 1] == '>' || text[i + 1] == '-')) {
            pendingLeft = lastOperand;
            i += 2;
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
            const std::string_view word = text.substr(start, i - start);
            if (isKeyword(word, "subgraph")) {
                subgraphName = true; // "subgraph NAME {": the name is no operand
            } else if (isKeyword(word, "node") || isKeyword(word, "edge") || isKeyword(word, "graph")
                       || isKeyword(word, "digraph") || isKeyword(word, "strict")) {
                // statement keywords: no operand
            } else if (attributeValue || subgraphName) {
                attributeValue = subgraphName = false;
            } else {
                operand(1.0);
            }
        } else {
            ++i; // ':' ports and stray characters: cgraph reports what is malformed
        }
    }
}

} // namespace post
