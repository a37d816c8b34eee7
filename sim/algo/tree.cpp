#include "sim/algo/tree.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/tree_passes.hpp"
#include "sim/core/error.hpp"

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

// Each rank's parent: a host's chain head under the head of its host's parent in the tree
// across hosts (host_parent), every other rank under the one before it in its chain.
std::vector<int> chained_parents(int ranks, const std::vector<std::vector<int>>& chains,
                                 const std::vector<int>& host_parent) {
  std::vector<int> parent(static_cast<std::size_t>(ranks));
  for (std::size_t h = 0; h < chains.size(); ++h) {
    const auto& chain = chains[h];
    const int hp = host_parent[h];
    parent[static_cast<std::size_t>(chain.front())] = hp < 0 ? -1 : chains[static_cast<std::size_t>(hp)].front();
    for (std::size_t i = 1; i < chain.size(); ++i) parent[static_cast<std::size_t>(chain[i])] = chain[i - 1];
  }
  return parent;
}

}  // namespace

std::vector<int> double_binary_tree_parents(int ranks, const AlgorithmOptions& opt, int which) {
  const HostGroups g = group_by_host(ranks, opt.host_of_rank);
  return chained_parents(ranks, g.ranks, nccl_btree_parents(g.hosts(), which == 1));
}

namespace {

// An even channel count, at least two, so both trees carry the same share.
int tree_channels(const AlgorithmOptions& opt) { return std::max(2, opt.channels + opt.channels % 2); }

// Each pass (channel x slice) sends one transfer up and one down per non-root rank.
std::uint64_t pass_transfers(std::uint64_t passes, int ranks) {
  return passes * 2 * static_cast<std::uint64_t>(std::max(0, ranks - 1));
}

}  // namespace

TreePlan tree_plan(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("tree implements allreduce only");
  TreePlan plan;
  // Channel ch uses tree ch mod 2 with each host's chain in its channel order (NCCL's
  // channel graphs: the head is the GPU nearest the channel's NIC).
  plan.channels = tree_channels(opt);
  const std::size_t orders = std::max<std::size_t>(1, opt.channel_orders.size());
  // Trees 2k and 2k + 1 share order k's chains; the trees across hosts are the same two
  // for every order (grouped and built once: a 131,072-rank plan has 8 trees).
  const HostGroups g = group_by_host(c.ranks, opt.host_of_rank);
  const std::vector<int> host_parent[2] = {nccl_btree_parents(g.hosts(), false), nccl_btree_parents(g.hosts(), true)};
  const std::vector<int> none;
  for (std::size_t o = 0; o < orders; ++o) {
    const auto chains = host_chains(g, opt.channel_orders.empty() ? none : opt.channel_orders[o]);
    for (const auto& hp : host_parent) plan.trees.emplace_back(chained_parents(c.ranks, chains, hp));
  }
  const std::vector<Bytes> pieces = split_evenly(c.size, plan.channels);
  plan.slices = slice_count(pieces.front(), opt);
  for (Bytes p : pieces) {
    for (Bytes sl : split_evenly(p, plan.slices)) plan.pass_bytes.push_back(sl);
  }
  for (int ch = 0; ch < plan.channels; ++ch) {
    // When every channel order appears twice, its first pass runs tree 0 and its second
    // tree 1 (NCCL puts both trees on each searched channel); else trees alternate.
    const std::size_t order = static_cast<std::size_t>(ch) % orders;
    const bool twice = static_cast<std::size_t>(plan.channels) >= 2 * orders;
    const auto which = twice ? (static_cast<std::size_t>(ch) / orders) % 2 : static_cast<std::size_t>(ch % 2);
    plan.tree_of_channel.push_back(2 * order + which);
  }
  return plan;
}

std::uint64_t tree_transfers(const Collective& c, const AlgorithmOptions& opt) {
  const int channels = tree_channels(opt);
  const int slices = slice_count(split_evenly(c.size, channels).front(), opt);
  return pass_transfers(static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(slices), c.ranks);
}

std::uint64_t tree_transfers(const TreePlan& plan, int ranks) { return pass_transfers(plan.pass_bytes.size(), ranks); }

