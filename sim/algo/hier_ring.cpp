#include "sim/algo/hier_ring.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/schedule_builder.hpp"

namespace collsim {

Schedule hierarchical_ring_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("hier_ring implements allreduce only");
  const HostGroups g = group_by_host(c.ranks, opt.host_of_rank);
  if (!g.even()) {
    throw std::invalid_argument(
        fmt::format("hier_ring needs the same number of ranks on every host ({} ranks on {} hosts)", c.ranks, g.hosts()));
  }
  Schedule s(c, std::string(kHierarchicalRingAlgorithm.name));
  const int hosts = g.hosts();
  const int local = static_cast<int>(g.ranks.front().size());
  // Refuse with the figure before building: the phases inside hosts move every host's
  // piece of every shard, (local - 1) x ranks x hosts transfers each.
  const auto h64 = static_cast<std::uint64_t>(hosts), l64 = static_cast<std::uint64_t>(local);
  const std::uint64_t transfers = 2 * (l64 - 1) * (h64 * l64) * h64 + (2 * h64 - 2) * l64 * h64;
  s.expect(transfers, transfers - std::min(transfers, h64 * l64 * h64));  // every transfer after the first step waits for one
  // chunk (shard i, host piece j) = i * hosts + j
  for (Bytes shard : split_evenly(c.size, local)) {
    for (Bytes piece : split_evenly(shard, hosts)) s.add_chunk(ChunkSpec{piece});
  }
  auto chunk = [hosts](int i, int j) { return i * hosts + j; };
  auto rank = [&g](int h, int i) { return g.ranks[static_cast<std::size_t>(h)][static_cast<std::size_t>(i)]; };
  auto mod = [](int a, int m) { return ((a % m) + m) % m; };
  StepBuilder b(s);
  b.pace_senders();
  // The three phases are three collectives, as hierarchical all-reduce implementations
  // issue them (Horovod, BlueConnect): a phase starts when the previous one has ended.
  // Without this barrier, pieces finished early would leak into the next phase, an
  // overlap those implementations do not have. Every transfer of a phase feeds its last
  // step, so waiting for that step waits for the whole phase.
  // 1. Reduce-scatter inside each host: step k, local p sends shard (p - k - 1) to p + 1.
  for (int k = 0; k + 1 < local; ++k) {
    for (int h = 0; h < hosts; ++h) {
      for (int p = 0; p < local; ++p) {
        for (int j = 0; j < hosts; ++j) {
          b.send(rank(h, p), rank(h, (p + 1) % local), chunk(mod(p - k - 1, local), j), TransferKind::Reduce);
        }
      }
    }
    b.end_step();
  }
  b.barrier();
  // 2. Per rail i, a ring all-reduce of shard i's host pieces across hosts.
  for (int k = 0; k + 1 < 2 * hosts - 1; ++k) {
    const bool rs = k < hosts - 1;
    for (int i = 0; i < local; ++i) {
      for (int h = 0; h < hosts; ++h) {
        const int piece = rs ? mod(h - k - 1, hosts) : mod(h - (k - (hosts - 1)), hosts);
        b.send(rank(h, i), rank((h + 1) % hosts, i), chunk(i, piece), rs ? TransferKind::Reduce : TransferKind::Copy);
      }
    }
    b.end_step();
  }
  b.barrier();
  // 3. All-gather inside each host: step k, local p forwards shard (p - k).
  for (int k = 0; k + 1 < local; ++k) {
    for (int h = 0; h < hosts; ++h) {
      for (int p = 0; p < local; ++p) {
        for (int j = 0; j < hosts; ++j) {
          b.send(rank(h, p), rank(h, (p + 1) % local), chunk(mod(p - k, local), j), TransferKind::Copy);
        }
      }
    }
    b.end_step();
  }
  return s;
}

const AlgorithmInfo kHierarchicalRingAlgorithm{
    .name = "hier_ring",
    .description = "rings inside each host, one ring per rail across hosts; the same ranks on every host",
    .ops = kAllReduceOnly,
    .build = hierarchical_ring_allreduce,
    .phased = phased_hier_ring_allreduce,
    .hosts = HostRequirement::SameRanksPerHost,
};

}  // namespace collsim
