// Builds a Chrome trace event JSON file (Perfetto, chrome://tracing) that Perfetto's JSON
// importer takes without complaint: processes and named tracks, complete ("X") slices
// given in ps and written in us rounded to whole ns, and no two slices on one track that
// overlap without nesting: slices of a track that would overlap go to extra lanes (tids),
// allocated greedily in start order and named "<track> #2", "#3"... Same input, same bytes.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"

namespace collsim {

// A time in whole ns as a JSON microsecond value that both of Perfetto's readings of a
// fractional "ts"/"dur" (truncating x * 1000, older; rounding it, newer) turn back into
// exactly `ns`.
[[nodiscard]] double perfetto_us(std::int64_t ns);
// A simulated time in whole ns (nearest; Perfetto's resolution).
[[nodiscard]] std::int64_t trace_ns(Time t);

class ChromeTrace {
 public:
  // Declares a process (pid = 1, 2, ... in call order); returns its pid.
  int add_process(std::string name);
  // Declares a track of a process; tracks are listed in call order. Returns its id.
  int add_track(int pid, std::string name);
  // A slice on a track, [start, end]. Zero-length slices are kept.
  void add_slice(int track, std::string name, std::string category, Time start, Time end,
                 nlohmann::ordered_json args = nullptr);
  void write(std::ostream& out) const;

 private:
  struct Slice {
    std::string name, category;
    Time start, end;                       // as simulated: the lane order
    std::int64_t start_ns = 0, end_ns = 0;  // as written
    nlohmann::ordered_json args;
  };
  struct Track {
    int pid = 0;
    std::string name;
    std::vector<Slice> slices;
  };
  std::vector<std::string> processes_;
  std::vector<Track> tracks_;
};

}  // namespace collsim
