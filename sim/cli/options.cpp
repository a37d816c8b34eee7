#include <stdexcept>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/loader.hpp"

namespace collsim::cli {

Topology load_topology_option(const std::string& path, std::optional<int> ranks) {
  Topology t = path.empty() ? default_topology() : load_topology_file(resolve_shipped_file(path, "topologies"));
  if (ranks) {
    if (*ranks < 1 || *ranks > t.rank_count()) {
      throw ConfigError("--ranks", "", std::to_string(*ranks),
                        fmt::format("a rank count from 1 to {} (the ranks of {})", t.rank_count(), t.name));
    }
    t.ranks.resize(static_cast<std::size_t>(*ranks));
  }
  return t;
}

double duration_option(const char* flag, const std::string& text) {
  try {
    return parse_duration_s(text);
  } catch (const UnitError& e) {
    throw ConfigError(flag, "", e.value(), e.expected());
  }
}

std::vector<std::pair<int, std::string>> rank_pairs_option(const char* flag, const std::vector<std::string>& items,
                                                          const char* expected) {
  std::vector<std::pair<int, std::string>> out;
  for (const auto& item : items) {
    const auto colon = item.find(':');
    std::size_t used = 0;
    try {
      if (colon == std::string::npos) throw std::invalid_argument(item);
      const int first = std::stoi(item.substr(0, colon), &used);
      if (used != colon) throw std::invalid_argument(item);
      out.emplace_back(first, item.substr(colon + 1));
    } catch (const std::logic_error&) {
      throw ConfigError(flag, "", in_quotes(item), expected);
    }
  }
  return out;
}

OutputFormat parse_format_option(const std::string& text) {
  if (text == "table") return OutputFormat::Table;
  if (text == "json") return OutputFormat::Json;
  if (text == "csv") return OutputFormat::Csv;
  throw ConfigError("--format", "", in_quotes(text), "one of: table, json, csv");
}

}  // namespace collsim::cli
