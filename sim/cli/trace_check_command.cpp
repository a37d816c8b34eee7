// `collsim check-trace FILE...` (also used by tests/cli/trace_rules.sh): checks Chrome
// trace event JSON files against Perfetto's JSON importer rules (sim/report/trace_check.hpp).
// Exit 0 when every file passes, 1 on the first violation, 2 when a file cannot be read.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/report/trace_check.hpp"

namespace collsim::cli {

void add_trace_check_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("check-trace", "Check Chrome trace JSON files against Perfetto's import rules");
  cmd->add_option("files", *files, "Trace files")->required();
  cmd->callback([files] {
    for (const std::string& path : *files) {
      const nlohmann::json doc = read_json_file(path);  // limits and errors of every JSON input
      if (auto v = first_trace_violation(doc)) throw CommandFailed(fmt::format("{}: {}", path, *v));
      std::cout << path << ": ok\n";
    }
  });
}

}  // namespace collsim::cli
