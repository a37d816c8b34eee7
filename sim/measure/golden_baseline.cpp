#include "sim/measure/golden_baseline.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/version.hpp"
#include "sim/core/text.hpp"

namespace collsim {

GoldenBaseline parse_golden_baseline(const std::string& text, const std::string& path) {
  const nlohmann::ordered_json doc = parse_ordered_json_text(text, path);
  const nlohmann::json plain = parse_json_text(text, path);
  JsonFields f(plain, path, "");
  GoldenBaseline b;
  b.path = path;
  b.description = f.optional_string("description").value_or("");
  b.version = f.optional_string(kVersionKey).value_or("");
  b.root = f.optional_string("root").value_or(".");
  const nlohmann::json& cmd = f.array("command");
  for (std::size_t i = 0; i < cmd.size(); ++i) {
    if (!cmd[i].is_string()) throw ConfigError(path, fmt::format("/command/{}", i), brief(cmd[i]), "a string (one argument)");
    b.command.push_back(cmd[i].get<std::string>());
  }
  if (b.command.empty()) f.fail("command", "[]", "the collsim arguments, like [\"collective\", \"--sizes\", \"1MiB\"]");
  if (b.command.front() == "check") f.fail("command", "[\"check\", ...]", "a command other than check");
  // Every command prints a JSON object with --format json: anything else here is a broken
  // baseline (exit 2), not a prediction that moved (exit 1).
  if (const nlohmann::json& e = f.required("expected"); !e.is_object()) {
    f.fail("expected", brief(e), "a JSON object (what the command printed with --format json)");
  }
  f.finish();
  b.expected = doc["expected"];
  if (b.version.empty() && b.expected.contains(kVersionKey) && b.expected[kVersionKey].is_string()) {
    b.version = b.expected[kVersionKey].get<std::string>();
  }
  b.expected.erase(kVersionKey);  // which collsim printed it is not a prediction
  const auto dir = (std::filesystem::absolute(path).parent_path() / b.root).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    f.fail("root", in_quotes(b.root), "a folder, relative to the baseline, to run the command in");
  }
  return b;
}

GoldenBaseline read_golden_baseline(const std::string& path) { return parse_golden_baseline(read_input_file(path), path); }

}  // namespace collsim
