#include "sim/algo/in_network.hpp"

#include <stdexcept>
#include <vector>

namespace collsim {

Schedule in_network_allreduce(const Collective& c, const std::string& name, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument(name + " implements allreduce only");
  Schedule s(c, name);
  const int n = c.ranks;
  const std::vector<Bytes> blocks = split_evenly(c.size, n);
  const int slices = slice_count(blocks.front(), opt);
  // chunk (slice l, block j) = l * n + j
  std::vector<std::vector<Bytes>> parts;
  for (Bytes b : blocks) parts.push_back(split_evenly(b, slices));
  for (int l = 0; l < slices; ++l) {
    for (int j = 0; j < n; ++j) s.add_chunk(ChunkSpec{parts[static_cast<std::size_t>(j)][static_cast<std::size_t>(l)]});
  }
  if (n == 1) return s;
  auto at = [n](int a, int b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(n) + static_cast<std::size_t>(b); };
  std::vector<TransferId> up(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  std::vector<TransferId> down(up.size());
  std::vector<TransferId> deps;
  std::vector<TransferId> reduced;
  for (int l = 0; l < slices; ++l) {
    const bool pipelined = l > 0;
    for (int j = 0; j < n; ++j) {
      const int chunk = l * n + j;
      const Bytes b = s.chunks()[static_cast<std::size_t>(chunk)].bytes;
      reduced.clear();
      for (int r = 0; r < n; ++r) {
        if (r == j) continue;
        deps.clear();
        if (pipelined) deps.push_back(up[at(r, j)]);
        up[at(r, j)] = s.add(Transfer{r, j, b, chunk, TransferKind::Reduce, TransferLeg::ToSwitch, pipelined}, deps);
        reduced.push_back(up[at(r, j)]);
      }
      const TransferId sum = s.add_join(reduced);
      // NCCL prices an NVLS step (reduce + multicast) with one hwLat: the multicast's
      // latency is part of the reduce's, so it counts as a pipelined continuation.
      for (int r = 0; r < n; ++r) {
        if (r == j) continue;
        deps.assign(1, sum);
        if (pipelined) deps.push_back(down[at(j, r)]);
        down[at(j, r)] = s.add(Transfer{j, r, b, chunk, TransferKind::Copy, TransferLeg::FromSwitch, true}, deps);
      }
    }
  }
  return s;
}

namespace {

Schedule nvls_schedule(const Collective& c, const AlgorithmOptions& opt) {
  return in_network_allreduce(c, std::string(kNvlsAlgorithm.name), opt);
}

Schedule sharp_schedule(const Collective& c, const AlgorithmOptions& opt) {
  return in_network_allreduce(c, std::string(kSharpAlgorithm.name), opt);
}

}  // namespace

const AlgorithmInfo kNvlsAlgorithm{
    .name = "nvls",
    .description = "NVLink SHARP: the NVSwitch reduces and multicasts (one host of Hopper or newer GPUs)",
    .ops = kAllReduceOnly,
    .build = nvls_schedule,
    .nccl = NcclAlgorithm::Nvls,
};

const AlgorithmInfo kSharpAlgorithm{
    .name = "sharp",
    .description = "SHARP as a flat in-network reduction, on a star of hosts (one network switch); only when asked for",
    .ops = kAllReduceOnly,
    .build = sharp_schedule,
    .nccl = NcclAlgorithm::CollNet,
};

}  // namespace collsim