Schedule double_binary_tree_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  const TreePlan plan = tree_plan(c, opt);
  Schedule s(c, std::string(kTreeAlgorithm.name));
  for (Bytes b : plan.pass_bytes) s.add_chunk(ChunkSpec{b});
  if (c.ranks == 1) return s;
  // Each pass (channel x slice) sends 2(n - 1) transfers: an up one per non-root rank
  // depending on its children, a down one per child depending on its parent's (the
  // root's children on all the root's up inputs), and a pipelined slice also on the
  // previous slice's transfer. Reserving up front refuses an oversized schedule at once
  // and saves the copies of a growing array (a fifth of a 1,024-rank play's time).
  std::size_t most_root_children = 0;
  for (const RankTree& t : plan.trees) most_root_children = std::max(most_root_children, t.children(t.root()).size());
  const auto n = static_cast<std::uint64_t>(c.ranks);
  const auto passes = static_cast<std::uint64_t>(plan.pass_bytes.size());
  const std::uint64_t transfers = tree_transfers(plan, c.ranks);
  const std::uint64_t deps = passes * (4 * (n - 1) + most_root_children * most_root_children);
  s.expect(transfers, deps);  // before the casts: size_t is 32 bits in the WebAssembly build
  s.reserve(static_cast<std::size_t>(transfers), static_cast<std::size_t>(deps));
  for (int ch = 0; ch < plan.channels; ++ch) {
    TreePassIds previous;
    for (int l = 0; l < plan.slices; ++l) {
      previous = add_tree_passes(s, plan.trees[plan.tree_of_channel[static_cast<std::size_t>(ch)]],
                                 ch * plan.slices + l, true, true, previous, ch);
    }
  }
  return s;
}

namespace {

// double_binary_tree_allreduce's DAG computed on demand, id for id. Pass p (channel x
// slice) holds ids p * 2(n - 1) onwards: first the up transfers, by the tree's breadth-first
// order reversed (a rank at position q has index n - 1 - q), then the down ones, by the
// receiving rank's position (index n - 2 + q), as add_tree_passes adds them.
class TreeDag final : public GeneratedSchedule {
 public:
  TreeDag(const Collective& c, TreePlan plan)
      : GeneratedSchedule(c, std::string(kTreeAlgorithm.name)), plan_(std::move(plan)), n_(c.ranks) {
    for (const RankTree& t : plan_.trees) {
      std::vector<int> pos(static_cast<std::size_t>(n_));
      for (std::size_t q = 0; q < t.top_down().size(); ++q) {
        const int r = t.top_down()[q];
        pos[static_cast<std::size_t>(r)] = static_cast<int>(q);
        // A transfer's dependents: a rank's children, and one more for the next slice.
        fits_ = fits_ && t.children(r).size() + 1 <= kMaxDependents;
      }
      pos_.push_back(std::move(pos));
    }
    for (int ch = 0; ch < plan_.channels; ++ch) tags_.push_back(channel_tag(ch));
    per_pass_ = n_ > 1 ? 2 * static_cast<std::uint64_t>(n_ - 1) : 0;
  }

  // Whether every transfer's dependents fit GeneratedSchedule::Dependents.
  [[nodiscard]] bool fits() const { return fits_; }

  [[nodiscard]] std::uint64_t size() const override { return per_pass_ * plan_.pass_bytes.size(); }
  // Per tree: r -> parent(r) in slot r, parent(r) -> r in slot n + r.
  [[nodiscard]] std::uint64_t route_slots() const override { return plan_.trees.size() * 2 * static_cast<std::uint64_t>(n_); }

  [[nodiscard]] Transfer transfer(std::uint64_t id, std::uint64_t& route_slot) const override {
    const Pos x = pos(id);
    const RankTree& t = tree(x);
    const auto slot0 = static_cast<std::uint64_t>(x.tree) * 2 * static_cast<std::uint64_t>(n_);
    const Bytes bytes = plan_.pass_bytes[static_cast<std::size_t>(x.pass)];
    const std::uint8_t tag = tags_[static_cast<std::size_t>(x.channel)];
    if (x.up) {
      route_slot = slot0 + static_cast<std::uint64_t>(x.rank);
      return Transfer{x.rank, t.parent(x.rank), bytes, x.pass, TransferKind::Reduce, TransferLeg::EndToEnd, x.pipelined(), tag};
    }
    route_slot = slot0 + static_cast<std::uint64_t>(n_ + x.rank);
    return Transfer{t.parent(x.rank), x.rank, bytes, x.pass, TransferKind::Copy, TransferLeg::EndToEnd, x.pipelined(), tag};
  }

  [[nodiscard]] std::uint32_t indegree(std::uint64_t id) const override {
    const Pos x = pos(id);
    return x.up ? up_indegree(tree(x), x.rank, x.pipelined()) : down_indegree(tree(x), x.rank, x.pipelined());
  }

  std::size_t dependents(std::uint64_t id, Dependents& out) const override {
    const Pos x = pos(id);
    const RankTree& t = tree(x);
    const std::vector<int>& at = pos_[x.tree];
    const std::uint64_t base = static_cast<std::uint64_t>(x.pass) * per_pass_;
    const auto n1 = static_cast<std::uint64_t>(n_ - 1);
    auto up_id = [&](std::uint64_t b, int r) { return b + n1 - static_cast<std::uint64_t>(at[static_cast<std::size_t>(r)]); };
    auto down_id = [&](std::uint64_t b, int r) { return b + n1 - 1 + static_cast<std::uint64_t>(at[static_cast<std::size_t>(r)]); };
    const bool next = (x.pass + 1) % plan_.slices != 0;  // the next slice of this channel
    std::size_t m = 0;
    if (x.up) {
      const int p = t.parent(x.rank);
      if (p != t.root()) {
        out[m++] = {up_id(base, p), up_indegree(t, p, x.pipelined())};
      } else {
        // The root's children's down transfers wait for all the root's up inputs.
        for (int k : t.children(p)) out[m++] = {down_id(base, k), down_indegree(t, k, x.pipelined())};
      }
      if (next) out[m++] = {up_id(base + per_pass_, x.rank), up_indegree(t, x.rank, true)};
    } else {
      for (int k : t.children(x.rank)) out[m++] = {down_id(base, k), down_indegree(t, k, x.pipelined())};
      if (next) out[m++] = {down_id(base + per_pass_, x.rank), down_indegree(t, x.rank, true)};
    }
    return m;
  }

