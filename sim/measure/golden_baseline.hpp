// A golden baseline for `collsim check`: a collsim command line and the JSON it printed
// when the baseline was recorded (results/golden/*.json).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim {

struct GoldenBaseline {
  std::string path;
  std::string description;
  std::string root;     // the folder the command runs in, relative to the baseline file's folder
  std::string version;  // the collsim that recorded it ("" when the file predates versions)
  std::vector<std::string> command;
  nlohmann::ordered_json expected;  // without its collsim_version (not a prediction)
};

// Parses a baseline's text; `path` names it in errors (ConfigError, exit 2). A baseline
// whose command is `check` is refused: it could name itself and spawn checks without end.
[[nodiscard]] GoldenBaseline parse_golden_baseline(const std::string& text, const std::string& path);
[[nodiscard]] GoldenBaseline read_golden_baseline(const std::string& path);

}  // namespace collsim
