#include "sim/topo/xml_reader.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/text.hpp"

namespace collsim {

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_name_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || u >= 0x80;
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

// Appends code point `cp` to `out` as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp) {
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

class XmlParser {
 public:
  XmlParser(std::string_view text, const std::string& source) : s_(text), source_(source) {}

  XmlElement document() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte order mark
    if (starts_with("<?xml") && pos_ + 5 < s_.size() && is_space(s_[pos_ + 5])) declaration();
    misc();
    if (at_end() || peek() != '<') fail(snippet(), "the root element ('<')");
    if (starts_with("<!DOCTYPE")) fail("\"<!DOCTYPE\"", "no document type declaration (DTDs are not supported)");
    XmlElement root = element();
    misc();
    if (!at_end()) fail(snippet(), "nothing after the root element but comments and whitespace");
    return root;
  }

 private:
  std::string_view s_;
  const std::string& source_;
  std::size_t pos_ = 0;
  int line_ = 1;

  [[noreturn]] void fail(const std::string& value, const std::string& expected) const {
    throw ConfigError(source_, fmt::format("line {}", line_), value, expected);
  }
  [[nodiscard]] bool at_end() const { return pos_ >= s_.size(); }
  [[nodiscard]] char peek() const { return s_[pos_]; }
  [[nodiscard]] bool starts_with(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }
  // The next few characters, quoted, for an error message.
  [[nodiscard]] std::string snippet() const {
    if (at_end()) return "end of file";
    std::string out;
    for (std::size_t i = pos_; i < s_.size() && i < pos_ + 12 && s_[i] != '\n'; ++i) out += s_[i];
    return in_quotes(out);
  }
  char next() {
    if (at_end()) fail("end of file", "more input (the document ends inside markup)");
    const char c = s_[pos_++];
    if (c == '\n') ++line_;
    return c;
  }
  void expect(std::string_view lit, const char* what) {
    if (!starts_with(lit)) fail(snippet(), what);
    for (std::size_t i = 0; i < lit.size(); ++i) next();
  }
  bool skip_space() {
    const std::size_t before = pos_;
    while (!at_end() && is_space(peek())) next();
    return pos_ != before;
  }

  std::string name(const char* what) {
    if (at_end() || !is_name_start(peek())) fail(snippet(), what);
    std::string out;
    while (!at_end() && is_name_char(peek())) out += next();
    return out;
  }

  // After '&': one of the five predefined entities or a character reference.
  void entity(std::string& out) {
    std::string ref;
    while (!at_end() && peek() != ';' && ref.size() < 12) ref += next();
    if (at_end() || peek() != ';') fail(fmt::format("\"&{}\"", ref), "an entity reference ending in ';'");
    next();
    if (ref == "amp") { out += '&'; return; }
    if (ref == "lt") { out += '<'; return; }
    if (ref == "gt") { out += '>'; return; }
    if (ref == "quot") { out += '"'; return; }
    if (ref == "apos") { out += '\''; return; }
    if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string digits = ref.substr(hex ? 2 : 1);
      std::uint32_t cp = 0;
      bool ok = !digits.empty();
      for (char c : digits) {
        const int d = (c >= '0' && c <= '9') ? c - '0'
                      : hex && (c >= 'a' && c <= 'f') ? c - 'a' + 10
                      : hex && (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                      : -1;
        if (d < 0 || cp > 0x10FFFF) { ok = false; break; }
        cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
      }
      if (ok && cp != 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) {
        append_utf8(out, cp);
        return;
      }
    }
    fail(fmt::format("\"&{};\"", ref), "one of &amp; &lt; &gt; &quot; &apos; or a character reference &#N; / &#xH;");
  }

  // Comments, processing instructions and whitespace outside elements.
  void misc() {
    for (;;) {
      skip_space();
      if (starts_with("<!--")) {
        comment();
      } else if (starts_with("<?")) {
        processing_instruction();
      } else {
        return;
      }
    }
  }

  void comment() {
    expect("<!--", "a comment");
    for (;;) {
      if (starts_with("--")) {
        if (starts_with("-->")) break;
        fail("\"--\"", "no \"--\" inside a comment (a comment ends with \"-->\")");
      }
      next();
    }
    expect("-->", "the end of the comment");
  }

  void processing_instruction() {
    expect("<?", "a processing instruction");
    const std::string target = name("a processing instruction target");
    if (target.size() == 3 && (target[0] | 0x20) == 'x' && (target[1] | 0x20) == 'm' && (target[2] | 0x20) == 'l') {
      fail("\"<?xml\"", "the XML declaration only at the very start of the file");
    }
    while (!starts_with("?>")) next();
    expect("?>", "the end of the processing instruction");
  }

