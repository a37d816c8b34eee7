// All-reduce times for a sweep, fitted from the collective predictor: the schedule is
// played at N bytes (N = ranks) and at the largest size, and time is taken as affine in
// bytes, t(S) = a + b S, after a third play at their geometric mean confirms the fit
// (within 4(N-1) ps: every transfer is rounded up to a whole ps); otherwise every size is played exactly (cached). Affine is
// exact for sizes that are multiples of N whenever every transfer's rate is independent of
// the size (a ring in which no two flows share a link); other sizes differ from a play by
// their remainder bytes (at most one byte per chunk per step). Times in ps.
#pragma once

#include <string>

#include "sim/coll/collective_cost.hpp"

namespace collsim {

class AffineCollectiveCost {
 public:
  // Fits over [N, largest] bytes per rank (sizes below N use the fit too). Only one
  // algorithm under the ideal protocol is affine: with NCCL's protocols the choice of
  // protocol and channel count changes with the size, so every size is played (cached).
  AffineCollectiveCost(LinkGraph& graph, const CommSpec& spec, Bytes largest);
  AffineCollectiveCost(LinkGraph& graph, const std::string& algorithm, Bytes largest);

  // All-reduces up to the largest size use the fit (or exact plays if it failed its
  // check); broadcasts too when the algorithm has none (costed as all-reduces, as
  // CollectiveCostCache does); anything else is played exactly.
  [[nodiscard]] Time time(CollectiveOp op, Bytes bytes);
  [[nodiscard]] bool affine() const { return affine_; }
  // False when the spec is not one algorithm under the ideal protocol (no fit tried).
  [[nodiscard]] bool fitted() const { return fitted_; }
  [[nodiscard]] std::size_t plays() const { return exact_.predictions(); }
  // The prediction behind time(op, bytes) where that size was played (every size under
  // NCCL's protocols); nullopt where the fit priced it.
  [[nodiscard]] std::optional<CollectivePrediction> prediction(CollectiveOp op, Bytes bytes) const;
  [[nodiscard]] double check_error() const { return check_error_; }  // relative error at the check size

 private:
  CollectiveCostCache exact_;
  bool affine_ = false;
  bool fitted_ = false;
  double intercept_ps_ = 0;
  double slope_ps_per_byte_ = 0;
  double check_error_ = 0;
  std::int64_t hi_ = 0;  // largest fitted size (bytes); above it sizes are played
  bool broadcast_as_allreduce_ = false;
};

}  // namespace collsim
