// A collsim command line run inside this process: its report's JSON document is taken as
// the report makes it (no text is parsed), anything else it writes on stdout is dropped,
// and its error messages can be kept. `collsim check` reruns stored command lines with it;
// the Python package (python/) runs every call through it, so a notebook gets the CLI's
// figures and the CLI's error messages.
#pragma once

#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim::cli {

// Text written to `stream` goes to `sink` while this lives.
class Redirected {
 public:
  Redirected(std::ostream& stream, std::ostringstream& sink) : stream_(stream), saved_(stream.rdbuf(sink.rdbuf())) {}
  ~Redirected() { stream_.rdbuf(saved_); }
  Redirected(const Redirected&) = delete;
  Redirected& operator=(const Redirected&) = delete;

 private:
  std::ostream& stream_;
  std::streambuf* saved_;
};

struct CapturedRun {
  int exit_code = 0;
  std::optional<nlohmann::ordered_json> report;  // the JSON document of its report, if it made one
  std::string errors;                            // what it wrote on stderr, when kept
};

// `args`: the command line without the program name ({"collective", "--op", ...}). The
// batch commands run on this process's threads. With `keep_errors` stderr is captured in
// `errors`, else it passes through.
[[nodiscard]] CapturedRun run_captured(const std::vector<std::string>& args, bool keep_errors);

}  // namespace collsim::cli
