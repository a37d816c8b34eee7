#include "sim/algo/nvls_tree.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/tree_passes.hpp"

namespace collsim {

NvlsTreePlan nvls_tree_plan(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("nvls_tree implements allreduce only");
  HostGroups g = group_by_host(c.ranks, opt.host_of_rank);
  if (!g.even()) throw std::invalid_argument("nvls_tree needs the same number of ranks on every host");
  NvlsTreePlan plan;
  plan.ranks = std::move(g.ranks);
  // Block j (local GPU j's), each in two halves, one per tree.
  std::vector<Bytes> halves;
  for (Bytes block : split_evenly(c.size, plan.ppn())) {
    for (Bytes h : split_evenly(block, 2)) halves.push_back(h);
  }
  const int slices = slice_count(halves.front(), opt);
  for (Bytes h : halves) plan.parts.push_back(split_evenly(h, slices));
  // Each tree breadth first from its root, so that a position's parent comes before it.
  const int hosts = plan.hosts();
  for (int t = 0; t < 2; ++t) {
    const std::vector<int> parent = nccl_btree_parents(hosts, t == 1);
    std::vector<std::vector<int>> children(static_cast<std::size_t>(hosts));
    int root = 0;
    for (int h = 0; h < hosts; ++h) {
      if (parent[static_cast<std::size_t>(h)] < 0) {
        root = h;
      } else {
        children[static_cast<std::size_t>(parent[static_cast<std::size_t>(h)])].push_back(h);
      }
    }
    auto& host_at = plan.host_at[static_cast<std::size_t>(t)];
    auto& parent_at = plan.parent_at[static_cast<std::size_t>(t)];
    host_at.push_back(root);
    parent_at.push_back(-1);
    for (std::size_t k = 0; k < host_at.size(); ++k) {
      for (int c : children[static_cast<std::size_t>(host_at[k])]) {
        host_at.push_back(c);
        parent_at.push_back(static_cast<int>(k));
      }
    }
  }
  return plan;
}

std::uint64_t NvlsTreePlan::transfers() const {
  if (hosts() * ppn() <= 1) return 0;
  const auto h = static_cast<std::uint64_t>(hosts());
  const auto local = static_cast<std::uint64_t>(ppn() - 1);
  // Per stream and slice: each host's reduce legs (and their join when there are two or
  // more), up and down each non-root position, the root's join of its inputs (its own
  // partial sum and its children's), each host's multicast legs.
  const std::uint64_t partial_joins = local >= 2 ? h : 0;
  std::uint64_t root_children = 0;
  for (int p : parent_at[0]) root_children += p == 0 ? 1 : 0;
  const std::uint64_t root_inputs = (local >= 1 ? 1 : 0) + root_children;
  const std::uint64_t per = 2 * h * local + partial_joins + 2 * (h - 1) + (root_inputs >= 2 ? 1 : 0);
  return per * static_cast<std::uint64_t>(streams()) * static_cast<std::uint64_t>(slices());
}

namespace {

Schedule nvls_tree_schedule(const Collective& c, const AlgorithmOptions& opt) {
  const NvlsTreePlan plan = nvls_tree_plan(c, opt);
  Schedule s(c, std::string(kNvlsTreeAlgorithm.name));
  const int hosts = plan.hosts();
  const int ppn = plan.ppn();
  const int slices = plan.slices();
  const auto& parts = plan.parts;
  // chunk (slice l, half q) = l * 2 ppn + q
  const int per_slice = 2 * ppn;
  for (int l = 0; l < slices; ++l) {
    for (int q = 0; q < per_slice; ++q) {
      s.add_chunk(ChunkSpec{parts[static_cast<std::size_t>(q)][static_cast<std::size_t>(l)]});
    }
  }
  if (c.ranks == 1) return s;
  // A stream (src, dst, leg) sends its slices in order: slice l follows slice l - 1.
  std::map<std::tuple<int, int, int, int>, TransferId> last;
  std::vector<TransferId> deps;
  auto send = [&](int src, int dst, int q, int chunk, TransferKind kind, TransferLeg leg, bool pipelined,
                  std::vector<TransferId> after) {
    const auto key = std::make_tuple(src, dst, q, static_cast<int>(leg));
    if (const auto it = last.find(key); it != last.end()) after.push_back(it->second);
    const Bytes b = s.chunks()[static_cast<std::size_t>(chunk)].bytes;
    const TransferId id = s.add(Transfer{src, dst, b, chunk, kind, leg, pipelined}, after);
    last[key] = id;
    return id;
  };
  for (int l = 0; l < slices; ++l) {
    const bool later = l > 0;
    for (int q = 0; q < per_slice; ++q) {
      const int j = q / 2;  // the block's local GPU
      const int t = q % 2;  // its tree
      const int chunk = l * per_slice + q;
      // 1. NVLS reduce inside each host onto local GPU j.
      std::vector<std::optional<TransferId>> partial(static_cast<std::size_t>(hosts));
      for (int h = 0; h < hosts; ++h) {
        const auto& local = plan.ranks[static_cast<std::size_t>(h)];
        const int owner = local[static_cast<std::size_t>(j)];
        std::vector<TransferId> in;
        for (int r : local) {
          if (r != owner) in.push_back(send(r, owner, q, chunk, TransferKind::Reduce, TransferLeg::ToSwitch, later, {}));
        }
        if (!in.empty()) partial[static_cast<std::size_t>(h)] = in.size() == 1 ? in.front() : s.add_join(in);
      }
      auto owner_at = [&](int k) { return plan.ranks[static_cast<std::size_t>(plan.host(t, k))][static_cast<std::size_t>(j)]; };
      // 2. Up the tree of hosts (positions breadth first: children after their parent), then down.
      std::vector<std::vector<TransferId>> into(static_cast<std::size_t>(hosts));  // what node k waits for
      for (int k = 0; k < hosts; ++k) {
        if (const auto& p = partial[static_cast<std::size_t>(plan.host(t, k))]) into[static_cast<std::size_t>(k)].push_back(*p);
      }
      for (int k = hosts - 1; k > 0; --k) {
        const int parent = plan.parent(t, k);
        const TransferId up = send(owner_at(k), owner_at(parent), q, chunk, TransferKind::Reduce, TransferLeg::EndToEnd,
                                   later, into[static_cast<std::size_t>(k)]);
        into[static_cast<std::size_t>(parent)].push_back(up);
      }
      std::vector<std::optional<TransferId>> full(static_cast<std::size_t>(hosts));
      const auto& root_in = into.front();
      if (!root_in.empty()) full.front() = root_in.size() == 1 ? root_in.front() : s.add_join(root_in);
      for (int k = 1; k < hosts; ++k) {
        const int parent = plan.parent(t, k);
        std::vector<TransferId> after;
        if (const auto& p = full[static_cast<std::size_t>(parent)]) after.push_back(*p);
        full[static_cast<std::size_t>(k)] =
            send(owner_at(parent), owner_at(k), q, chunk, TransferKind::Copy, TransferLeg::EndToEnd, later, after);
      }
      // 3. NVLS multicast of the sum inside each host (NCCL prices reduce + multicast with
      // one NVLS step latency: the multicast streams behind it).
      for (int k = 0; k < hosts; ++k) {
        const auto& local = plan.ranks[static_cast<std::size_t>(plan.host(t, k))];
        const int owner = owner_at(k);
        for (int r : local) {
          if (r == owner) continue;
          std::vector<TransferId> after;
          if (const auto& f = full[static_cast<std::size_t>(k)]) after.push_back(*f);
          (void)send(owner, r, q, chunk, TransferKind::Copy, TransferLeg::FromSwitch, true, after);
        }
      }
    }
  }
  return s;
}

}  // namespace

const AlgorithmInfo kNvlsTreeAlgorithm{
    .name = "nvls_tree",
    .description = "NCCL's NVLSTree: NVSwitch reduce inside hosts, a double binary tree per NIC across them, multicast",
    .ops = kAllReduceOnly,
    .build = nvls_tree_schedule,
    .nccl = NcclAlgorithm::NvlsTree,
    .hosts = HostRequirement::SameRanksPerHost,
};

}  // namespace collsim
