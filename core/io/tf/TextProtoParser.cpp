#include "core/io/tf/TextProtoParser.h"

#include "core/util/InputError.h"

#include <cctype>
#include <cstdint>

namespace post {
namespace {

constexpr int kMaxDepth = 100;

enum class TokenKind { End, Identifier, Number, String, Punct };

struct Token {
    TokenKind kind = TokenKind::End;
    std::string_view text; // as written (a string literal with its quotes)
    std::size_t begin = 0;
    std::size_t end = 0;
    int line = 1;
};

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

class Parser {
public:
    Parser(std::string_view text, const std::string& source)
        : text_(text)
        , source_(source)
    {
        if (text_.starts_with("\xEF\xBB\xBF"))
            pos_ = 3;
    }

    TextProtoField parseRoot()
    {
        TextProtoField root;
        root.isMessage = true;
        root.line = 1;
        parseFields(root, '\0', 1, 0);
        root.end = text_.size();
        return root;
    }

private:
    [[noreturn]] void fail(int line, const std::string& message) const
    {
        throw InputError(source_, "line " + std::to_string(line), message);
    }

    static std::string describe(const Token& t)
    {
        if (t.kind == TokenKind::End)
            return "end of file";
        std::string quoted(1, '\'');
        quoted.append(t.text.substr(0, 40));
        quoted += '\'';
        return quoted;
    }

    void skipBlanksAndComments()
    {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++pos_;
            } else if (c == '#') {
                while (pos_ < text_.size() && text_[pos_] != '\n')
                    ++pos_;
            } else {
                return;
            }
        }
    }

