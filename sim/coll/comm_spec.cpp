#include "sim/coll/comm_spec.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/selection.hpp"

namespace collsim {

CollectiveRequest CommSpec::request(CollectiveOp op) const {
  CollectiveRequest r;
  r.algorithms.clear();
  // A ^list takes its entries from auto's candidates for this op; where it leaves none (a
  // broadcast under ^ring) the request has no algorithm, as a list naming none of op's.
  const bool negated = !algorithms.empty() && algorithms.front() == '^';
  std::vector<std::string> listed = parse_algorithm_list(negated ? algorithms.substr(1) : algorithms, op);
  if (negated) {
    std::vector<std::string> kept;
    for (std::string& a : automatic_algorithms(op)) {
      if (std::find(listed.begin(), listed.end(), a) == listed.end()) kept.push_back(std::move(a));
    }
    listed = std::move(kept);
  }
  for (std::string& a : listed) {
    if (supports(a, op)) r.algorithms.push_back(std::move(a));
  }
  r.protocols = parse_protocol_list(protocols);
  r.protocols_auto = is_auto(protocols);
  r.model = model;
  r.overrides = overrides;
  return r;
}

std::string CommSpec::label() const { return fmt::format("{}/{}", algorithms, protocols); }

bool nccl_ranks(const Topology& topo) {
  if (topo.ranks.empty()) return false;
  for (NodeIndex v : topo.ranks) {
    const Node& n = topo.nodes[v];
    if (n.kind != NodeKind::Gpu || !gpu_arch_from_model(n.model)) return false;
  }
  return true;
}

CommSpec resolve_comm_spec(CommSpec spec, const Topology& topo, bool nccl_backend) {
  if (nccl_backend && nccl_ranks(topo)) return spec;
  if (is_auto(spec.protocols)) spec.protocols = "ideal";
  if (is_auto(spec.algorithms)) spec.algorithms = default_algorithm();
  return spec;
}

void check_comm_spec(const CommSpec& spec, CollectiveOp op) {
  try {
    if (spec.request(op).algorithms.empty()) {
      throw std::invalid_argument(fmt::format("no algorithm in \"{}\" implements {}", spec.algorithms, to_string(op)));
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} (algorithms: {}; protocols: ideal, ll, ll128, simple; each a name, a list, "
                                            "a ^list or auto)",
                                            e.what(), fmt::join(algorithm_names(), ", ")));
  }
}

}  // namespace collsim
