// A plan's view of an imperfect cluster: slow GPUs in every step ("stragglers") and
// interruptions over a whole training run ("failures"). With stragglers each row's step is
// the mean over seeded steps of the step at its slowest rank's pace (sim/train/stragglers);
// with failures each row also gets the expected wall time of its run at the checkpoint
// interval that minimises it (the closed form of sim/train/goodput), its goodput and its
// cost, and the planner ranks on time-to-train. Times in seconds unless named otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"
#include "sim/train/stragglers.hpp"

namespace collsim {

struct PlanStragglers {
  double slow_fraction = 0;  // of the GPUs, rounded to whole GPUs at each world size
  double slow_speed = 1;     // their compute speed (1 = nominal)
  double jitter_sigma = 0;   // log-normal sigma of every GPU's compute time per step
  int steps = 20;            // steps drawn per row with jitter
  std::uint64_t seed = 1;
};

struct PlanFailures {
  std::string source;  // the file (and pointer) it came from, for the report
  std::optional<double> mtbf_gpu_s, mtbf_host_s, mtbf_link_s;
  double links_per_gpu = 1;
  std::optional<double> checkpoint_write_s;       // or the checkpoint's bytes over:
  std::optional<Bandwidth> storage_bandwidth;     // aggregate write (and read) bandwidth
  std::optional<double> restore_s;                // default: the write time
  double restart_s = 600;
  std::int64_t steps = 0;                         // optimizer steps to train, every workload
};

// Strict readers of a plan's "stragglers" and "failures" objects: ConfigError naming
// `source`, the JSON pointer, the value and what was expected.
[[nodiscard]] PlanStragglers parse_plan_stragglers(const nlohmann::json& j, const std::string& source,
                                                   const std::string& pointer);
[[nodiscard]] PlanFailures parse_plan_failures(const nlohmann::json& j, const std::string& source, const std::string& pointer);

// The stragglers at `world` GPUs: the slow ones are the first round(fraction x world).
[[nodiscard]] StragglerSpec straggler_spec(const PlanStragglers& s, int world);

// One row's run with failures.
struct PlanRun {
  Bytes checkpoint{0};          // model states: parameters x (parameter + optimizer bytes)
  double checkpoint_s = 0;      // one write
  double interval_s = 0;        // training between checkpoints (the closed-form optimum)
  double mtbf_s = 0;            // the job's: 1 / (GPUs / M_gpu + hosts / M_host + links / M_link)
  std::optional<double> wall_s;  // expected; none when a checkpoint is almost never reached
  double goodput = 0;           // steps x step / wall
  double interruptions = 0;     // expected per run: rate x wall
};

[[nodiscard]] PlanRun plan_run(const PlanFailures& f, double step_s, int world, int gpus_per_host, std::int64_t parameters,
                               std::int64_t bytes_per_parameter);

}  // namespace collsim
