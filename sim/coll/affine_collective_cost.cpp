#include "sim/coll/affine_collective_cost.hpp"

#include <array>
#include <cmath>
#include <future>

#include <spdlog/spdlog.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/predict.hpp"

namespace collsim {

namespace {
// Rounds up to a multiple of the rank count so that every chunk has the same size.
std::int64_t round_up_to(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }
}  // namespace

AffineCollectiveCost::AffineCollectiveCost(LinkGraph& graph, const std::string& algorithm, Bytes largest)
    : AffineCollectiveCost(graph, CommSpec{algorithm, "ideal"}, largest) {}

AffineCollectiveCost::AffineCollectiveCost(LinkGraph& graph, const CommSpec& spec, Bytes largest)
    : exact_(graph, spec), broadcast_as_allreduce_(spec.request(CollectiveOp::Broadcast).algorithms.empty()) {
  const std::int64_t n = graph.topology().rank_count();
  const CollectiveRequest request = spec.request(CollectiveOp::AllReduce);
  if (n <= 1 || request.algorithms.size() != 1 || request.protocols != std::vector<Protocol>{Protocol::Ideal}) return;
  fitted_ = true;
  const std::string algorithm = request.algorithms.front();
  const std::int64_t lo = n;
  const std::int64_t hi = std::max(round_up_to(largest.count, n), lo + 4 * n);
  const std::int64_t mid = round_up_to(static_cast<std::int64_t>(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi))), n);
  hi_ = hi;
  // The three plays are independent: run them on their own threads, each on its own
  // LinkGraph (route caches are not shared), and keep them in the exact cache.
  const std::array<std::int64_t, 3> sizes{lo, hi, mid};
  std::array<std::future<Time>, 3> plays;
  const Topology& topo = graph.topology();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    plays[i] = std::async(std::launch::async, [&topo, &algorithm, n, bytes = sizes[i]] {
      LinkGraph own(topo);
      return predict_collective(own, Collective{CollectiveOp::AllReduce, static_cast<int>(n), 0, Bytes{bytes}}, algorithm).time;
    });
  }
  std::array<double, 3> t{};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Time played;
    try {
      played = plays[i].get();
    } catch (const std::invalid_argument& e) {
      // (The other plays' futures wait for them as they go out of scope.)
      throw_unusable_spec(spec, topo, e);
    }
    exact_.remember(CollectiveOp::AllReduce, Bytes{sizes[i]}, played);
    t[i] = static_cast<double>(played.ps);
  }
  const double t_lo = t[0], t_hi = t[1], t_mid = t[2];
  slope_ps_per_byte_ = (t_hi - t_lo) / static_cast<double>(hi - lo);
  intercept_ps_ = t_lo - slope_ps_per_byte_ * static_cast<double>(lo);
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

std::optional<CollectivePrediction> AffineCollectiveCost::prediction(CollectiveOp op, Bytes bytes) const {
  if (op == CollectiveOp::Broadcast && broadcast_as_allreduce_) op = CollectiveOp::AllReduce;
  return exact_.prediction(op, bytes);
}

}  // namespace collsim
