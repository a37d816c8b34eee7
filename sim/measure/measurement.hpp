// Measured cases that `collsim validate` compares against predictions, read from the
// harness JSON-lines format (collsim-exec, scripts/measure_ddp.py) or from nccl-tests logs.
// Times are Time (ps); sizes Bytes; a record's topology path is resolved against the
// directory of the file that names it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/algo/collective.hpp"
#include "sim/core/units.hpp"
#include "sim/measure/nccl_tests_log.hpp"

namespace collsim {

struct CollectiveMeasurement {
  std::string source;     // "file:line"
  CollectiveOp op = CollectiveOp::AllReduce;
  int ranks = 0;
  Bytes size;             // nccl-tests size (collective buffer, or gathered total)
  std::string algorithm;  // empty when the measurement does not say (nccl-tests)
  Time time;              // collsim-exec: median iteration; nccl-tests: out-of-place time
  std::string topology;   // topology file the record names, empty if none
  std::string label;
  int gpus_per_thread = 1;  // nccl-tests -g: GPUs one CPU thread launches each operation on
  std::vector<NcclLogVariable> nccl_env;  // nccl-tests: the NCCL variables its log shows set
};

struct DdpMeasurement {
  std::string source;
  std::string model;
  int ranks = 0;
  double bucket_cap_mb = 0;
  Time iteration;         // mean iteration time after warm-up
  double stddev_us = 0;
  std::string backend = "gloo";     // "gloo" or "nccl" (absent: gloo, measure_ddp.py's default)
  double memory_bandwidth_gbps = 0; // measured copy bandwidth (read + write bytes / s / 1e9), 0 if absent
  std::string topology;
  std::string label;
  nlohmann::json record;  // the whole record (buckets, per-bucket all-reduce times, layers, workload)
};

struct MeasurementSet {
  std::vector<CollectiveMeasurement> collectives;
  std::vector<DdpMeasurement> ddp;
};

// Reads one file: JSON lines when its first non-blank character is '{', else an
// nccl-tests log. Throws ConfigError naming file, line and field for anything malformed,
// for a record whose result check failed (wrong > 0), and for an empty file.
[[nodiscard]] MeasurementSet load_measurements(const std::string& path);
// Reads harness JSON lines from text (`source` names it in errors; `dir` resolves paths).
[[nodiscard]] MeasurementSet parse_harness_records(const std::string& text, const std::string& source, const std::string& dir);

}  // namespace collsim
