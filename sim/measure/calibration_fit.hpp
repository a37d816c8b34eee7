// Calibration fits: a calibration file's constants fitted to measured collectives (link
// efficiencies and latencies; NCCL's step latencies and protocol efficiencies) and to
// measured DDP runs (the compute slowdown while communicating).
#pragma once

#include <string>
#include <vector>

#include "sim/measure/validation.hpp"

namespace collsim {

// Fits a calibration to measured collectives. Rows of collsim's own schedules (the ideal
// protocol): efficiency and latency per link class used by the cases' topologies,
// minimising the sum of squared log errors (coordinate descent, golden-section search on
// each parameter: efficiency 0.2..1.5, latency 0..1ms). nccl-tests rows (NCCL's
// protocols): the slowest class's link efficiencies, its step latency per protocol and LL's
// and LL128's efficiency, minimising the sum of |log errors| (two searches, the better
// kept; docs/measurement-and-validation.md). Fills the before/after errors. No cases:
// ConfigError (empty source, field "measurements"), as for no runs below.
[[nodiscard]] Calibration fit_calibration(const std::vector<CollectiveMeasurement>& cases, CasePredictor& predictor);

// Fits the DDP section: the compute slowdown while communicating (0..4) that minimises the
// sum of squared log errors of the DDP runs' iteration times and of their buckets'
// measured all-reduce launch times (the slowdown shows first in when buckets become
// ready; an iteration bound by communication hardly depends on it): a scan in steps of
// 0.05, then golden-section search around the best step, with the predictor's current
// calibration (links) applied. Runs that cannot be predicted are an error naming them.
[[nodiscard]] DdpCalibration fit_ddp_calibration(const std::vector<DdpMeasurement>& runs, CasePredictor& predictor,
                                                 const DdpPredictor& ddp, const std::string& workload = {});

}  // namespace collsim
