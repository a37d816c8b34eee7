#include "sim/plan/plan_batch.hpp"

#include <limits>

#include "sim/core/error.hpp"

namespace collsim {

std::optional<int> micro_batch(std::int64_t global_batch, int world, int accumulate) {
  const std::int64_t per_step = static_cast<std::int64_t>(world) * accumulate;
  if (per_step < 1 || global_batch % per_step != 0 || global_batch / per_step < 1) return std::nullopt;
  // The plan's range (kMaxGlobalBatch) keeps this inside an int; a wrapped micro-batch
  // would be a negative batch size.
  if (global_batch / per_step > std::numeric_limits<int>::max()) throw OverflowError("a micro-batch past 2^31 - 1 samples");
  return static_cast<int>(global_batch / per_step);
}

Workload with_micro_batch(const Workload& w, int micro) {
  if (micro < 1 || w.batch_per_gpu < 1) throw InternalError("with_micro_batch: batch sizes must be >= 1");
  const double f = static_cast<double>(micro) / static_cast<double>(w.batch_per_gpu);
  Workload out = w;
  out.batch_per_gpu = micro;
  // A layer time times a large micro-batch can pass the clock: scaled() refuses, never wraps.
  auto scale = [f](std::optional<Time>& t) {
    if (t) t = t->scaled(f);
  };
  for (auto& l : out.layers) {
    scale(l.compute.forward_time);
    scale(l.compute.backward_time);
    l.compute.forward_flops *= f;
    l.compute.backward_flops *= f;
  }
  return out;
}

}  // namespace collsim
