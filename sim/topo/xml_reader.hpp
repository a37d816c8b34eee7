// A small, strict XML reader for machine-written files (NCCL's topology dumps): one root
// element, attributes, nested elements, text, comments, an XML declaration. No DTDs, no
// CDATA, no namespaces processing, at most kMaxXmlDepth levels of elements. Errors are
// ConfigErrors naming the source and line. No units.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collsim {

// NCCL's dumps nest about 10 levels; the limit keeps a hostile file from exhausting the
// stack when the element tree is destroyed.
inline constexpr std::size_t kMaxXmlDepth = 256;

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in file order, entities decoded
  std::vector<XmlElement> children;                             // in file order
  std::string text;  // character data directly inside this element, entities decoded
  int line = 0;      // 1-based line of the opening '<'

  // The value of attribute `key`, or nullptr when the element has none.
  [[nodiscard]] const std::string* attribute(std::string_view key) const;
};

// Parses `text`; `source` names the file in errors. Throws ConfigError(source,
// "line N", offending text, what was expected) at the first error.
[[nodiscard]] XmlElement parse_xml(std::string_view text, const std::string& source);

// Reads and parses a file; an unreadable file, a directory or one over max_input_bytes()
// (json_fields.hpp) is a ConfigError naming it.
[[nodiscard]] XmlElement read_xml_file(const std::string& path);

}  // namespace collsim
