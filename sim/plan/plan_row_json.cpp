#include "sim/plan/plan_row_json.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

nlohmann::json memory_to_json(const MemoryEstimate& m) {
  return {{"parameters", m.parameters.count}, {"gradients", m.gradients.count}, {"optimizer", m.optimizer.count},
          {"buckets", m.buckets.count},       {"unsharded", m.unsharded.count}, {"activations", m.activations.count},
          {"total", m.total.count},           {"capacity", m.capacity.count},   {"fits", m.fits},
          {"margin_bytes", m.margin_bytes}};
}

MemoryEstimate memory_from_json(const nlohmann::json& j) {
  MemoryEstimate m;
  m.parameters = Bytes{j.at("parameters").get<std::int64_t>()};
  m.gradients = Bytes{j.at("gradients").get<std::int64_t>()};
  m.optimizer = Bytes{j.at("optimizer").get<std::int64_t>()};
  m.buckets = Bytes{j.at("buckets").get<std::int64_t>()};
  m.unsharded = Bytes{j.at("unsharded").get<std::int64_t>()};
  m.activations = Bytes{j.at("activations").get<std::int64_t>()};
  m.total = Bytes{j.at("total").get<std::int64_t>()};
  m.capacity = Bytes{j.at("capacity").get<std::int64_t>()};
  m.fits = j.at("fits").get<bool>();
  m.margin_bytes = j.at("margin_bytes").get<std::int64_t>();
  return m;
}

nlohmann::json run_to_json(const std::optional<PlanRun>& run) {
  if (!run) return nullptr;
  return {{"checkpoint_bytes", run->checkpoint.count}, {"checkpoint_s", run->checkpoint_s},
          {"interval_s", run->interval_s},             {"mtbf_s", run->mtbf_s},
          {"wall_s", run->wall_s ? nlohmann::json(*run->wall_s) : nlohmann::json()},
          {"goodput", run->goodput},                   {"interruptions", run->interruptions}};
}

std::optional<PlanRun> run_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  PlanRun run;
  run.checkpoint = Bytes{j.at("checkpoint_bytes").get<std::int64_t>()};
  run.checkpoint_s = j.at("checkpoint_s").get<double>();
  run.interval_s = j.at("interval_s").get<double>();
  run.mtbf_s = j.at("mtbf_s").get<double>();
  if (!j.at("wall_s").is_null()) run.wall_s = j.at("wall_s").get<double>();
  run.goodput = j.at("goodput").get<double>();
  run.interruptions = j.at("interruptions").get<double>();
  return run;
}

}  // namespace

nlohmann::json plan_row_to_json(const PlanRow& r) {
  return {{"candidate", r.candidate},
          {"workload", r.workload},
          {"variant", r.variant},
          {"world", r.world},
          {"status", to_string(r.status)},
          {"micro_batch", r.micro_batch},
          {"step_ps", r.step.ps},
          {"nominal_step_ps", r.nominal_step.ps},
          {"run", run_to_json(r.run)},
          {"comm_total_ps", r.comm_total.ps},
          {"exposed_comm_ps", r.exposed_comm.ps},
          {"samples_per_s", r.samples_per_s},
          {"exposed_percent", r.exposed_percent},
          {"memory", memory_to_json(r.memory)},
          {"cost_per_hour", r.cost_per_hour},
          {"cost_per_million", r.cost_per_million},
          {"layout", r.layout},
          {"mfu", r.mfu},
          {"tokens_per_s", r.tokens_per_s},
          {"layouts_evaluated", r.layouts_evaluated}};
}

PlanRow plan_row_from_json(const nlohmann::json& j) {
  try {
    PlanRow r;
    r.candidate = j.at("candidate").get<std::size_t>();
    r.workload = j.at("workload").get<std::size_t>();
    r.variant = j.at("variant").get<std::size_t>();
    r.world = j.at("world").get<int>();
    const auto status = enum_from<PlanStatus>(j.at("status").get<std::string>());
    if (!status) throw InternalError(fmt::format("plan row: unknown status {}", j.at("status").dump()));
    r.status = *status;
    r.micro_batch = j.at("micro_batch").get<int>();
    r.step = Time{j.at("step_ps").get<std::int64_t>()};
    r.nominal_step = Time{j.at("nominal_step_ps").get<std::int64_t>()};
    r.run = run_from_json(j.at("run"));
    r.comm_total = Time{j.at("comm_total_ps").get<std::int64_t>()};
    r.exposed_comm = Time{j.at("exposed_comm_ps").get<std::int64_t>()};
    r.samples_per_s = j.at("samples_per_s").get<double>();
    r.exposed_percent = j.at("exposed_percent").get<double>();
    r.memory = memory_from_json(j.at("memory"));
    r.cost_per_hour = j.at("cost_per_hour").get<double>();
    r.cost_per_million = j.at("cost_per_million").get<double>();
    r.layout = j.at("layout").get<std::string>();
    r.mfu = j.at("mfu").get<double>();
    r.tokens_per_s = j.at("tokens_per_s").get<double>();
    r.layouts_evaluated = j.at("layouts_evaluated").get<std::size_t>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw InternalError(fmt::format("plan row: {}", e.what()));
  }
}

}  // namespace collsim
