// The strict XML reader behind `topo import-nccl`: what it accepts, and one rejection per
// rule, each naming the line.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/topo/xml_reader.hpp"

namespace collsim {

namespace {
// The line an error names ("line N"), or -1.
int error_line(const std::string& text) {
  try {
    (void)parse_xml(text, "t.xml");
  } catch (const ConfigError& e) {
    const std::string& f = e.field();
    return f.rfind("line ", 0) == 0 ? std::stoi(f.substr(5)) : -1;
  }
  return -1;
}
}  // namespace

TEST_CASE("topo xml reader: declaration, comments, quotes, self-closing elements, entities", "[topo][xml]") {
  const XmlElement root = parse_xml(
      "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!-- a comment -->\n"
      "<system version=\"1\">\n"
      "  <cpu numaid='0' name=\"a &amp; b &lt;&gt; &quot;q&quot; &apos;s&apos;\" x = \"&#65;&#x42;\"/>\n"
      "  <!-- between -->\n"
      "  <pci busid=\"0000:01:00.0\">text &amp; more<?pi ignored?></pci >\n"
      "</system>\n<!-- after -->\n",
      "t.xml");
  REQUIRE(root.name == "system");
  REQUIRE(root.line == 3);
  REQUIRE(*root.attribute("version") == "1");
  REQUIRE(root.attribute("missing") == nullptr);
  REQUIRE(root.children.size() == 2);
  const XmlElement& cpu = root.children[0];
  REQUIRE(cpu.line == 4);
  REQUIRE(cpu.children.empty());
  REQUIRE(*cpu.attribute("numaid") == "0");
  REQUIRE(*cpu.attribute("name") == "a & b <> \"q\" 's'");
  REQUIRE(*cpu.attribute("x") == "AB");
  REQUIRE(cpu.attributes.front().first == "numaid");  // file order kept
  REQUIRE(root.children[1].text == "text & more");
  // Literal tabs and newlines in a value become spaces; character references stay.
  REQUIRE(*parse_xml("<a x=\"1\n2\t3&#10;\"/>", "t.xml").attribute("x") == "1 2 3\n");
  REQUIRE(root.children[1].line == 6);
}

TEST_CASE("topo xml reader: nesting is limited to kMaxXmlDepth levels", "[topo][xml]") {
  const auto nested = [](std::size_t depth) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) text += "<a>";
    for (std::size_t i = 0; i < depth; ++i) text += "</a>";
    return text;
  };
  REQUIRE(parse_xml(nested(kMaxXmlDepth), "t.xml").children.size() == 1);
  REQUIRE_THROWS_AS(parse_xml(nested(kMaxXmlDepth + 1), "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml(nested(1000000), "t.xml"), ConfigError);
}

TEST_CASE("topo xml reader: each malformed input is a ConfigError naming its line", "[topo][xml]") {
  // A mismatched end tag is reported where it is.
  REQUIRE_THROWS_AS(parse_xml("<a>\n<b>\n</a>", "t.xml"), ConfigError);
  REQUIRE(error_line("<a>\n<b>\n</a>") == 3);
  // An element never closed.
  REQUIRE_THROWS_AS(parse_xml("<a>\n<b/>\n", "t.xml"), ConfigError);
  // An unterminated comment, and "--" inside one.
  REQUIRE_THROWS_AS(parse_xml("<a/>\n<!-- x", "t.xml"), ConfigError);
  REQUIRE(error_line("<a>\n<!-- x -- y -->\n</a>") == 2);
  // The same attribute twice.
  REQUIRE(error_line("<a\n x=\"1\" x=\"2\"/>") == 2);
  // An attribute without quotes, without '=', without whitespace before it.
  REQUIRE_THROWS_AS(parse_xml("<a x=1/>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<a x/>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<a x=\"1\"y=\"2\"/>", "t.xml"), ConfigError);
  // An unknown entity, a bare '&', a '<' inside an attribute value.
  REQUIRE(error_line("<a>\n\n&nbsp;</a>") == 3);
  REQUIRE_THROWS_AS(parse_xml("<a x=\"a & b\"/>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<a x=\"a < b\"/>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<a>&#0;</a>", "t.xml"), ConfigError);
  // Content after the root, two roots, no root.
  REQUIRE(error_line("<a/>\n\n<b/>") == 3);
  REQUIRE_THROWS_AS(parse_xml("<a/>trailing", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("  <!-- only a comment -->", "t.xml"), ConfigError);
  // A declaration anywhere but the start, or with a bad version or encoding.
  REQUIRE_THROWS_AS(parse_xml("<a><?xml version=\"1.0\"?></a>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<?xml version=\"2.0\"?><a/>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>", "t.xml"), ConfigError);
  // DTDs and CDATA are not supported, and say so.
  REQUIRE_THROWS_AS(parse_xml("<!DOCTYPE a><a/>", "t.xml"), ConfigError);
  REQUIRE_THROWS_AS(parse_xml("<a><![CDATA[x]]></a>", "t.xml"), ConfigError);
  // A bad element name.
  REQUIRE_THROWS_AS(parse_xml("<1a/>", "t.xml"), ConfigError);
}

TEST_CASE("topo xml reader: the message names file, line and what was expected", "[topo][xml]") {
  try {
    (void)parse_xml("<system>\n  <cpu>\n</system>", "dump.xml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    REQUIRE(m.find("dump.xml") != std::string::npos);
    REQUIRE(m.find("line 3") != std::string::npos);
    REQUIRE(m.find("</cpu> closing the element opened on line 2") != std::string::npos);
  }
}

}  // namespace collsim
