// How a job's collectives are chosen and priced: NCCL_ALGO / NCCL_PROTO-style lists
// ("auto", "ring", "ring,tree", "^nvls"; sim/coll/selection.hpp) and the protocol model.
// "auto" is NCCL's own choice per collective and size where NCCL runs it: on GPU ranks of
// a known generation with the NCCL backend. Elsewhere (gloo, CPU ranks) there are no NCCL
// protocols: "auto" is the ideal protocol and the ring (gloo's all-reduce).
#pragma once

#include <string>
#include <vector>

#include "sim/coll/predict.hpp"

namespace collsim {

struct CommSpec {
  std::string algorithms = "auto";
  std::string protocols = "auto";
  ProtocolModel model = nccl_default_model();
  CostOverrides overrides{};

  // The candidates for `op`: the listed algorithms that implement it (none: empty
  // algorithms), the listed protocols. Throws std::invalid_argument for an unknown name.
  [[nodiscard]] CollectiveRequest request(CollectiveOp op) const;
  // "ring/ideal", "auto/auto", "ring,tree/simple".
  [[nodiscard]] std::string label() const;
};

// Whether NCCL runs on these ranks: every rank a GPU of a generation collsim knows.
[[nodiscard]] bool nccl_ranks(const Topology& topo);

// `spec` with "auto" resolved for where it runs: unchanged on NCCL ranks with the NCCL
// backend; otherwise an "auto" protocol becomes "ideal" and an "auto" algorithm the default
// one (default_algorithm(), the ring).
[[nodiscard]] CommSpec resolve_comm_spec(CommSpec spec, const Topology& topo, bool nccl_backend);

// Checks both lists for `op` (unknown names, lists that leave no candidate); throws
// std::invalid_argument saying which.
void check_comm_spec(const CommSpec& spec, CollectiveOp op);

}  // namespace collsim
