#include "sim/train/affine_collective_cost.hpp"

#include <cmath>

#include <spdlog/spdlog.h>

#include "sim/algo/registry.hpp"

namespace collsim {

namespace {
// Rounds up to a multiple of the rank count so that every chunk has the same size.
std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }
}  // namespace

AffineCollectiveCost::AffineCollectiveCost(LinkGraph& graph, const std::string& algorithm, Bytes largest)
    : exact_(graph, algorithm), broadcast_as_allreduce_(!supports(algorithm, CollectiveOp::Broadcast)) {
  const std::int64_t n = graph.topology().rank_count();
  if (n <= 1) return;
  const std::int64_t lo = n;
  const std::int64_t hi = std::max(round_up(largest.count, n), lo + 4 * n);
  const std::int64_t mid = round_up(static_cast<std::int64_t>(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi))), n);
  hi_ = hi;
  const double t_lo = static_cast<double>(exact_.time(CollectiveOp::AllReduce, Bytes{lo}).ps);
  const double t_hi = static_cast<double>(exact_.time(CollectiveOp::AllReduce, Bytes{hi}).ps);
  slope_ps_per_byte_ = (t_hi - t_lo) / static_cast<double>(hi - lo);
  intercept_ps_ = t_lo - slope_ps_per_byte_ * static_cast<double>(lo);
  const double t_mid = static_cast<double>(exact_.time(CollectiveOp::AllReduce, Bytes{mid}).ps);
  const double fit = intercept_ps_ + slope_ps_per_byte_ * static_cast<double>(mid);
  check_error_ = std::abs(fit - t_mid) / t_mid;
  // The player rounds every transfer up to a whole ps: along a ring's 2(N-1) steps that
  // bends the line by at most 2(N-1) ps, so the check allows twice that.
  affine_ = std::abs(fit - t_mid) <= 4.0 * static_cast<double>(n - 1);
  spdlog::debug("affine all-reduce fit on {} ranks: {} + {} ps/B, check at {} B off by {:.2e}{}", n, intercept_ps_,
                slope_ps_per_byte_, mid, check_error_, affine_ ? "" : ": playing every size");
}

Time AffineCollectiveCost::time(CollectiveOp op, Bytes bytes) {
  if (op == CollectiveOp::Broadcast && broadcast_as_allreduce_) op = CollectiveOp::AllReduce;  // as CollectiveCostCache
  if (op != CollectiveOp::AllReduce || !affine_ || bytes.count > hi_) return exact_.time(op, bytes);
  if (bytes.count == 0) return Time{};
  return Time{static_cast<std::int64_t>(std::llround(intercept_ps_ + slope_ps_per_byte_ * static_cast<double>(bytes.count)))};
}

}  // namespace collsim
