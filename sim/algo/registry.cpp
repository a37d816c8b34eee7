#include "sim/algo/registry.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/algo/bintree.hpp"
#include "sim/algo/collnet.hpp"
#include "sim/algo/direct.hpp"
#include "sim/algo/halving_doubling.hpp"
#include "sim/algo/hier_ring.hpp"
#include "sim/algo/in_network.hpp"
#include "sim/algo/nvls_tree.hpp"
#include "sim/algo/parameter_server.hpp"
#include "sim/algo/pat.hpp"
#include "sim/algo/recursive_doubling.hpp"
#include "sim/algo/ring.hpp"
#include "sim/algo/tree.hpp"

namespace collsim {

namespace {

// One line per algorithm, in the order --help and error messages list them; the first is
// the default.
constexpr std::array kAlgorithms{
    &kRingAlgorithm,
    &kTreeAlgorithm,
    &kBinaryTreeAlgorithm,
    &kParameterServerAlgorithm,
    &kShardedParameterServerAlgorithm,
    &kHierarchicalRingAlgorithm,
    &kHalvingDoublingAlgorithm,
    &kRecursiveDoublingAlgorithm,
    &kDirectAlgorithm,
    &kNvlsAlgorithm,
    &kNvlsTreeAlgorithm,
    &kPatAlgorithm,
    &kSharpAlgorithm,
    &kCollNetDirectAlgorithm,
    &kCollNetChainAlgorithm,
};

}  // namespace

std::span<const AlgorithmInfo* const> algorithms() { return kAlgorithms; }

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const AlgorithmInfo* a : kAlgorithms) {
    if (a->name == name) return a;
  }
  return nullptr;
}

std::string_view default_algorithm() { return kAlgorithms.front()->name; }

std::vector<std::string> algorithm_names() {
  std::vector<std::string> out;
  out.reserve(kAlgorithms.size());
  for (const AlgorithmInfo* a : kAlgorithms) out.emplace_back(a->name);
  return out;
}

bool is_algorithm(std::string_view name) { return find_algorithm(name) != nullptr; }

bool supports(std::string_view algo, CollectiveOp op) {
  const AlgorithmInfo* a = find_algorithm(algo);
  return a != nullptr && a->implements(op);
}

bool needs_even_hosts(std::string_view algo) {
  const AlgorithmInfo* a = find_algorithm(algo);
  return a != nullptr && a->hosts == HostRequirement::SameRanksPerHost;
}

NcclAlgorithm nccl_counterpart(std::string_view algo) {
  const AlgorithmInfo* a = find_algorithm(algo);
  return a != nullptr ? a->nccl : NcclAlgorithm::None;
}

namespace {

// The algorithm that will build `c`; throws std::invalid_argument as build_schedule says.
const AlgorithmInfo& builder_for(std::string_view algo, const Collective& c) {
  const AlgorithmInfo* a = find_algorithm(algo);
  if (a == nullptr) throw std::invalid_argument(fmt::format("unknown algorithm \"{}\"", algo));
  if (!a->implements(c.op)) {
    throw std::invalid_argument(fmt::format("algorithm \"{}\" does not implement {}", algo, to_string(c.op)));
  }
  if (c.ranks < 1 || c.root < 0 || c.root >= c.ranks) {
    throw std::invalid_argument(fmt::format("root {} outside 0..{}", c.root, c.ranks - 1));
  }
  return *a;
}

}  // namespace

Schedule build_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt) {
  return builder_for(algo, c).build(c, opt);
}

std::unique_ptr<GeneratedSchedule> generated_schedule(std::string_view algo, const Collective& c,
                                                      const AlgorithmOptions& opt) {
  const AlgorithmInfo& a = builder_for(algo, c);
  return a.generated != nullptr ? a.generated(c, opt) : nullptr;
}

}  // namespace collsim
