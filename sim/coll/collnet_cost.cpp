#include "sim/coll/collnet_cost.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/algo/collnet.hpp"
#include "sim/coll/nccl_env.hpp"

namespace collsim {

namespace {

constexpr double kCollNetArityUs = 0.4;

}  // namespace

std::optional<std::string> collnet_unusable(const TopologyFacts& facts, std::string_view algo, bool direct, Protocol p,
                                            const NcclGraph* graph) {
  // NCCL runs CollNet across nodes only (with a CollNet plugin), Direct and Chain on at
  // most 8 local GPUs (NCCL_MAX_DIRECT_ARITY + 1, enqueue.cc), Direct only where the
  // hosts have an NVSwitch (tuning.cc: "Disable CollNet+Direct if not on an NVSwitch
  // system"); both need NCCL's graph of the hosts' GPUs and NICs.
  if (facts.hosts < 2) return fmt::format("{} needs ranks on several hosts (NCCL's CollNet runs across nodes; one host: nvls)", algo);
  if (facts.max_ranks_per_host > kCollNetMaxLocalRanks) {
    return fmt::format("{} runs on at most {} GPUs per host (NCCL_MAX_DIRECT_ARITY + 1); these hosts have {}", algo,
                       kCollNetMaxLocalRanks, facts.max_ranks_per_host);
  }
  if (direct && !facts.nvswitch) return fmt::format("{} needs hosts with an NVSwitch (NCCL disables CollNet Direct elsewhere)", algo);
  // NCCL's CollNet runs Simple only; its layout over the fabric comes from NCCL's graph, so
  // there is no alpha-beta form either.
  if (p != Protocol::Simple) return fmt::format("{} runs only with the simple protocol", algo);
  if (graph == nullptr) return fmt::format("{} needs NCCL's graph of the hosts' GPUs and NICs, which these ranks do not have", algo);
  return std::nullopt;
}

void set_collnet_channels(const TopologyFacts& facts, const Collective& c, bool direct, const ProtocolModel& model,
                          const CostOverrides& user, const NcclGraph& graph, CollectiveCost& cost) {
  // connect.cc: with CollNet on, NCCL runs half as many channels again where the chain
  // graph's intra bandwidth exceeds its network one (NVLink hosts of several GPUs).
  int ch = model.channels.value_or(graph.channels);
  if (facts.max_ranks_per_host > 1 && graph.type_intra == PathType::Nvl) ch = std::min(64, ch + ch / 2);
  ch = user.channels > 0 ? user.channels : nccl_run_channels(ch, model);
  cost.channels = ch;
  cost.options.channels = ch;
  if (user.slice.count > 0) return;
  // enqueue.cc: one Simple step per chunk, halved while the channels hold few: Direct
  // (depth 2, its heads sharing each channel's chunk) below 64 x depth chunks to 128 KiB,
  // 8 x depth to 64 KiB and 32 KiB; Chain from 256 KiB (depth ppn) below 64 x, 8 x and 1 x
  // depth. A Direct stream (one head) stands for every channel's share of its block, moved
  // in step: its slice is the chunk times the channels.
  const std::int64_t step = model.slice[static_cast<std::size_t>(nccl_index(Protocol::Simple))].count;
  const int ppn = std::max(1, facts.max_ranks_per_host);
  if (direct) {
    const int ops = ch * collnet_heads(graph.host.front().nics.size(), ppn);
    std::int64_t chunk = nccl_halve_chunk(step, c.size, ops, 2 * 64, 131072);
    chunk = nccl_halve_chunk(chunk, c.size, ops, 2 * 8, 65536);
    chunk = nccl_halve_chunk(chunk, c.size, ops, 2 * 8, 32768);
    cost.options.slice_bytes = Bytes{chunk * ch};
  } else {
    std::int64_t chunk = std::min<std::int64_t>(256 * 1024, step);
    chunk = nccl_halve_chunk(chunk, c.size, ch, ppn * 64.0, 131072);
    chunk = nccl_halve_chunk(chunk, c.size, ch, ppn * 8.0, 65536);
    chunk = nccl_halve_chunk(chunk, c.size, ch, ppn, 32768);
    cost.options.slice_bytes = Bytes{chunk};
  }
}

Time collnet_direct_arity_latency(const TopologyFacts& facts) {
  return Time::from_seconds(2 * kCollNetArityUs * 1e-6 * std::max(0, facts.max_ranks_per_host - 1));
}

}  // namespace collsim
