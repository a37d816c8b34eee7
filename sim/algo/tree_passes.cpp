#include "sim/algo/tree_passes.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim {

RankTree::RankTree(std::vector<int> parent) : parent_(std::move(parent)) {
  const int n = static_cast<int>(parent_.size());
  const auto size = static_cast<std::size_t>(n);
  first_child_.assign(size + 1, 0);
  int roots = 0;
  for (int r = 0; r < n; ++r) {
    const int p = parent_[static_cast<std::size_t>(r)];
    if (p == -1) {
      root_ = r;
      ++roots;
    } else if (p < 0 || p >= n || p == r) {
      throw std::invalid_argument(fmt::format("rank {} has parent {} outside 0..{}", r, p, n - 1));
    } else {
      ++first_child_[static_cast<std::size_t>(p) + 1];
    }
  }
  if (roots != 1) throw std::invalid_argument(fmt::format("a tree needs one root, found {}", roots));
  for (std::size_t r = 0; r < size; ++r) first_child_[r + 1] += first_child_[r];
  // Each rank's children in rank order: filled in rank order from each parent's first slot.
  child_.resize(size - 1);
  std::vector<std::size_t> next(first_child_.begin(), first_child_.end() - 1);
  for (int r = 0; r < n; ++r) {
    const int p = parent_[static_cast<std::size_t>(r)];
    if (p >= 0) child_[next[static_cast<std::size_t>(p)]++] = r;
  }
  std::vector<int> depth(static_cast<std::size_t>(n), 0);
  order_.reserve(static_cast<std::size_t>(n));
  order_.push_back(root_);
  for (std::size_t i = 0; i < order_.size(); ++i) {
    for (int c : children(order_[i])) {
      depth[static_cast<std::size_t>(c)] = depth[static_cast<std::size_t>(order_[i])] + 1;
      depth_ = std::max(depth_, depth[static_cast<std::size_t>(c)]);
      order_.push_back(c);
    }
  }
  if (static_cast<int>(order_.size()) != n) throw std::invalid_argument("parent links contain a cycle");
}

TreePassIds add_tree_passes(Schedule& s, const RankTree& tree, int chunk, bool up, bool down,
                            const TreePassIds& previous, int channel) {
  const std::size_t n = tree.top_down().size();
  TreePassIds ids;
  ids.up.assign(n, 0);
  ids.down.assign(n, 0);
  ids.valid = true;
  const Bytes bytes = s.chunks()[static_cast<std::size_t>(chunk)].bytes;
  const std::uint8_t tag = channel_tag(channel);
  const bool pipelined = previous.valid;
  std::vector<TransferId> deps;
  if (up) {
    const auto& order = tree.top_down();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int r = *it;
      if (r == tree.root()) continue;
      deps.clear();
      for (int c : tree.children(r)) deps.push_back(ids.up[static_cast<std::size_t>(c)]);
      if (pipelined) deps.push_back(previous.up[static_cast<std::size_t>(r)]);
      ids.up[static_cast<std::size_t>(r)] =
          s.add(Transfer{r, tree.parent(r), bytes, chunk, TransferKind::Reduce, TransferLeg::EndToEnd, pipelined, tag}, deps);
    }
  }
  if (down) {
    for (int r : tree.top_down()) {
      for (int c : tree.children(r)) {
        deps.clear();
        if (r != tree.root()) {
          deps.push_back(ids.down[static_cast<std::size_t>(r)]);
        } else if (up) {
          for (int k : tree.children(r)) deps.push_back(ids.up[static_cast<std::size_t>(k)]);
        }
        if (pipelined) deps.push_back(previous.down[static_cast<std::size_t>(c)]);
        ids.down[static_cast<std::size_t>(c)] =
            s.add(Transfer{r, c, bytes, chunk, TransferKind::Copy, TransferLeg::EndToEnd, pipelined, tag}, deps);
      }
    }
  }
  return ids;
}

std::vector<int> nccl_btree_parents(int n, bool mirror) {
  auto parent0 = [n](int r) {
    if (r == 0) return -1;
    int bit = 1;
    while ((r & bit) == 0) bit <<= 1;
    const int up = (r ^ bit) | (bit << 1);
    return up < n ? up : (r ^ bit);
  };
  // mirror map m and its inverse
  auto m = [n](int r) { return n % 2 == 0 ? n - 1 - r : (r + n - 1) % n; };
  auto inv = [n](int r) { return n % 2 == 0 ? n - 1 - r : (r + 1) % n; };
  std::vector<int> parent(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (!mirror) {
      parent[static_cast<std::size_t>(r)] = parent0(r);
    } else {
      const int p = parent0(m(r));
      parent[static_cast<std::size_t>(r)] = p < 0 ? -1 : inv(p);
    }
  }
  return parent;
}

}  // namespace collsim
