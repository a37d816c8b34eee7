#include "sim/measure/measurement.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/measure/nccl_tests_log.hpp"
#include "sim/train/ddp_names.hpp"

namespace collsim {

namespace {

std::string resolve_path(const std::string& dir, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute() || dir.empty()) return path;
  return (std::filesystem::path(dir) / path).lexically_normal().string();
}

Time micros(double us) { return Time::from_seconds(us * 1e-6); }

// "iteration_us": the run's per-iteration times, kept with the record (not predicted):
// an array of times from 0 to 1e12 us.
void check_iteration_times(JsonFields& f) {
  const auto* it = f.optional("iteration_us");
  if (it == nullptr) return;
  if (!it->is_array()) f.fail("iteration_us", brief(*it), "an array of times in us");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& v = (*it)[i];
    if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e12) {
      throw ConfigError(f.source(), f.pointer("iteration_us") + "/" + std::to_string(i), brief(v),
                        "a time in us from 0 to 1e12");
    }
  }
}

void read_collective(JsonFields& f, const std::string& dir, MeasurementSet& out) {
  CollectiveMeasurement m;
  m.source = f.source();
  const std::string op = f.choice("op", enum_names<CollectiveOp>());
  m.op = *enum_from<CollectiveOp>(op);
  m.algorithm = f.string("algorithm");
  m.ranks = static_cast<int>(f.integer("ranks", 1, 65536));
  m.size = Bytes{f.integer("size", 0, std::int64_t{1} << 50)};
  m.time = micros(f.number("time_us", 1e-3, 1e12));
  if (const auto w = f.optional_integer("wrong", 0, INT64_MAX); w && *w > 0) {
    f.fail("wrong", std::to_string(*w), "0 wrong elements (this run's result check failed; it is not a valid measurement)");
  }
  m.label = f.optional_string("label").value_or("");
  m.topology = resolve_path(dir, f.optional_string("topology").value_or(""));
  for (const char* k : {"source", "congestion", "collsim_version"}) (void)f.optional_string(k);
  for (const char* k : {"warmup", "iterations"}) (void)f.optional_integer(k, 0, INT32_MAX);
  for (const char* k : {"mean_us", "min_us", "max_us", "stddev_us", "algbw_gbps", "busbw_gbps"}) (void)f.optional_number(k, 0, 1e15);
  check_iteration_times(f);
  if (const auto* tr = f.optional("transfers"); tr && !tr->is_array()) f.fail("transfers", brief(*tr), "an array of transfer timings");
  f.finish();
  out.collectives.push_back(std::move(m));
}

void read_ddp(JsonFields& f, const nlohmann::json& record, const std::string& dir, MeasurementSet& out) {
  DdpMeasurement m;
  m.source = f.source();
  m.model = f.string("model");
  m.ranks = static_cast<int>(f.integer("ranks", 1, 65536));
  m.bucket_cap_mb = f.number("bucket_cap_mb", 1e-6, 1e6);
  m.iteration = micros(f.number("time_us", 1e-3, 1e12));
  m.stddev_us = f.optional_number("stddev_us", 0, 1e12).value_or(0);
  m.label = f.optional_string("label").value_or("");
  m.topology = resolve_path(dir, f.optional_string("topology").value_or(""));
  if (f.has("backend")) m.backend = f.choice("backend", enum_names<DdpBackend>());
  m.memory_bandwidth_gbps = f.optional_number("memory_bandwidth_gbps", 1e-3, 1e6).value_or(0);
  if (const auto* w = f.optional("workload"); w && !w->is_object()) {
    f.fail("workload", brief(*w), "a workload object (the format of workloads/*.json)");
  }
  for (const char* k : {"source", "torch", "model_spec", "device", "collsim_version"}) (void)f.optional_string(k);
  for (const char* k : {"warmup", "iterations", "parameters", "batch_size", "threads"}) (void)f.optional_integer(k, 0, INT64_MAX);
  for (const char* k : {"median_us", "min_us", "max_us", "mean_us", "optimizer_us"}) (void)f.optional_number(k, 0, 1e15);
  check_iteration_times(f);
  for (const char* k : {"buckets", "rebuilt_buckets", "bucket_allreduce", "layers"}) {
    if (const auto* v = f.optional(k); v && !v->is_array()) f.fail(k, brief(*v), "an array");
  }
  f.finish();
  m.record = record;
  out.ddp.push_back(std::move(m));
}

}  // namespace

MeasurementSet parse_harness_records(const std::string& text, const std::string& source, const std::string& dir) {
  MeasurementSet out;
  std::istringstream in(text);
  int no = 0;
  for (std::string line; std::getline(in, line);) {
    ++no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", source, no);
    const nlohmann::json record = parse_json_text(line, where);
    JsonFields f(record, where, "");
    const std::string kind = f.choice("kind", {"collective", "ddp"});
    if (kind == "collective") {
      read_collective(f, dir, out);
    } else {
      read_ddp(f, record, dir, out);
    }
  }
  return out;
}

MeasurementSet load_measurements(const std::string& path) {
  const std::string text = read_input_file(path);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw ConfigError(path, "", "an empty file", "measurements (harness JSON lines or an nccl-tests log)");
  if (text[first] == '{') {
    return parse_harness_records(text, path, std::filesystem::path(path).parent_path().string());
  }
  MeasurementSet out;
  for (const NcclTestsRun& run : parse_nccl_tests_log(text, path)) {
    for (const NcclTestsRow& r : run.rows) {
      CollectiveMeasurement m;
      m.source = fmt::format("{}:{}", path, r.line);
      m.op = run.op;
      m.ranks = run.ranks;
      m.size = r.size;
      m.time = r.out_of_place.time;
      m.gpus_per_thread = run.gpus_per_thread;
      m.nccl_env = run.nccl_env;
      out.collectives.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace collsim
