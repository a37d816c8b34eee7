#include "sim/algo/collnet.hpp"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "sim/algo/host_groups.hpp"

namespace collsim {

bool lays_sharp_trees(std::string_view algo) {
  return algo == kCollNetDirectAlgorithm.name || algo == kCollNetChainAlgorithm.name;
}

CollNetLayout collnet_default_layout(int hosts, int ppn, int streams, bool chain) {
  CollNetLayout layout;
  for (int q = 0; q < streams; ++q) {
    CollNetStream s;
    s.head = q % ppn;
    if (chain) {
      for (int i = 0; i < ppn; ++i) s.chain.push_back((s.head + i) % ppn);
    }
    s.root = q % hosts;
    layout.streams.push_back(std::move(s));
  }
  return layout;
}

namespace {

void check_layout(const CollNetLayout& layout, int hosts, int ppn, bool chain, const std::string& name) {
  if (layout.streams.empty()) throw std::invalid_argument(name + ": the layout has no stream");
  for (std::size_t q = 0; q < layout.streams.size(); ++q) {
    const CollNetStream& s = layout.streams[q];
    auto bad = [&](const std::string& what) { throw std::invalid_argument(fmt::format("{}: stream {} {}", name, q, what)); };
    if (s.head < 0 || s.head >= ppn) bad(fmt::format("has head {} on hosts of {} ranks", s.head, ppn));
    if (s.root < 0 || s.root >= hosts) bad(fmt::format("has root host {} of {}", s.root, hosts));
    if (chain && (static_cast<int>(s.chain.size()) != ppn || s.chain.front() != s.head)) {
      bad("has a chain that does not start at its head and visit every local rank");
    }
    const auto n = static_cast<std::size_t>(hosts);
    if (!s.up.empty() && (s.up.size() != n || s.down.size() != n || s.merges_into.size() != n)) {
      bad("has spans for another number of hosts");
    }
  }
}

Schedule collnet_schedule(const Collective& c, const AlgorithmOptions& opt, bool chain, const std::string& name) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument(name + " implements allreduce only");
  const HostGroups g = group_by_host(c.ranks, opt.host_of_rank);
  if (!g.even()) throw std::invalid_argument(name + " needs the same number of ranks on every host");
  const int hosts = g.hosts();
  const int ppn = static_cast<int>(g.ranks.front().size());
  CollNetLayout fallback;
  const CollNetLayout* layout = opt.collnet.get();
  if (layout == nullptr) {
    fallback = collnet_default_layout(hosts, ppn, chain ? std::max(1, opt.channels) : ppn, chain);
    layout = &fallback;
  }
  check_layout(*layout, hosts, ppn, chain, name);
  Schedule s(c, name);
  const int streams = static_cast<int>(layout->streams.size());
  // Every stream in the same number of slices (its blocks differ by a byte at most).
  const std::vector<Bytes> blocks = split_evenly(c.size, streams);
  const int slices = slice_count(blocks.front(), opt);
  std::vector<std::vector<Bytes>> parts;
  for (Bytes b : blocks) parts.push_back(split_evenly(b, slices));
  // chunk (slice l, stream q) = l * streams + q
  for (int l = 0; l < slices; ++l) {
    for (int q = 0; q < streams; ++q) s.add_chunk(ChunkSpec{parts[static_cast<std::size_t>(q)][static_cast<std::size_t>(l)]});
  }
  if (c.ranks == 1) return s;
  // A stream's sends between two ranks in one phase go in slice order.
  std::map<std::tuple<int, int, int, int>, TransferId> last;
  auto send = [&](Transfer t, int q, int phase, std::vector<TransferId> after) {
    const auto key = std::make_tuple(t.src, t.dst, q, phase);
    if (const auto it = last.find(key); it != last.end()) after.push_back(it->second);
    t.bytes = s.chunks()[static_cast<std::size_t>(t.chunk)].bytes;
    t.channel = channel_tag(q);
    const TransferId id = s.add(t, after);
    last[key] = id;
    return id;
  };
  auto rank = [&](int host, int local) { return g.ranks[static_cast<std::size_t>(host)][static_cast<std::size_t>(local)]; };
  for (int l = 0; l < slices; ++l) {
    const bool later = l > 0;
    for (int q = 0; q < streams; ++q) {
      const CollNetStream& st = layout->streams[static_cast<std::size_t>(q)];
      const int chunk = l * streams + q;
      // 1. Inside each host, the host's partial sum onto the head.
      // The transfers that leave the host's partial sum on its head (the executor checks a
      // reader's dependence on its chunk's writers at most one join away).
      std::vector<std::vector<TransferId>> partial_in(static_cast<std::size_t>(hosts));
      for (int k = 0; k < hosts; ++k) {
        const int head = rank(k, st.head);
        if (chain) {
          std::optional<TransferId> in;
          for (int i = ppn - 1; i >= 1; --i) {
            std::vector<TransferId> after;
            if (in) after.push_back(*in);
            in = send(Transfer{rank(k, st.chain[static_cast<std::size_t>(i)]), rank(k, st.chain[static_cast<std::size_t>(i - 1)]),
                               Bytes{0}, chunk, TransferKind::Reduce, TransferLeg::EndToEnd, later},
                      q, 0, after);
          }
          if (in) partial_in[static_cast<std::size_t>(k)].push_back(*in);
        } else {
          std::vector<TransferId> in;
          for (int r : g.ranks[static_cast<std::size_t>(k)]) {
            if (r == head) continue;
            in.push_back(send(Transfer{r, head, Bytes{0}, chunk, TransferKind::Reduce, TransferLeg::EndToEnd, later}, q, 0, {}));
          }
          partial_in[static_cast<std::size_t>(k)] = std::move(in);
        }
      }
      // 2. Into the fabric: a head's stream starts once the partial sums of every host that
      // merges into it are there (SHARP adds streams as they flow: the merged stream runs no
      // earlier than its inputs).
      const int root = st.root;
      const int root_head = rank(root, st.head);
      std::vector<std::vector<int>> feeders(static_cast<std::size_t>(hosts));
      if (!st.merges_into.empty()) {
        for (int k = 0; k < hosts; ++k) {
          const int into = st.merges_into[static_cast<std::size_t>(k)];
          if (k != root && into >= 0) feeders[static_cast<std::size_t>(into)].push_back(k);
        }
      }
      std::vector<std::optional<TransferId>> ready(static_cast<std::size_t>(hosts));
      // What k's stream waits for: its own partial sum and, recursively, its feeders'.
      std::vector<bool> done(static_cast<std::size_t>(hosts), false);
      auto ready_of = [&](auto&& self, int k) -> std::optional<TransferId> {
        if (done[static_cast<std::size_t>(k)]) return ready[static_cast<std::size_t>(k)];
        done[static_cast<std::size_t>(k)] = true;
        std::vector<TransferId> in = partial_in[static_cast<std::size_t>(k)];
        for (int f : feeders[static_cast<std::size_t>(k)]) {
          if (const auto r = self(self, f)) in.push_back(*r);
        }
        if (!in.empty()) ready[static_cast<std::size_t>(k)] = in.size() == 1 ? in.front() : s.add_join(in);
        return ready[static_cast<std::size_t>(k)];
      };
      std::vector<TransferId> at_root = partial_in[static_cast<std::size_t>(root)];
      for (int k = 0; k < hosts; ++k) {
        if (k == root) continue;
        Transfer t{rank(k, st.head), root_head, Bytes{0}, chunk, TransferKind::Reduce, TransferLeg::ToSwitch, later};
        if (!st.up.empty()) {
          t.leg = TransferLeg::Span;
          std::tie(t.span_begin, t.span_end) = st.up[static_cast<std::size_t>(k)];
        }
        std::vector<TransferId> after;
        if (const auto r = ready_of(ready_of, k)) after.push_back(*r);
        at_root.push_back(send(t, q, 1, after));
      }
      // 3. The sum back to every head: one stream-step latency for the network's round trip
      // (NCCL prices CollNet's with one interLat), so the way down streams behind it.
      std::optional<TransferId> sum;
      if (!at_root.empty()) sum = at_root.size() == 1 ? at_root.front() : s.add_join(at_root);
      std::vector<std::optional<TransferId>> full(static_cast<std::size_t>(hosts));
      full[static_cast<std::size_t>(root)] = sum;
      for (int k = 0; k < hosts; ++k) {
        if (k == root) continue;
        Transfer t{root_head, rank(k, st.head), Bytes{0}, chunk, TransferKind::Copy, TransferLeg::FromSwitch, true};
        if (!st.down.empty()) {
          t.leg = TransferLeg::Span;
          std::tie(t.span_begin, t.span_end) = st.down[static_cast<std::size_t>(k)];
        }
        std::vector<TransferId> after;
        if (sum) after.push_back(*sum);
        full[static_cast<std::size_t>(k)] = send(t, q, 2, after);
      }
      // 4. Inside each host, the sum from the head to the other GPUs.
      for (int k = 0; k < hosts; ++k) {
        const int head = rank(k, st.head);
        if (chain) {
          std::optional<TransferId> in = full[static_cast<std::size_t>(k)];
          for (int i = 0; i + 1 < ppn; ++i) {
            std::vector<TransferId> after;
            if (in) after.push_back(*in);
            in = send(Transfer{rank(k, st.chain[static_cast<std::size_t>(i)]), rank(k, st.chain[static_cast<std::size_t>(i + 1)]),
                               Bytes{0}, chunk, TransferKind::Copy, TransferLeg::EndToEnd, later},
                      q, 3, after);
          }
        } else {
          for (int r : g.ranks[static_cast<std::size_t>(k)]) {
            if (r == head) continue;
            std::vector<TransferId> after;
            if (const auto& f = full[static_cast<std::size_t>(k)]) after.push_back(*f);
            (void)send(Transfer{head, r, Bytes{0}, chunk, TransferKind::Copy, TransferLeg::EndToEnd, later}, q, 3, after);
          }
        }
      }
    }
  }
  return s;
}

Schedule collnet_direct_schedule(const Collective& c, const AlgorithmOptions& opt) {
  return collnet_schedule(c, opt, false, std::string(kCollNetDirectAlgorithm.name));
}

Schedule collnet_chain_schedule(const Collective& c, const AlgorithmOptions& opt) {
  return collnet_schedule(c, opt, true, std::string(kCollNetChainAlgorithm.name));
}

}  // namespace

const AlgorithmInfo kCollNetDirectAlgorithm{
    .name = "collnet_direct",
    .description = "NCCL's CollNet Direct: reduce-scatter onto each host's NIC heads, SHARP across the IB fabric, copy back; "
                   "only when asked for",
    .ops = kAllReduceOnly,
    .build = collnet_direct_schedule,
    .nccl = NcclAlgorithm::CollNet,
    .hosts = HostRequirement::SameRanksPerHost,
};

const AlgorithmInfo kCollNetChainAlgorithm{
    .name = "collnet_chain",
    .description = "NCCL's CollNet Chain: per channel a chain through each host's GPUs to its NIC's head, SHARP across the "
                   "IB fabric, back down the chain; only when asked for",
    .ops = kAllReduceOnly,
    .build = collnet_chain_schedule,
    .nccl = NcclAlgorithm::CollNetChain,
    .hosts = HostRequirement::SameRanksPerHost,
};

}  // namespace collsim