    Token scan()
    {
        skipBlanksAndComments();
        Token t;
        t.begin = pos_;
        t.line = line_;
        if (pos_ >= text_.size()) {
            t.end = pos_;
            return t;
        }
        const char c = text_[pos_];
        if (c == '"' || c == '\'') {
            t.kind = TokenKind::String;
            ++pos_;
            while (true) {
                if (pos_ >= text_.size() || text_[pos_] == '\n')
                    fail(t.line, "string literal is not closed on its line");
                if (text_[pos_] == '\\')
                    pos_ += 2;
                else if (text_[pos_++] == c)
                    break;
            }
            if (pos_ > text_.size())
                fail(t.line, "string literal is not closed on its line");
        } else if (isIdentStart(c)) {
            t.kind = TokenKind::Identifier;
            while (pos_ < text_.size() && isIdentChar(text_[pos_]))
                ++pos_;
        } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
            t.kind = TokenKind::Number;
            ++pos_;
            while (pos_ < text_.size()) {
                const char d = text_[pos_];
                const char prev = text_[pos_ - 1];
                if (isIdentChar(d) || d == '.' || ((d == '-' || d == '+') && (prev == 'e' || prev == 'E')))
                    ++pos_;
                else
                    break;
            }
            if (pos_ == t.begin + 1 && (c == '-' || c == '+' || c == '.'))
                fail(t.line, "'" + std::string(1, c) + "' is not a number");
        } else if (std::string_view("{}<>[]:,;/").find(c) != std::string_view::npos) {
            t.kind = TokenKind::Punct;
            ++pos_;
        } else {
            fail(line_, "unexpected character '" + std::string(1, c) + "'");
        }
        t.end = pos_;
        t.text = text_.substr(t.begin, t.end - t.begin);
        return t;
    }

    const Token& peek()
    {
        if (!peeked_) {
            lookahead_ = scan();
            peeked_ = true;
        }
        return lookahead_;
    }

    Token next()
    {
        Token t = peek();
        peeked_ = false;
        return t;
    }

    static bool isPunct(const Token& t, char c) { return t.kind == TokenKind::Punct && t.text[0] == c; }

    std::string decodeString(const Token& t) const
    {
        const std::string_view body = t.text.substr(1, t.text.size() - 2);
        std::string out;
        out.reserve(body.size());
        for (std::size_t i = 0; i < body.size(); ++i) {
            if (body[i] != '\\') {
                out += body[i];
                continue;
            }
            const char e = body[++i];
            switch (e) {
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'a':
                out += '\a';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'v':
                out += '\v';
                break;
            case 'x': {
                int v = 0, n = 0;
                while (n < 2 && i + 1 < body.size() && hexValue(body[i + 1]) >= 0)
                    v = v * 16 + hexValue(body[++i]), ++n;
                if (n == 0)
                    fail(t.line, "'\\x' without hex digits in a string literal");
                out += static_cast<char>(v);
                break;
            }
            case 'u':
            case 'U': {
                const int digits = e == 'u' ? 4 : 8;
                std::uint32_t cp = 0;
                for (int n = 0; n < digits; ++n) {
                    if (i + 1 >= body.size() || hexValue(body[i + 1]) < 0)
                        fail(t.line, std::string("'\\") + e + "' needs " + std::to_string(digits) + " hex digits");
                    cp = cp * 16 + static_cast<std::uint32_t>(hexValue(body[++i]));
                }
                if (cp > 0x10FFFF)
                    fail(t.line, "'\\U' code point out of range");
                appendUtf8(out, cp);
                break;
            }
            default:
                if (e >= '0' && e <= '7') {
                    int v = e - '0', n = 1;
                    while (n < 3 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7')
                        v = v * 8 + (body[++i] - '0'), ++n;
                    out += static_cast<char>(v & 0xFF);
                } else {
                    out += e; // \\ \" \' \?
                }
            }
        }
        return out;
    }

    // Fields up to `closer` ('}' or '>'; '\0' for the end of the file).
    void parseFields(TextProtoField& message, char closer, int openLine, int depth)
    {
        while (true) {
            const Token& t = peek();
            if (t.kind == TokenKind::End) {
                if (closer != '\0')
                    fail(openLine,
                         std::string("'") + (closer == '}' ? '{' : '<') + "' of field '" + message.name
                             + "' is never closed (end of file reached)");
                return;
            }
            if (t.kind == TokenKind::Punct && (t.text[0] == ',' || t.text[0] == ';')) {
                next();
                continue;
            }
            if (t.kind == TokenKind::Punct && (t.text[0] == '}' || t.text[0] == '>')) {
                if (t.text[0] != closer)
                    fail(t.line,
                         closer == '\0' ? "unexpected " + describe(t) + " with no open '{'"
                                        : "unexpected " + describe(t) + ", expected '" + closer + "'");
                message.valueEnd = t.end;
                message.end = t.end;
                next();
                return;
            }
            message.fields.emplace_back();
            parseField(message.fields, depth);
        }
    }

    std::string parseFieldName(const Token& first)
    {
        if (first.kind == TokenKind::Identifier)
            return std::string(first.text);
        if (isPunct(first, '[')) {
            // Extension or Any type URL: [type.googleapis.com/tensorflow.Foo].
            const std::size_t close = text_.find(']', pos_);
            const std::size_t eol = text_.find('\n', pos_);
            if (close == std::string_view::npos || (eol != std::string_view::npos && eol < close))
                fail(first.line, "'[' of an extension field name is not closed on its line");
            std::string name(text_.substr(first.begin, close + 1 - first.begin));
            pos_ = close + 1;
            return name;
        }
        fail(first.line, "expected a field name, found " + describe(first));
    }

    void parseField(std::vector<TextProtoField>& siblings, int depth)
    {
        const Token nameToken = next();
        // `siblings` may grow while parsing a list; index, don't hold a reference.
        const std::size_t index = siblings.size() - 1;
        {
            TextProtoField& f = siblings[index];
            f.name = parseFieldName(nameToken);
            f.line = nameToken.line;
            f.begin = nameToken.begin;
        }
        bool colon = false;
        if (isPunct(peek(), ':')) {
            next();
            colon = true;
        }
        const Token& v = peek();
        if (isPunct(v, '{') || isPunct(v, '<')) {
            parseMessageValue(siblings[index], depth);
        } else if (isPunct(v, '[')) {
            parseList(siblings, index, depth);
        } else if (colon) {
            parseScalar(siblings[index]);
        } else {
            fail(v.kind == TokenKind::End ? nameToken.line : v.line,
                 "expected ':' or '{' after field '" + siblings[index].name + "', found " + describe(v));
        }
    }

    void parseMessageValue(TextProtoField& f, int depth)
    {
        const Token open = next();
        if (depth + 1 > kMaxDepth)
            fail(open.line, "messages nested deeper than " + std::to_string(kMaxDepth) + " levels");
        f.isMessage = true;
        f.valueBegin = open.begin;
        parseFields(f, open.text[0] == '{' ? '}' : '>', open.line, depth + 1);
    }

    void parseScalar(TextProtoField& f)
    {
        const Token t = next();
        if (t.kind == TokenKind::String) {
            f.quoted = true;
            f.value = decodeString(t);
            f.valueBegin = t.begin;
            f.valueEnd = t.end;
            while (peek().kind == TokenKind::String) { // "abc" "def" is one string
                const Token more = next();
                f.value += decodeString(more);
                f.valueEnd = more.end;
            }
        } else if (t.kind == TokenKind::Identifier || t.kind == TokenKind::Number) {
            f.value = std::string(t.text);
            f.valueBegin = t.begin;
            f.valueEnd = t.end;
        } else {
            fail(t.kind == TokenKind::End ? f.line : t.line,
                 "expected a value for field '" + f.name + "', found " + describe(t));
        }
        f.end = f.valueEnd;
    }

    // name: [item, item]: every item becomes a field of its own.
    void parseList(std::vector<TextProtoField>& siblings, std::size_t index, int depth)
    {
        const Token open = next();
        const TextProtoField head = siblings[index];
        siblings.pop_back();
        if (isPunct(peek(), ']')) {
            next();
            return;
        }
        while (true) {
            TextProtoField item;
            item.name = head.name;
            item.line = peek().line;
            item.begin = peek().begin;
            const Token& v = peek();
            if (v.kind == TokenKind::End)
                fail(open.line, "'[' of field '" + head.name + "' is never closed (end of file reached)");
            if (isPunct(v, '{') || isPunct(v, '<'))
                parseMessageValue(item, depth);
            else
                parseScalar(item);
            siblings.push_back(std::move(item));
            const Token sep = next();
            if (isPunct(sep, ']'))
                return;
            if (!isPunct(sep, ','))
                fail(sep.kind == TokenKind::End ? open.line : sep.line,
                     "expected ',' or ']' in the list of field '" + head.name + "', found " + describe(sep));
        }
    }

    std::string_view text_;
    const std::string& source_;
    std::size_t pos_ = 0;
    int line_ = 1;
    Token lookahead_;
    bool peeked_ = false;
};

} // namespace

TextProtoField parseTextProto(std::string_view text, const std::string& source)
{
    return Parser(text, source).parseRoot();
}

} // namespace post
