#include "sim/algo/tree.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/tree_passes.hpp"

namespace collsim {

namespace {

// Each host's chain: its ranks ascending, or in the order `order` (a channel's rank
// order) lists them.
std::vector<std::vector<int>> host_chains(const HostGroups& g, const std::vector<int>& order) {
  if (order.empty()) return g.ranks;
  std::vector<std::vector<int>> chains(g.ranks.size());
  for (int r : order) chains[static_cast<std::size_t>(g.host[static_cast<std::size_t>(r)])].push_back(r);
  for (std::size_t h = 0; h < chains.size(); ++h) {
    if (chains[h].size() != g.ranks[h].size()) throw std::invalid_argument("a channel order must list every rank once");
  }
  return chains;
}

std::vector<int> tree_parents(int ranks, const AlgorithmOptions& opt, int which, const std::vector<int>& order) {
  const HostGroups g = group_by_host(ranks, opt.host_of_rank);
  const std::vector<std::vector<int>> chains = host_chains(g, order);
  const std::vector<int> host_parent = nccl_btree_parents(g.hosts(), which == 1);
  std::vector<int> parent(static_cast<std::size_t>(ranks));
  for (int h = 0; h < g.hosts(); ++h) {
    const auto& chain = chains[static_cast<std::size_t>(h)];
    const int hp = host_parent[static_cast<std::size_t>(h)];
    parent[static_cast<std::size_t>(chain.front())] = hp < 0 ? -1 : chains[static_cast<std::size_t>(hp)].front();
    for (std::size_t i = 1; i < chain.size(); ++i) parent[static_cast<std::size_t>(chain[i])] = chain[i - 1];
  }
  return parent;
}

}  // namespace

std::vector<int> double_binary_tree_parents(int ranks, const AlgorithmOptions& opt, int which) {
  return tree_parents(ranks, opt, which, {});
}

Schedule double_binary_tree_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("tree implements allreduce only");
  Schedule s(c, std::string(kTreeAlgorithm.name));
  // An even channel count, at least two, so both trees carry the same share. Channel ch
  // uses tree ch mod 2 with each host's chain in its channel order (NCCL's channel
  // graphs: the head is the GPU nearest the channel's NIC).
  const int channels = std::max(2, opt.channels + opt.channels % 2);
  const std::size_t orders = std::max<std::size_t>(1, opt.channel_orders.size());
  std::vector<RankTree> trees;
  for (std::size_t k = 0; k < 2 * orders; ++k) {
    const std::vector<int> none;
    const std::vector<int>& order = opt.channel_orders.empty() ? none : opt.channel_orders[k / 2];
    trees.emplace_back(tree_parents(c.ranks, opt, static_cast<int>(k % 2), order));
  }
  const std::vector<Bytes> pieces = split_evenly(c.size, channels);
  const int slices = slice_count(pieces.front(), opt);
  for (Bytes p : pieces) {
    for (Bytes sl : split_evenly(p, slices)) s.add_chunk(ChunkSpec{sl});
  }
  if (c.ranks == 1) return s;
  // Each pass (channel x slice) sends 2(n - 1) transfers: an up one per non-root rank
  // depending on its children, a down one per child depending on its parent's (the
  // root's children on all the root's up inputs), and a pipelined slice also on the
  // previous slice's transfer. Reserving up front refuses an oversized schedule at once
  // and saves the copies of a growing array (a fifth of a 1,024-rank play's time).
  std::size_t most_root_children = 0;
  for (const RankTree& t : trees) most_root_children = std::max(most_root_children, t.children(t.root()).size());
  const auto n = static_cast<std::uint64_t>(c.ranks);
  const auto passes = static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(slices);
  const std::uint64_t transfers = passes * 2 * (n - 1);
  const std::uint64_t deps = passes * (4 * (n - 1) + most_root_children * most_root_children);
  s.expect(transfers, deps);  // before the casts: size_t is 32 bits in the WebAssembly build
  s.reserve(static_cast<std::size_t>(transfers), static_cast<std::size_t>(deps));
  for (int ch = 0; ch < channels; ++ch) {
    // When every channel order appears twice, its first pass runs tree 0 and its second
    // tree 1 (NCCL puts both trees on each searched channel); else trees alternate.
    const std::size_t order = static_cast<std::size_t>(ch) % orders;
    const bool twice = static_cast<std::size_t>(channels) >= 2 * orders;
    const auto which = twice ? (static_cast<std::size_t>(ch) / orders) % 2 : static_cast<std::size_t>(ch % 2);
    TreePassIds previous;
    for (int l = 0; l < slices; ++l) {
      previous = add_tree_passes(s, trees[2 * order + which], ch * slices + l, true, true, previous, ch);
    }
  }
  return s;
}

const AlgorithmInfo kTreeAlgorithm{
    .name = "tree",
    .description = "NCCL's double binary tree: a chain inside each host, two complementary trees across hosts",
    .ops = kAllReduceOnly,
    .build = double_binary_tree_allreduce,
    .nccl = NcclAlgorithm::Tree,
};

}  // namespace collsim
