// A small, strict XML reader for machine-written files (NCCL's topology dumps): one root
// element, attributes, nested elements, text, comments, an XML declaration. No DTDs, no
// CDATA, no namespaces processing. Errors are ConfigErrors naming the source and line.
// No units.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collsim {

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

// Reads and parses a file; an unreadable file is a ConfigError naming it.
[[nodiscard]] XmlElement read_xml_file(const std::string& path);

}  // namespace collsim
