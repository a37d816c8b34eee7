#include "sim/algo/tree.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/tree_passes.hpp"

namespace collsim {

std::vector<int> double_binary_tree_parents(int ranks, const AlgorithmOptions& opt, int which) {
  const HostGroups g = group_by_host(ranks, opt.host_of_rank);
  const std::vector<int> host_parent = nccl_btree_parents(g.hosts(), which == 1);
  std::vector<int> parent(static_cast<std::size_t>(ranks));
  for (int h = 0; h < g.hosts(); ++h) {
    const auto& chain = g.ranks[static_cast<std::size_t>(h)];
    const int hp = host_parent[static_cast<std::size_t>(h)];
    parent[static_cast<std::size_t>(chain.front())] = hp < 0 ? -1 : g.ranks[static_cast<std::size_t>(hp)].front();
    for (std::size_t i = 1; i < chain.size(); ++i) parent[static_cast<std::size_t>(chain[i])] = chain[i - 1];
  }
  return parent;
}

Schedule double_binary_tree_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("tree implements allreduce only");
  Schedule s(c, "tree");
  const RankTree trees[2] = {RankTree(double_binary_tree_parents(c.ranks, opt, 0)),
                             RankTree(double_binary_tree_parents(c.ranks, opt, 1))};
  // An even channel count, at least two, so both trees carry the same share.
  const int channels = std::max(2, opt.channels + opt.channels % 2);
  const std::vector<Bytes> pieces = split_evenly(c.size, channels);
  const int slices = slice_count(pieces.front(), opt);
  for (Bytes p : pieces) {
    for (Bytes sl : split_evenly(p, slices)) s.add_chunk(ChunkSpec{sl});
  }
  if (c.ranks == 1) return s;
  for (int ch = 0; ch < channels; ++ch) {
    TreePassIds previous;
    for (int l = 0; l < slices; ++l) {
      previous = add_tree_passes(s, trees[ch % 2], ch * slices + l, true, true, previous);
    }
  }
  return s;
}

}  // namespace collsim
