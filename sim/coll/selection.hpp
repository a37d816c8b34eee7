// NCCL_ALGO / NCCL_PROTO-style choice lists: "auto", a comma list ("ring,tree",
// case-insensitive) or a negated list ("^tree": every automatic candidate but those).
// "auto" means NCCL's own candidates: ring, tree, nvls, nvls_tree and pat for algorithms (direct for
// all-to-all, which NCCL runs point to point), and ll, ll128, simple for protocols.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/coll/protocol.hpp"

namespace collsim {

// What "auto" means for `op`: the algorithms whose NCCL counterpart (AlgorithmInfo::nccl)
// is NCCL's ring, tree, NVLS, NVLSTree or PAT and that implement `op`, in the registry's order (sharp,
// NCCL's CollNet, needs a network plugin and runs only when asked for); when none does
// (all-to-all), the ones NCCL runs as point-to-point sends.
[[nodiscard]] std::vector<std::string> automatic_algorithms(CollectiveOp op);
// Throws std::invalid_argument naming the first unknown entry.
[[nodiscard]] std::vector<std::string> parse_algorithm_list(std::string_view text, CollectiveOp op);
[[nodiscard]] std::vector<Protocol> parse_protocol_list(std::string_view text);
// Whether a list names more than one choice (so a prediction is a selection).
[[nodiscard]] bool is_choice(std::string_view text);
// Whether a list is "auto" (any case).
[[nodiscard]] bool is_auto(std::string_view text);

}  // namespace collsim
