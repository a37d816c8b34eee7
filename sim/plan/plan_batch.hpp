// Rescales a workload's per-iteration compute from its own batch_per_gpu to another
// per-GPU micro-batch (linear in samples: measured times and FLOPs both), for capacity
// plans whose global batch splits over world size x accumulation steps. Times in ps.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/train/workload.hpp"

namespace collsim {

// Samples per GPU per micro-step, global / (world x accumulate), or nullopt when that does
// not divide evenly or is below one sample.
[[nodiscard]] std::optional<int> micro_batch(std::int64_t global_batch, int world, int accumulate);

// `w` with every layer's forward/backward time and FLOPs multiplied by
// micro / w.batch_per_gpu (rounded to whole ps) and batch_per_gpu = micro. Parameters,
// buffers and the optimizer step (per parameter, not per sample) are unchanged.
[[nodiscard]] Workload with_micro_batch(const Workload& w, int micro);

}  // namespace collsim
