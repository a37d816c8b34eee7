// Compute slowed by NCCL's collectives on the same GPU. NCCL runs one CTA per channel and
// each CTA holds an SM for the whole collective (hundreds of threads and most of the SM's
// shared memory), so kernels launched meanwhile share the other S - c SMs: a compute-bound
// kernel runs at (S - c) / S of its speed. The collective also streams its bytes through
// HBM: each byte a rank sends is read from it and each byte it receives written to it, at
// least 2 x busbw, which a memory-bound kernel loses out of the device's HBM bandwidth B.
// Which bound a kernel has is not in the workload, so compute runs at 1 - f with
// f = max(c / S, 2 busbw / B), capped at kMaxComputeShareLost: a slowdown s = f / (1 - f) in
// StreamOptions's convention (rate 1 / (1 + s)). A device with no SM count (not a GPU, or
// none published) loses nothing to the SM share.
#pragma once

#include <functional>
#include <optional>

#include "sim/coll/predict.hpp"
#include "sim/train/device_catalogue.hpp"

namespace collsim {

inline constexpr double kMaxComputeShareLost = 0.9;

// The slowdown of compute while one collective runs with `channels` channels at
// `busbw_gb_per_s` (nccl-tests busbw, 1e9 B/s) on `device`.
[[nodiscard]] double collective_compute_slowdown(int channels, double busbw_gb_per_s, const DeviceSpec& device);
// The same for a prediction (its channels and busbw); 0 without one and for the ideal
// protocol, which models no kernels.
[[nodiscard]] double prediction_compute_slowdown(const std::optional<CollectivePrediction>& p, const DeviceSpec& device);

// Each collective's slowdown from the prediction a cost cache made of it (anything with
// prediction(op, bytes): CollectiveCostCache, AffineCollectiveCost); the cache must
// outlive the function.
template <typename Cache>
[[nodiscard]] std::function<double(CollectiveOp, Bytes)> slowdown_from(const Cache& cache, const DeviceSpec& device) {
  return [&cache, device](CollectiveOp op, Bytes bytes) { return prediction_compute_slowdown(cache.prediction(op, bytes), device); };
}

}  // namespace collsim
