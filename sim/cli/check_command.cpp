// `collsim check`: prediction regression for CI. Each baseline file stores a collsim
// command line and the JSON it printed; check reruns the command (in this process, with
// --format json, taking its report's JSON document as it is made) and reports every number
// that moved beyond the tolerance.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/captured_run.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/validators.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/version.hpp"
#include "sim/measure/golden_baseline.hpp"

namespace collsim::cli {

namespace {

struct CheckArgs {
  std::vector<std::string> baselines;
  double tolerance = 0.005;  // a fraction: the option's percent() validator converts
  bool update = false;
};

// Runs `dir` as the working folder while it lives, then returns to the previous one.
class WorkingFolder {
 public:
  explicit WorkingFolder(const std::filesystem::path& dir) : previous_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir, error_);
  }
  ~WorkingFolder() {
    std::error_code ignored;
    std::filesystem::current_path(previous_, ignored);
  }
  WorkingFolder(const WorkingFolder&) = delete;
  WorkingFolder& operator=(const WorkingFolder&) = delete;
  [[nodiscard]] bool entered() const { return !error_; }

 private:
  std::filesystem::path previous_;
  std::error_code error_;
};

struct StoredRun {
  int exit_code = 0;
  std::optional<nlohmann::ordered_json> report;  // the JSON document of its report, if it made one
};

// Runs the collsim command line `args` in `dir`, in this process: the command's report
// hands over its JSON document itself. Exit codes and messages are those of collsim.
StoredRun run_stored(const std::vector<std::string>& args, const std::filesystem::path& dir) {
  const WorkingFolder folder(dir);
  if (!folder.entered()) return {126, std::nullopt};
  CapturedRun run = run_captured(args, false);
  return {run.exit_code, std::move(run.report)};
}

// "0.5.0" of "0.5.0+g7643b9a": the release, without the commit it was built from.
std::string release_of(const std::string& version) { return version.substr(0, version.find('+')); }

// The baseline `doc` with `expected` replaced by `got` and this collsim's version recorded
// after the description (keys keep their order otherwise).
nlohmann::ordered_json restamped(const nlohmann::ordered_json& doc, const nlohmann::ordered_json& got) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (doc.contains("description")) out["description"] = doc["description"];
  out[kVersionKey] = version_string();
  for (const auto& [k, v] : doc.items()) {
    if (k != "description" && k != kVersionKey) out[k] = k == "expected" ? got : v;
  }
  return out;
}

struct Diff {
  std::string where, expected, got, change;
};

void compare(const nlohmann::ordered_json& want, const nlohmann::ordered_json& got, const std::string& ptr, double tol,
             std::vector<Diff>& diffs) {
  if (want.is_number() && got.is_number()) {
    const double a = want.get<double>(), b = got.get<double>();
    const double rel = a == 0 ? std::abs(b) : std::abs(b - a) / std::abs(a);
    if (rel > tol) diffs.push_back({ptr, want.dump(), got.dump(), a == 0 ? "from 0" : fmt::format("{:+.3f}%", (b / a - 1) * 100)});
    return;
  }
  if (want.type() != got.type()) {
    diffs.push_back({ptr, want.dump(), got.dump(), "type changed"});
    return;
  }
  if (want.is_object()) {
    for (const auto& [k, v] : want.items()) {
      if (!got.contains(k)) {
        diffs.push_back({ptr + "/" + pointer_token(k), v.dump(), "(missing)", "removed"});
      } else {
        compare(v, got.at(k), ptr + "/" + pointer_token(k), tol, diffs);
      }
    }
    for (const auto& [k, v] : got.items()) {
      if (!want.contains(k)) diffs.push_back({ptr + "/" + pointer_token(k), "(missing)", v.dump(), "added"});
    }
  } else if (want.is_array()) {
    if (want.size() != got.size()) {
      diffs.push_back({ptr, fmt::format("{} items", want.size()), fmt::format("{} items", got.size()), "length changed"});
      return;
    }
    for (std::size_t i = 0; i < want.size(); ++i) compare(want[i], got[i], fmt::format("{}/{}", ptr, i), tol, diffs);
  } else if (want != got) {
    diffs.push_back({ptr, want.dump(), got.dump(), "changed"});
  }
}

void run_check(const CheckArgs& a) {
  const double tol = a.tolerance;
  std::vector<std::pair<std::string, Diff>> all;
  std::vector<std::string> notes;
  int updated = 0;
  for (const auto& path : a.baselines) {
    GoldenBaseline b = read_golden_baseline(path);
    const auto dir = (std::filesystem::absolute(path).parent_path() / b.root).lexically_normal();
    std::vector<std::string> args = b.command;
    args.push_back("--format");
    args.push_back("json");
    const StoredRun run = run_stored(args, dir);
    if (run.exit_code != 0) {
      all.push_back({path, Diff{"(command)", "exit 0", fmt::format("exit {}", run.exit_code), "command failed"}});
      continue;
    }
    if (!run.report) {
      all.push_back({path, Diff{"(output)", "JSON", "not JSON", "command printed no JSON"}});
      continue;
    }
    nlohmann::ordered_json got = *run.report;
    if (got.is_object()) got.erase(kVersionKey);
    if (a.update) {
      const nlohmann::ordered_json doc = parse_ordered_json_text(read_input_file(path), path);
      if (b.expected != got || b.version != version_string()) {
        write_file_atomically(path, restamped(doc, got).dump(2) + "\n", "--baseline");
        ++updated;
      }
      continue;
    }
    // Another release is worth a note; another commit of the same release is not (a
    // baseline is always recorded by a build that predates its own commit).
    if (release_of(b.version) != release_of(version_string())) {
      notes.push_back(b.version.empty() ? fmt::format("check: note: {} records no collsim version (this is {})", path, version_string())
                                        : fmt::format("check: note: {} was recorded by collsim {} (this is {})", path,
                                                      b.version, version_string()));
    }
    std::vector<Diff> diffs;
    compare(b.expected, got, "", tol, diffs);
    for (auto& d : diffs) all.push_back({path, std::move(d)});
  }
  if (a.update) {
    std::cout << fmt::format("check: {} of {} baselines rewritten\n", updated, a.baselines.size());
    if (all.empty()) return;
  }
  for (const auto& n : notes) std::cout << n << "\n";
  if (all.empty()) {
    std::cout << fmt::format("check: {} baselines, every prediction within {:g}%\n", a.baselines.size(), tol * 100);
    return;
  }
  std::size_t wf = 8, ww = 5, we = 8;
  for (const auto& [f, d] : all) {
    wf = std::max(wf, f.size());
    ww = std::max(ww, d.where.size());
    we = std::max(we, d.expected.size());
  }
  std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>16}  {}\n", "baseline", wf, "field", ww, "expected", we, "got", "change");
  for (const auto& [f, d] : all) {
    std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>16}  {}\n", f, wf, d.where, ww, d.expected, we, d.got, d.change);
  }
  std::cout.flush();
  throw CommandFailed(fmt::format("check: {} figures moved beyond {:g}% (collsim check --update rewrites the baseline)", all.size(),
                                  tol * 100));
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "Recompute stored predictions (results/golden/*.json) and fail when any moved");
  cmd->add_option("--baseline", args->baselines, "Baseline files")->required()->expected(1, -1);
  cmd->add_option("--tolerance", args->tolerance, "Largest relative change allowed per figure")
      ->transform(percent())
      ->default_str("0.5%");
  cmd->add_flag("--update", args->update, "Rewrite the baselines with the current predictions");
  cmd->callback([args] { run_check(*args); });
}

}  // namespace collsim::cli
