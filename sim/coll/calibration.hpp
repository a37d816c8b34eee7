// A calibration file, the one format `collective`, `ddp`, `llm` and `validate` read with
// `--calibration FILE` (plan files: a candidate's "calibration"): per link class (ethernet,
// nvlink, ...) an efficiency that multiplies the links' bandwidth and a latency (ps) that
// replaces theirs ("links", fitted by
// `collsim validate --calibrate`), and/or overrides of the NCCL protocol model's constants
// (base_latency, step_latency, efficiency, ..., as sim/coll/protocol_model.hpp reads them),
// plus the fit's record (fitted_from, cases, errors before/after), and/or a DDP section
// ("ddp": {"comm_slowdown": S, ...}): compute runs at 1/(1+S) of its speed while a
// collective is in flight (CPU/SM and memory contention), fitted from measured DDP runs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/coll/nccl_env.hpp"
#include "sim/coll/protocol_model.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct LinkClassCalibration {
  double efficiency = 1.0;     // achieved / nominal bandwidth
  std::optional<Time> latency; // per-link latency that replaces the topology's; none: kept
  bool operator==(const LinkClassCalibration&) const = default;
};

// A fit's record of itself (written with the fit, not used to predict): the cases it was
// fitted on and their errors before and after.
struct FitRecord {
  int cases = 0;
  double median_error_before = 0, median_error_after = 0;  // fractions, |predicted/measured - 1|
  double max_error_before = 0, max_error_after = 0;
};

struct DdpCalibration : FitRecord {  // cases: the DDP runs it was fitted on
  double comm_slowdown = 0;  // compute at 1/(1+S) speed while a collective runs
};

struct Calibration : FitRecord {  // cases: the collective measurements the links were fitted on
  std::map<LinkKind, LinkClassCalibration> links;
  // The protocol model with the file's overrides over NCCL's defaults; nullopt when the
  // file has none. Every collective priced under NCCL's protocols uses it (collective,
  // ddp, validate's nccl-tests rows); the ideal protocol does not.
  std::optional<ProtocolModel> protocol;
  std::vector<std::string> fitted_from;  // the measurement files
  std::optional<DdpCalibration> ddp;
};

// The protocol model a run prices NCCL's collectives with: the calibration's constants
// (NCCL's defaults without a calibration, or where it holds none), then NCCL's knobs over them.
[[nodiscard]] ProtocolModel calibrated_protocol_model(const std::optional<Calibration>& c, const NcclEnv& knobs);

// Applies the calibration to every link of a calibrated class.
void apply_calibration(Topology& t, const Calibration& c);

// Reads a calibration file; it must hold "links", protocol-model keys, "ddp", or several.
[[nodiscard]] Calibration load_calibration_file(const std::string& path);
// The same for a parsed document; `source` names it in errors.
[[nodiscard]] Calibration parse_calibration(const nlohmann::json& doc, const std::string& source);
// `option` names what gave the path in a write error (a flag such as "--calibrate").
void write_calibration_file(const std::string& path, const Calibration& c, const std::string& option = "calibration file");

}  // namespace collsim
