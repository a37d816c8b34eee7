// A rank-level tree (parent per rank) and the two passes every tree algorithm is made of:
// reduce toward the root (a rank sends once all its children's contributions arrived) and
// broadcast away from it (a rank sends to all its children at once after receiving).
// Slices of one pipelined stream pass the same edge in order.
#pragma once

#include <span>
#include <vector>

#include "sim/algo/schedule.hpp"

namespace collsim {

class RankTree {
 public:
  // parent[r] = -1 for the single root; throws std::invalid_argument unless a tree.
  explicit RankTree(std::vector<int> parent);

  [[nodiscard]] int root() const { return root_; }
  [[nodiscard]] int parent(int r) const { return parent_[static_cast<std::size_t>(r)]; }
  // r's children, in rank order.
  [[nodiscard]] std::span<const int> children(int r) const {
    const auto i = static_cast<std::size_t>(r);
    return std::span<const int>(child_).subspan(first_child_[i], first_child_[i + 1] - first_child_[i]);
  }
  // Ranks root first, each after its parent (breadth first).
  [[nodiscard]] const std::vector<int>& top_down() const { return order_; }
  [[nodiscard]] int depth() const { return depth_; }  // edges on the longest root-leaf path

 private:
  std::vector<int> parent_;
  // Children of every rank in one array (rank r's: child_[first_child_[r], first_child_[r + 1])):
  // a 131,072-rank plan builds 8 trees, and a vector per rank cost a million allocations.
  std::vector<std::size_t> first_child_;
  std::vector<int> child_;
  std::vector<int> order_;
  int root_ = 0;
  int depth_ = 0;
};

// Transfer ids of one slice's passes, per rank: up[r] = r -> parent, down[r] = parent -> r.
struct TreePassIds {
  std::vector<TransferId> up, down;
  bool valid = false;
};

// Adds the reduce pass (`up`) and/or broadcast pass (`down`) of `chunk` over `tree`;
// `previous` (if valid) is the preceding slice of the same stream, which each edge
// follows; every transfer is tagged with `channel`. Returns this slice's ids.
TreePassIds add_tree_passes(Schedule& s, const RankTree& tree, int chunk, bool up, bool down,
                            const TreePassIds& previous, int channel = 0);

// NCCL's binary tree over 0..n-1 (in-order layout: a rank's parent flips its lowest set
// bit and sets the next, or just clears it when that leaves the range; rank 0 is the root
// and has one child). mirror = the complementary tree of the double binary tree: ranks
// reversed (n even) or shifted by one (n odd), so most inner ranks of one are leaves of
// the other.
[[nodiscard]] std::vector<int> nccl_btree_parents(int n, bool mirror);

}  // namespace collsim