  // <?xml version="1.x" encoding="UTF-8" standalone="yes"?>, pseudo-attributes in that order.
  void declaration() {
    expect("<?xml", "the XML declaration");
    const auto attrs = attribute_list("?>");
    expect("?>", "\"?>\" closing the XML declaration");
    const char* order[] = {"version", "encoding", "standalone"};
    std::size_t next_allowed = 0;
    for (const auto& [k, v] : attrs) {
      std::size_t i = 0;
      while (i < 3 && k != order[i]) ++i;
      if (i == 3 || i < next_allowed) fail(in_quotes(k), "version, then optional encoding and standalone");
      next_allowed = i + 1;
      if (k == "version" && !(v.size() >= 3 && v.substr(0, 2) == "1.")) fail(in_quotes(v), "version 1.x");
      if (k == "encoding" && v != "UTF-8" && v != "utf-8" && v != "US-ASCII" && v != "ASCII") {
        fail(in_quotes(v), "encoding UTF-8 or US-ASCII");
      }
      if (k == "standalone" && v != "yes" && v != "no") fail(in_quotes(v), "standalone yes or no");
    }
    if (attrs.empty() || attrs.front().first != "version") fail("no version", "version=\"1.0\" first in the XML declaration");
  }

  // Attributes up to '>' , "/>" or `end`; each preceded by whitespace.
  std::vector<std::pair<std::string, std::string>> attribute_list(std::string_view end) {
    std::vector<std::pair<std::string, std::string>> out;
    for (;;) {
      const bool spaced = skip_space();
      if (at_end() || peek() == '>' || starts_with("/>") || starts_with(end)) return out;
      if (!spaced) fail(snippet(), "whitespace before the next attribute");
      std::string key = name("an attribute name");
      skip_space();
      expect("=", "'=' after the attribute name");
      skip_space();
      if (at_end() || (peek() != '"' && peek() != '\'')) fail(snippet(), fmt::format("a quoted value for attribute \"{}\"", key));
      const char quote = next();
      std::string value;
      for (;;) {
        const char c = next();
        if (c == quote) break;
        if (c == '<') fail("\"<\"", fmt::format("no '<' inside the value of attribute \"{}\" (write &lt;)", key));
        if (c == '&') {
          entity(value);
        } else if (c == '\t' || c == '\n' || c == '\r') {
          value += ' ';  // attribute-value normalisation (XML 1.0, 3.3.3); references are kept
        } else {
          value += c;
        }
      }
      for (const auto& [k, v] : out) {
        if (k == key) fail(in_quotes(key), "each attribute at most once per element");
      }
      out.emplace_back(std::move(key), std::move(value));
    }
  }

  // One element and everything inside it; iterative, so deep nesting cannot overflow the stack.
  XmlElement element() {
    std::vector<XmlElement> open;
    for (;;) {
      // At '<' of a start tag.
      XmlElement e;
      e.line = line_;
      expect("<", "'<'");
      e.name = name("an element name");
      e.attributes = attribute_list(">");
      if (at_end()) fail("end of file", fmt::format("'>' closing the start tag of <{}>", e.name));
      const bool empty = starts_with("/>");
      expect(empty ? "/>" : ">", "'>' or \"/>\"");
      if (!empty) {
        if (open.size() >= kMaxXmlDepth) {
          fail(fmt::format("<{}>", e.name), fmt::format("elements nested at most {} levels deep", kMaxXmlDepth));
        }
        open.push_back(std::move(e));
      } else if (open.empty()) {
        return e;
      } else {
        open.back().children.push_back(std::move(e));
      }
      // Content until the next start tag, or close elements while end tags follow.
      for (;;) {
        content(open.back());
        if (!starts_with("</")) break;
        const int end_line = line_;
        expect("</", "an end tag");
        const std::string n = name("an element name in the end tag");
        skip_space();
        expect(">", "'>' closing the end tag");
        if (n != open.back().name) {
          line_ = end_line;
          fail(fmt::format("</{}>", n), fmt::format("</{}> closing the element opened on line {}", open.back().name, open.back().line));
        }
        XmlElement done = std::move(open.back());
        open.pop_back();
        if (open.empty()) return done;
        open.back().children.push_back(std::move(done));
      }
    }
  }

  // Text, comments and processing instructions inside `e`; stops at a start or end tag.
  void content(XmlElement& e) {
    for (;;) {
      if (at_end()) fail("end of file", fmt::format("</{}> closing the element opened on line {}", e.name, e.line));
      if (starts_with("<!--")) {
        comment();
      } else if (starts_with("<![CDATA[")) {
        fail("\"<![CDATA[\"", "no CDATA sections (write text with entities)");
      } else if (starts_with("<?")) {
        processing_instruction();
      } else if (peek() == '<') {
        return;
      } else if (peek() == '&') {
        next();
        entity(e.text);
      } else {
        if (starts_with("]]>")) fail("\"]]>\"", "no \"]]>\" in text");
        e.text += next();
      }
    }
  }
};

}  // namespace

XmlElement parse_xml(std::string_view text, const std::string& source) {
  return XmlParser(text, source).document();
}

XmlElement read_xml_file(const std::string& path) { return parse_xml(read_input_file(path), path); }

}  // namespace collsim
