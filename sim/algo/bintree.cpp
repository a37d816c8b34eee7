#include "sim/algo/bintree.hpp"

#include <array>
#include <stdexcept>

#include "sim/algo/tree_passes.hpp"

namespace collsim {

Schedule binary_heap_tree(const Collective& c, const AlgorithmOptions&) {
  const bool up = c.op == CollectiveOp::AllReduce || c.op == CollectiveOp::Reduce;
  const bool down = c.op == CollectiveOp::AllReduce || c.op == CollectiveOp::Broadcast;
  if (!up && !down) throw std::invalid_argument("bintree implements allreduce, reduce and broadcast");
  Schedule s(c, std::string(kBinaryTreeAlgorithm.name));
  const int n = c.ranks;
  ChunkSpec spec{c.size};
  if (c.op == CollectiveOp::Reduce) spec.destination = c.root;
  if (c.op == CollectiveOp::Broadcast) spec.origin = c.root;
  const int chunk = s.add_chunk(spec);
  if (n == 1) return s;
  // Heap position v sits on rank (v + root) mod n.
  std::vector<int> parent(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) {
    parent[static_cast<std::size_t>((v + c.root) % n)] = v == 0 ? -1 : ((v - 1) / 2 + c.root) % n;
  }
  add_tree_passes(s, RankTree(std::move(parent)), chunk, up, down, TreePassIds{});
  return s;
}

namespace {
constexpr std::array kBinaryTreeOps{CollectiveOp::AllReduce, CollectiveOp::Reduce, CollectiveOp::Broadcast};
}  // namespace

const AlgorithmInfo kBinaryTreeAlgorithm{
    .name = "bintree",
    .description = "the SimGrid peer's binary heap tree: whole message, reduce to the root, then broadcast",
    .ops = kBinaryTreeOps,
    .build = binary_heap_tree,
};

}  // namespace collsim
