// `collsim check-trace FILE...` (hidden; used by tests/cli/trace_rules.sh): checks Chrome
// trace event JSON files against Perfetto's JSON importer rules (sim/report/trace_check.hpp).
// Exit 0 when every file passes, 1 on the first violation, 2 when a file cannot be read.
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/report/trace_check.hpp"

namespace collsim::cli {

void add_trace_check_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("check-trace", "Check Chrome trace JSON files against Perfetto's import rules");
  cmd->group("");  // internal: not listed in --help
  cmd->add_option("files", *files, "Trace files")->required();
  cmd->callback([files] {
    for (const std::string& path : *files) {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw ConfigError(path, "", "", "cannot open it (expected a readable Chrome trace JSON file)");
      nlohmann::json doc;
      try {
        doc = nlohmann::json::parse(in);
      } catch (const nlohmann::json::parse_error& e) {
        throw ConfigError(path, "", e.what(), "Chrome trace event JSON");
      }
      if (auto v = first_trace_violation(doc)) throw CommandFailed(fmt::format("{}: {}", path, *v));
      std::cout << path << ": ok\n";
    }
  });
}

}  // namespace collsim::cli
