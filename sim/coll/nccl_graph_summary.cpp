#include "sim/coll/nccl_env.hpp"
#include "sim/coll/nccl_graph_summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/selection.hpp"
#include "sim/coll/topology_facts.hpp"

namespace collsim {

namespace {

// Path types as NCCL's paths.cc leaves them: through a CPU where `via_cpu[a][b]` (no P2P
// between the GPUs, no GPUDirect RDMA to the NIC), staged near `from[a]` (to a NIC) or
// `to[b]` (to a GPU).
PathMatrix path_matrix(LinkGraph& graph, const std::vector<NodeIndex>& from, const std::vector<NodeIndex>& to,
                       const std::vector<std::vector<bool>>& via_cpu, bool near_from) {
  PathMatrix m(from.size(), std::vector<std::optional<PathType>>(to.size()));
  for (std::size_t a = 0; a < from.size(); ++a) {
    for (std::size_t b = 0; b < to.size(); ++b) {
      const bool staged = a < via_cpu.size() && b < via_cpu[a].size() && via_cpu[a][b];
      const auto r = staged ? route_via_cpu(graph, from[a], to[b], near_from ? from[a] : to[b])
                            : graph.node_route(from[a], to[b]);
      if (r) m[a][b] = classify_route(graph.topology(), *r);
    }
  }
  return m;
}

NcclTuningRow tuning_row(const TopologyFacts& facts, const Collective& c, const std::string& algo, Protocol p,
                         const ProtocolModel& model, const NcclGraph& graph, bool protocols_auto) {
  const CollectiveCost cost = candidate_cost(facts, c, algo, p, model, {}, &graph, protocols_auto);
  NcclTuningRow row;
  row.algorithm = algo;
  row.protocol = p;
  row.unusable = cost.unusable;
  if (row.unusable) return row;
  row.channels = cost.channels;
  row.base_latency = cost.base_latency;
  row.step_latency = cost.step.step_latency;
  row.efficiency = 1.0 / cost.step.wire_inflation;
  const NcclAlgorithm a = nccl_counterpart(algo);
  // NVLSTree's cap is its NVLS legs': 2 per block (one per tree) on every GPU's port, each
  // a stream's bytes, so busbw = 4 ppn (n - 1) / n legs' worth.
  const auto& cap = a == NcclAlgorithm::NvlsTree ? cost.step.cap_of(TransferLeg::ToSwitch) : cost.step.flow_cap;
  if (cap) row.channel_cap_gbps = cap->gb_per_s();
  const double ppn = static_cast<double>(c.ranks) / std::max(1, facts.hosts);
  row.capped_flows = a == NcclAlgorithm::Nvls       ? 2.0 * (c.ranks - 1)
                     : a == NcclAlgorithm::NvlsTree ? 4.0 * ppn * (c.ranks - 1) / c.ranks
                                                    : cost.channels;
  return row;
}

}  // namespace

std::optional<double> NcclTuningRow::busbw_cap_gbps() const {
  if (!channel_cap_gbps) return std::nullopt;
  return capped_flows * *channel_cap_gbps * efficiency;
}

NcclGraphSummary summarize_nccl_graph(const Topology& topo, const ProtocolModel& model, bool protocols_auto,
                                      const std::vector<std::string>& asked) {
  NcclGraphSummary s;
  s.topology = topo.name;
  s.source = topo.source;
  s.ranks = topo.rank_count();
  const TopologyFacts facts = topology_facts(topo);
  LinkGraph links(topo);
  std::string why_not;
  s.graph = search_nccl_ring(links, facts.host_of_rank, nccl_search_options(model), &why_not);
  if (!s.graph) {
    s.not_applicable = why_not;
    return s;
  }
  const NcclHost& host0 = s.graph->host.front();
  s.gpu_gpu = path_matrix(links, host0.gpus, host0.gpus, s.graph->shm, false);
  s.gpu_nic = path_matrix(links, host0.gpus, host0.nics, s.graph->staged, true);
  s.nic_gpu_direct = s.graph->nic_gpu_direct;

  s.model = model.source;
  s.tuned = Collective{CollectiveOp::AllReduce, s.ranks, 0, kNcclTuningSize};
  // NCCL's tuned algorithms, the candidates of auto: ring, tree, nvls, nvls_tree; then the
  // others NCCL_ALGO asked for (CollNet's).
  std::vector<std::string> algorithms = automatic_algorithms(s.tuned.op);
  for (const std::string& algo : asked) {
    if (std::find(algorithms.begin(), algorithms.end(), algo) == algorithms.end()) {
      algorithms.push_back(algo);
    }
  }
  for (const std::string& algo : algorithms) {
    std::vector<NcclTuningRow> rows;
    for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
      rows.push_back(tuning_row(facts, s.tuned, algo, p, model, *s.graph, protocols_auto));
    }
    // Ring and tree are listed always; the others (nvls, nvls_tree, CollNet's, ...) only where
    // some protocol can run them (Simple: its reason is the one that matters).
    const bool none_usable = std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.unusable.has_value(); });
    const NcclRow row = nccl_row(algo);
    if (row != NcclRow::Ring && row != NcclRow::Tree && none_usable) {
      s.omitted.push_back({algo, *rows.back().unusable});
      continue;
    }
    s.tuning.insert(s.tuning.end(), rows.begin(), rows.end());
  }
  return s;
}

}  // namespace collsim
