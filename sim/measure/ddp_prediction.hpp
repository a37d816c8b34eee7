// Predicts a measured DDP iteration (a harness "ddp" record) with the DDP replay
// (simulate_ddp): the workload embedded in the record (measure_ddp.py writes it with the
// workload exporter's measured per-layer times) or a --workload file, the record's
// bucket_cap_mb and backend, the steady-state (rebuilt) buckets, collectives predicted on
// the record's topology. Times in ps; memory bandwidth in bytes/s.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/comm_spec.hpp"
#include "sim/measure/measurement.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct DdpPredictionResult {
  std::optional<Time> iteration;  // nullopt: not predicted, `note` says why
  std::string note;               // also set beside a prediction (e.g. bucket layout differs)
  int buckets = 0;                // predicted bucket count
  std::vector<Time> bucket_launches;  // when each bucket's all-reduce is launched, from the step's start
};

// The record's measured launch time of each bucket's all-reduce (bucket_allreduce[].start_us,
// by bucket index, from the iteration's start); empty when the record has none.
[[nodiscard]] std::vector<Time> measured_bucket_launches(const DdpMeasurement& m);

// `workload_path`: the --workload file (used when the record embeds no workload; a file or
// a shipped name). `algorithm`: the all-reduce algorithm the backend runs (gloo: ring).
// `comm_slowdown`: compute runs at 1/(1+S) of its speed while a collective is in flight
// (a calibration's "ddp" section; 0 without one).
// Throws ConfigError for a malformed embedded workload or unknown backend; returns no
// prediction (with the reason) when the record lacks what a prediction needs.
// `comm`: how collectives are chosen, resolved per record (resolve_comm_spec with the
// record's backend: gloo runs the ring under the ideal protocol).
[[nodiscard]] DdpPredictionResult predict_ddp_measurement(const DdpMeasurement& m, const Topology& topology,
                                                          const std::string& workload_path, const CommSpec& comm,
                                                          double comm_slowdown = 0);
// One algorithm under the ideal protocol.
[[nodiscard]] DdpPredictionResult predict_ddp_measurement(const DdpMeasurement& m, const Topology& topology,
                                                          const std::string& workload_path, const std::string& algorithm,
                                                          double comm_slowdown = 0);

}  // namespace collsim