  // The first slice's up transfers from leaves, by id.
  [[nodiscard]] std::vector<std::uint64_t> roots() const override {
    std::vector<std::uint64_t> r;
    if (n_ < 2) return r;
    for (int ch = 0; ch < plan_.channels; ++ch) {
      const auto pass = static_cast<std::uint64_t>(ch) * static_cast<std::uint64_t>(plan_.slices);
      const RankTree& t = plan_.trees[plan_.tree_of_channel[static_cast<std::size_t>(ch)]];
      for (std::uint64_t w = 0; w + 1 < static_cast<std::uint64_t>(n_); ++w) {
        const int rank = t.top_down()[static_cast<std::size_t>(static_cast<std::uint64_t>(n_) - 1 - w)];
        if (t.children(rank).empty()) r.push_back(pass * per_pass_ + w);
      }
    }
    return r;
  }

 private:
  struct Pos {
    int pass;
    int channel;
    int slice;
    std::size_t tree;  // index in plan_.trees
    bool up;
    int rank;  // the sender of an up transfer, the receiver of a down one
    [[nodiscard]] bool pipelined() const { return slice > 0; }
  };
  [[nodiscard]] Pos pos(std::uint64_t id) const {
    const std::uint64_t pass = id / per_pass_;
    const std::uint64_t w = id - pass * per_pass_;
    const auto slices = static_cast<std::uint64_t>(plan_.slices);
    const auto channel = static_cast<int>(pass / slices);
    Pos x{static_cast<int>(pass), channel, static_cast<int>(pass % slices),
          plan_.tree_of_channel[static_cast<std::size_t>(channel)], false, 0};
    const auto n1 = static_cast<std::uint64_t>(n_ - 1);
    const std::vector<int>& order = tree(x).top_down();
    x.up = w < n1;
    x.rank = order[static_cast<std::size_t>(x.up ? n1 - w : w - n1 + 1)];
    return x;
  }
  [[nodiscard]] const RankTree& tree(const Pos& x) const { return plan_.trees[x.tree]; }
  static std::uint32_t up_indegree(const RankTree& t, int r, bool pipelined) {
    return static_cast<std::uint32_t>(t.children(r).size()) + (pipelined ? 1U : 0U);
  }
  static std::uint32_t down_indegree(const RankTree& t, int r, bool pipelined) {
    const int p = t.parent(r);
    return (p != t.root() ? 1U : static_cast<std::uint32_t>(t.children(p).size())) + (pipelined ? 1U : 0U);
  }

  TreePlan plan_;
  int n_ = 0;
  std::uint64_t per_pass_ = 0;
  std::vector<std::vector<int>> pos_;  // per tree: each rank's breadth-first position
  std::vector<std::uint8_t> tags_;     // per channel
  bool fits_ = true;
};

}  // namespace

std::unique_ptr<GeneratedSchedule> generated_tree(const Collective& c, const AlgorithmOptions& opt) {
  TreePlan plan = tree_plan(c, opt);
  // Refused before the position tables are built.
  const auto n = static_cast<std::uint64_t>(c.ranks);
  const std::uint64_t transfers = tree_transfers(plan, c.ranks);
  const bool over = transfers > max_replay_work() / std::max<std::uint64_t>(1, n);
  if (over) {
    throw LimitError(fmt::format(
        "tree allreduce on {} ranks: a full replay of {} transfers whose rates are solved over whole trees, "
        "about {:.2g} transfers x ranks of work, more than the {:.2g} a replay may take (about a quarter of an "
        "hour); use fewer ranks or a smaller size, or raise the limit with COLLSIM_MAX_REPLAY_WORK",
        c.ranks, transfers, static_cast<double>(transfers) * static_cast<double>(n),
        static_cast<double>(max_replay_work())));
  }
  auto dag = std::make_unique<TreeDag>(c, std::move(plan));
  if (!dag->fits()) return nullptr;  // a rank with more children than a dependents list holds: built
  return dag;
}

const AlgorithmInfo kTreeAlgorithm{
    .name = "tree",
    .description = "NCCL's double binary tree: a chain inside each host, two complementary trees across hosts",
    .ops = kAllReduceOnly,
    .build = double_binary_tree_allreduce,
    .generated = generated_tree,
    .nccl = NcclAlgorithm::Tree,
};

}  // namespace collsim
