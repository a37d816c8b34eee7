#include "sim/plan/plan_reliability.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/train/goodput.hpp"

namespace collsim {

PlanStragglers parse_plan_stragglers(const nlohmann::json& j, const std::string& source, const std::string& pointer) {
  JsonFields f(j, source, pointer);
  PlanStragglers s;
  const auto fraction = f.optional_number("slow_fraction", 0, 1);
  const auto speed = f.optional_number("slow_speed", 1e-3, 10);
  const auto sigma = f.optional_number("jitter_sigma", 0, 2);
  s.steps = static_cast<int>(f.optional_integer("steps", 1, 10'000).value_or(s.steps));
  s.seed = static_cast<std::uint64_t>(f.optional_integer("seed", 0, std::int64_t{1} << 62).value_or(1));
  f.finish();
  if (fraction.has_value() != speed.has_value()) {
    f.fail(fraction ? "slow_speed" : "slow_fraction", "missing", "slow_fraction and slow_speed together (e.g. 0.01 and 0.8)");
  }
  if (!fraction && !sigma) {
    throw ConfigError(source, pointer, brief(j), "slow_fraction with slow_speed, jitter_sigma, or both");
  }
  s.slow_fraction = fraction.value_or(0);
  s.slow_speed = speed.value_or(1);
  s.jitter_sigma = sigma.value_or(0);
  return s;
}

PlanFailures parse_plan_failures(const nlohmann::json& j, const std::string& source, const std::string& pointer) {
  JsonFields f(j, source, pointer);
  PlanFailures p;
  p.source = pointer.empty() ? source : fmt::format("{}#{}", source, pointer);
  p.mtbf_gpu_s = f.optional_duration_s("mtbf_gpu");
  p.mtbf_host_s = f.optional_duration_s("mtbf_host");
  p.mtbf_link_s = f.optional_duration_s("mtbf_link");
  p.links_per_gpu = f.optional_number("links_per_gpu", 0, 1000).value_or(1);
  p.checkpoint_write_s = f.optional_duration_s("checkpoint_write");
  p.storage_bandwidth = f.optional_bandwidth("storage_bandwidth");
  p.restore_s = f.optional_duration_s("restore");
  p.restart_s = f.optional_duration_s("restart").value_or(p.restart_s);
  p.steps = f.integer("steps", 1, 1'000'000'000'000);
  f.finish();
  if (!p.mtbf_gpu_s && !p.mtbf_host_s && !p.mtbf_link_s) {
    throw ConfigError(source, pointer, brief(j), "at least one of mtbf_gpu, mtbf_host, mtbf_link (e.g. \"50000h\")");
  }
  if (p.checkpoint_write_s.has_value() == p.storage_bandwidth.has_value()) {
    f.fail("checkpoint_write", p.checkpoint_write_s ? brief(j.at("checkpoint_write")) : "missing",
           "either checkpoint_write (e.g. \"5min\") or storage_bandwidth (e.g. \"100GB/s\", the checkpoint being the "
           "model states), not both");
  }
  return p;
}

StragglerSpec straggler_spec(const PlanStragglers& s, int world) {
  StragglerSpec spec;
  const auto slow = static_cast<int>(std::llround(s.slow_fraction * world));
  for (int r = 0; r < slow; ++r) spec.speeds.emplace_back(r, s.slow_speed);
  spec.jitter_sigma = s.jitter_sigma;
  spec.steps = s.steps;
  spec.seed = s.seed;
  return spec;
}

PlanRun plan_run(const PlanFailures& f, double step_s, int world, int gpus_per_host, std::int64_t parameters,
                 std::int64_t bytes_per_parameter) {
  PlanRun out;
  const double hosts = std::ceil(static_cast<double>(world) / gpus_per_host);
  const double links = std::round(f.links_per_gpu * world);
  double rate = 0;
  if (f.mtbf_gpu_s) rate += world / *f.mtbf_gpu_s;
  if (f.mtbf_host_s) rate += hosts / *f.mtbf_host_s;
  if (f.mtbf_link_s) rate += links / *f.mtbf_link_s;
  out.checkpoint = Bytes{parameters * bytes_per_parameter};
  out.checkpoint_s = f.checkpoint_write_s ? *f.checkpoint_write_s
                                          : static_cast<double>(out.checkpoint.count) / f.storage_bandwidth->bytes_per_s;
  RunModel m;
  m.step_s = step_s;
  m.steps = f.steps;
  m.failure_rate = rate;
  m.checkpoint_s = out.checkpoint_s;
  m.restart_s = f.restart_s;
  m.restore_s = f.restore_s.value_or(out.checkpoint_s);
  out.mtbf_s = m.mtbf_s();
  try {
    m.interval_s = rate > 0 ? expected_optimum_interval_s(m) : m.work_s();
    out.interval_s = static_cast<double>(m.steps_per_checkpoint()) * step_s;
    out.wall_s = expected_wall_s(m);
    out.goodput = m.work_s() / *out.wall_s;
    out.interruptions = rate * *out.wall_s;
  } catch (const LimitError&) {
    // Interruptions come faster than a step plus a checkpoint and a restart: the run
    // almost never gets anywhere, at any interval.
    out.wall_s.reset();
  }
  return out;
}

}  // namespace collsim
