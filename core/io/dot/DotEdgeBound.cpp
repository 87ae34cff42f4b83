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

// The scan of checkDotEdgeBound: one pass over the text, one method per kind of token.
class EdgeCounter {
public:
    EdgeCounter(std::string_view text, const std::string& source, double limit)
        : text_(text)
        , source_(source)
        , limit_(limit)
    {
    }

    void run()
    {
        const std::size_t n = text_.size();
        while (i_ < n) {
            const auto c = static_cast<unsigned char>(text_[i_]);
            if (c == '\n') {
                ++line_;
                ++i_;
            } else if (std::isspace(c) || c == ',') {
                ++i_;
            } else if (c == '#' || (c == '/' && i_ + 1 < n && (text_[i_ + 1] == '/' || text_[i_ + 1] == '*'))) {
                comment();
            } else if (c == '"' || c == '<') {
                quoted(c);
            } else if (c == '[') {
                attributes();
            } else if (c == '{') {
                open();
            } else if (c == '}') {
                close();
            } else if (c == '-' && i_ + 1 < n && (text_[i_ + 1] == '>' || text_[i_ + 1] == '-')) {
                pendingLeft_ = lastOperand_;
                i_ += 2;
            } else if (c == '+' && pendingName_) {
                pendingName_ = kAnyName; // "subgraph "A" + "B" {": a concatenated name
                ++i_;
            } else if (c == ';') {
                pendingLeft_ = -1.0;
                lastOperand_ = 0.0;
                ++i_;
            } else if (c == '=') {
                attributeValue_ = true;
                ++i_;
            } else if (isIdChar(c) || c == '-') {
                bareWord();
            } else {
                ++i_; // ':' ports and stray characters: cgraph reports what is malformed
            }
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError(source_, "line " + std::to_string(line_), what);
    }

    // An operand of `size` identifiers: an arrow before it joins every pair.
    void operand(double size)
    {
        if (pendingLeft_ >= 0.0) {
            edges_ += pendingLeft_ * size;
            if (edges_ > limit_) {
                char count[32];
                std::snprintf(count, sizeof count, "%.0f", limit_);
                fail("the edge statements make more than " + std::string(count)
                     + " edges (an edge between two {...} groups joins every pair)");
            }
        }
        pendingLeft_ = -1.0;
        lastOperand_ = size;
        groups_.back().count = std::min(groups_.back().count + size, identifiers_);
    }

    // The identifier after "subgraph" names it; anything else is an operand (or a value).
    void word(std::string_view token, bool quoted)
    {
        if (subgraphName_) {
            pendingName_ = subgraphKey(token, quoted);
        } else if (!attributeValue_) {
            identifiers_ += 1.0;
            operand(1.0);
        }
        attributeValue_ = subgraphName_ = false;
    }

    // "// ...", "# ..." to the end of the line; "/* ... */".
    void comment()
    {
        const std::size_t n = text_.size();
        if (text_[i_] == '/' && text_[i_ + 1] == '*') {
            i_ += 2;
            while (i_ + 1 < n && !(text_[i_] == '*' && text_[i_ + 1] == '/'))
                line_ += text_[i_++] == '\n';
            i_ += 2;
            return;
        }
        while (i_ < n && text_[i_] != '\n')
            ++i_;
    }

    // A quoted or HTML identifier (HTML strings nest their angle brackets).
    void quoted(unsigned char c)
    {
        const std::size_t n = text_.size();
        int depth = 0;
        const char close = c == '"' ? '"' : '>';
        const std::size_t start = ++i_;
        while (i_ < n && !(text_[i_] == close && depth == 0)) {
            if (c == '"' && text_[i_] == '\\')
                ++i_;
            else if (c == '<' && text_[i_] == '<')
                ++depth;
            else if (c == '<' && text_[i_] == '>')
                --depth;
            if (i_ < n)
                line_ += text_[i_] == '\n';
            ++i_;
        }
        word(text_.substr(start, std::min(i_, n) - start), c == '"');
        ++i_;
    }

    // An attribute list: holds no nodes. Strings inside may contain ']'.
    void attributes()
    {
        const std::size_t n = text_.size();
        ++i_;
        while (i_ < n && text_[i_] != ']') {
            if (text_[i_] == '"') {
                ++i_;
                while (i_ < n && text_[i_] != '"') {
                    if (text_[i_] == '\\')
                        ++i_;
                    if (i_ < n)
                        line_ += text_[i_] == '\n';
                    ++i_;
                }
            }
            if (i_ < n)
                line_ += text_[i_] == '\n';
            ++i_;
        }
        ++i_;
    }

    void open()
    {
        if (groups_.size() > kMaxDotNesting)
            fail("subgraphs nested more than " + std::to_string(kMaxDotNesting) + " levels deep");
        subgraphName_ = false;
        groups_.push_back(Group{0.0, pendingLeft_, std::move(pendingName_)});
        pendingName_.reset();
        pendingLeft_ = -1.0;
        ++i_;
    }

    // A group ends: it is an operand of the nodes it holds (a named one, of all its bodies').
    void close()
    {
        Group group = groups_.back();
        if (groups_.size() > 1)
            groups_.pop_back();
        if (group.name && *group.name == kAnyName) {
            group.count = identifiers_;
        } else if (group.name) {
            double& known = named_[*group.name];
            known = std::min(known + group.count, identifiers_);
            group.count = known;
        }
        pendingLeft_ = group.pendingLeft;
        operand(group.count);
        ++i_;
    }

    void bareWord()
    {
        const std::size_t start = i_++;
        while (i_ < text_.size() && isIdChar(static_cast<unsigned char>(text_[i_])))
            ++i_;
        const std::string_view token = text_.substr(start, i_ - start);
        if (isKeyword(token, "subgraph")) {
            subgraphName_ = true; // "subgraph NAME {": the name is no operand
            pendingName_.reset();
        } else if (isKeyword(token, "node") || isKeyword(token, "edge") || isKeyword(token, "graph")
                   || isKeyword(token, "digraph") || isKeyword(token, "strict")) {
            // statement keywords: no operand
        } else {
            word(token, false);
        }
    }

    std::string_view text_;
    const std::string& source_;
    double limit_;
    std::size_t i_ = 0;
    int line_ = 1;
    std::vector<Group> groups_ = std::vector<Group>(1);
    double edges_ = 0.0;
    double lastOperand_ = 0.0;  // size of the operand just read (an arrow multiplies it)
    double pendingLeft_ = -1.0; // left operand of an arrow waiting for its right one
    bool attributeValue_ = false;
    bool subgraphName_ = false;
    std::optional<std::string> pendingName_; // the NAME of "subgraph NAME" before its '{'
    // A named subgraph keeps its nodes when it is re-opened: "subgraph A {a1 ... a1500}" and
    // later "subgraph A {} -> subgraph B {}" joins every node of A with every node of B, though
    // both bodies written there are empty. So each name keeps the nodes its bodies held so
    // far; no group holds more nodes than there were node identifiers before it closed.
    std::unordered_map<std::string, double> named_;
    double identifiers_ = 0.0;
};

} // namespace

double dotEdgeLimit(std::size_t bytes) { return std::max(1e5, static_cast<double>(bytes)); }

void checkDotEdgeBound(std::string_view text, const std::string& source, double limit)
{
    EdgeCounter(text, source, limit).run();
}

} // namespace post
