#include "sim/algo/parameter_server.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace collsim {

namespace {

// `servers[s]` serves piece s of the buffer.
Schedule ps_schedule(const Collective& c, const AlgorithmOptions& opt, const std::vector<int>& servers,
                     std::string name) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument(name + " implements allreduce only");
  Schedule s(c, std::move(name));
  const int n = c.ranks;
  const int shards = static_cast<int>(servers.size());
  const std::vector<Bytes> pieces = split_evenly(c.size, shards);
  const int slices = slice_count(pieces.front(), opt);
  // Per slice, n - 1 pushes and as many pulls per shard plus a join: quadratic in the
  // ranks for ps_sharded, so one that cannot fit is refused before anything is allocated.
  const std::uint64_t transfers =
      static_cast<std::uint64_t>(shards) * (2 * static_cast<std::uint64_t>(n - 1) + 1) * static_cast<std::uint64_t>(slices);
  s.expect(transfers, transfers);
  for (Bytes p : pieces) {
    for (Bytes sl : split_evenly(p, slices)) s.add_chunk(ChunkSpec{sl});
  }
  if (n == 1) return s;
  auto at = [n](int shard, int w) { return static_cast<std::size_t>(shard) * static_cast<std::size_t>(n) + static_cast<std::size_t>(w); };
  std::vector<TransferId> push(static_cast<std::size_t>(shards) * static_cast<std::size_t>(n));
  std::vector<TransferId> pull(push.size());
  std::vector<TransferId> deps;
  for (int l = 0; l < slices; ++l) {
    const bool pipelined = l > 0;
    for (int sh = 0; sh < shards; ++sh) {
      const int chunk = sh * slices + l;
      const int server = servers[static_cast<std::size_t>(sh)];
      const Bytes b = s.chunks()[static_cast<std::size_t>(chunk)].bytes;
      for (int w = 0; w < n; ++w) {
        if (w == server) continue;
        deps.clear();
        if (pipelined) deps.push_back(push[at(sh, w)]);
        push[at(sh, w)] = s.add(Transfer{w, server, b, chunk, TransferKind::Reduce, TransferLeg::EndToEnd, pipelined}, deps);
      }
    }
    for (int sh = 0; sh < shards; ++sh) {
      const int chunk = sh * slices + l;
      const int server = servers[static_cast<std::size_t>(sh)];
      const Bytes b = s.chunks()[static_cast<std::size_t>(chunk)].bytes;
      std::vector<TransferId> pushed;
      for (int w = 0; w < n; ++w) {
        if (w != server) pushed.push_back(push[at(sh, w)]);
      }
      const TransferId all_pushed = s.add_join(pushed);
      for (int w = 0; w < n; ++w) {
        if (w == server) continue;
        deps.assign(1, all_pushed);
        if (pipelined) deps.push_back(pull[at(sh, w)]);
        pull[at(sh, w)] = s.add(Transfer{server, w, b, chunk, TransferKind::Copy, TransferLeg::EndToEnd, pipelined}, deps);
      }
    }
  }
  return s;
}

}  // namespace

Schedule parameter_server_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  return ps_schedule(c, opt, {c.root}, std::string(kParameterServerAlgorithm.name));
}

Schedule sharded_parameter_server_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  std::vector<int> servers(static_cast<std::size_t>(c.ranks));
  for (int r = 0; r < c.ranks; ++r) servers[static_cast<std::size_t>(r)] = r;
  return ps_schedule(c, opt, servers, std::string(kShardedParameterServerAlgorithm.name));
}

const AlgorithmInfo kParameterServerAlgorithm{
    .name = "ps",
    .description = "one parameter server (the root); pushes and pulls pipelined in slices",
    .ops = kAllReduceOnly,
    .build = parameter_server_allreduce,
};

const AlgorithmInfo kShardedParameterServerAlgorithm{
    .name = "ps_sharded",
    .description = "sharded parameter servers: every rank serves 1/n of the buffer",
    .ops = kAllReduceOnly,
    .build = sharded_parameter_server_allreduce,
};

}  // namespace collsim
