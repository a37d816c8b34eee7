// A calibration: per link class (ethernet, nvlink, ...) an efficiency that multiplies
// the links' bandwidth and a latency (ps) that replaces theirs. Fitted by
// `collsim validate --calibrate` from named measurements, read by `--calibration FILE`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct LinkClassCalibration {
  double efficiency = 1.0;  // achieved / nominal bandwidth
  Time latency;             // per-link latency that replaces the topology's
};

struct Calibration {
  std::map<LinkKind, LinkClassCalibration> links;
  std::vector<std::string> fitted_from;  // the measurement files
  int cases = 0;
  double median_error_before = 0, median_error_after = 0;  // fractions, |predicted/measured - 1|
  double max_error_before = 0, max_error_after = 0;
};

// Applies the calibration to every link of a calibrated class.
void apply_calibration(Topology& t, const Calibration& c);

[[nodiscard]] Calibration load_calibration_file(const std::string& path);
void write_calibration_file(const std::string& path, const Calibration& c);

}  // namespace collsim
