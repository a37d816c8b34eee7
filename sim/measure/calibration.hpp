// A calibration file, the one format `collective`, `ddp` and `validate` read with
// `--calibration FILE`: per link class (ethernet, nvlink, ...) an efficiency that multiplies
// the links' bandwidth and a latency (ps) that replaces theirs ("links", fitted by
// `collsim validate --calibrate`), and/or overrides of the NCCL protocol model's constants
// (base_latency, step_latency, efficiency, ..., as sim/coll/protocol_model.hpp reads them),
// plus the fit's record (fitted_from, cases, errors before/after).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/protocol_model.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct LinkClassCalibration {
  double efficiency = 1.0;  // achieved / nominal bandwidth
  Time latency;             // per-link latency that replaces the topology's
};

struct Calibration {
  std::map<LinkKind, LinkClassCalibration> links;
  // The protocol model with the file's overrides over NCCL's defaults; nullopt when the
  // file has none. Only non-ideal protocols (collective --protocol ll/ll128/simple/auto)
  // use it; ddp and validate predict with the ideal protocol.
  std::optional<ProtocolModel> protocol;
  std::vector<std::string> fitted_from;  // the measurement files
  int cases = 0;
  double median_error_before = 0, median_error_after = 0;  // fractions, |predicted/measured - 1|
  double max_error_before = 0, max_error_after = 0;
};

// Applies the calibration to every link of a calibrated class.
void apply_calibration(Topology& t, const Calibration& c);

// Reads a calibration file; it must hold "links", protocol-model keys, or both.
[[nodiscard]] Calibration load_calibration_file(const std::string& path);
void write_calibration_file(const std::string& path, const Calibration& c);

}  // namespace collsim
