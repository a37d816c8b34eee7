#include "sim/coll/topology_facts.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "sim/algo/host_groups.hpp"

namespace collsim {

namespace {

// Each rank's host's first CPU, folded as init.cc folds the ranks'.
CommCpu comm_cpu(const Topology& topo) {
  const auto first = host_platforms(topo);
  CommCpu c;
  c.known = topo.rank_count() > 0;
  bool seen = false;
  for (NodeIndex r : topo.ranks) {
    const auto host = topo.nodes[r].host;
    const auto it = host ? first.find(*host) : first.end();
    if (it == first.end() || !it->second) {
      c.known = false;
      continue;
    }
    const CpuArch arch = cpu_arch(*it->second);
    const CpuVendor vendor = cpu_vendor(*it->second);
    if (!seen) {
      c.arch = arch;
      c.vendor = vendor;
      seen = true;
    }
    c.mixed_arch = c.mixed_arch || arch != c.arch;
    c.mixed_vendor = c.mixed_vendor || vendor != c.vendor;
  }
  return c;
}

}  // namespace

TopologyFacts topology_facts(const Topology& topo, std::optional<int> hosts_override) {
  TopologyFacts f;
  const int n = topo.rank_count();
  if (hosts_override) {
    f.host_of_rank = block_hosts(n, *hosts_override);
  } else {
    for (NodeIndex node : topo.ranks) f.host_of_rank.push_back(static_cast<int>(topo.host_or_self(node)));
  }
  std::map<int, int> per_host;
  for (int h : f.host_of_rank) ++per_host[h];
  f.hosts = static_cast<int>(per_host.size());
  for (const auto& [h, count] : per_host) f.max_ranks_per_host = std::max(f.max_ranks_per_host, count);
  f.one_rank_per_host = f.max_ranks_per_host == 1;

  std::vector<double> out_bw(topo.nodes.size(), 0.0);
  std::vector<double> nvlink_bw(topo.nodes.size(), 0.0);
  std::vector<bool> on_nvswitch(topo.nodes.size(), false);
  // Per node, the one node all its links lead to (kNone: none yet, kMany: several).
  constexpr NodeIndex kNone = std::numeric_limits<NodeIndex>::max(), kMany = kNone - 1;
  std::vector<NodeIndex> only_neighbour(topo.nodes.size(), kNone);
  for (const auto& l : topo.links) {
    out_bw[l.from] += l.bandwidth.bytes_per_s;
    if (l.kind == LinkKind::NvSwitch || l.kind == LinkKind::NvLink) nvlink_bw[l.from] += l.bandwidth.bytes_per_s;
    if (l.kind == LinkKind::NvSwitch) on_nvswitch[l.from] = true;
    NodeIndex& nb = only_neighbour[l.from];
    nb = nb == kNone || nb == l.to ? l.to : kMany;
  }
  f.one_switch_star = n > 1;
  for (NodeIndex node : topo.ranks) {
    const NodeIndex nb = only_neighbour[node];
    f.one_switch_star = f.one_switch_star && nb < kMany && topo.nodes[nb].kind == NodeKind::Switch &&
                        nb == only_neighbour[topo.ranks.front()];
  }
  double inj = std::numeric_limits<double>::infinity();
  double nvl = std::numeric_limits<double>::infinity();
  f.nvswitch = n > 0;
  std::string last_model;
  const GpuSpec* last_gpu = nullptr;
  for (NodeIndex node : topo.ranks) {
    inj = std::min(inj, out_bw[node]);
    nvl = std::min(nvl, nvlink_bw[node]);
    f.nvswitch = f.nvswitch && on_nvswitch[node];
    const std::string& model = topo.nodes[node].model;
    if (model != last_model) {  // ranks mostly share one model: look each run of them up once
      last_model = model;
      last_gpu = find_gpu(model);
    }
    if (last_gpu == nullptr) continue;
    if (f.gpu != nullptr && last_gpu->compute_capability != f.gpu->compute_capability) f.mixed_compute = true;
    if (f.gpu == nullptr || last_gpu->compute_capability < f.gpu->compute_capability) f.gpu = last_gpu;
  }
  if (f.gpu != nullptr) f.arch = gpu_arch_from_sm(f.gpu->compute_capability.sm());
  f.injection = Bandwidth{n > 0 ? inj : 0.0};
  f.nvlink = Bandwidth{n > 0 ? nvl : 0.0};
  f.net_latency = topo.max_net_latency();
  f.cpu = comm_cpu(topo);
  return f;
}

const GpuSpec& model_gpu(const TopologyFacts& facts) {
  if (facts.gpu != nullptr) return *facts.gpu;
  return *find_gpu("H100");
}

}  // namespace collsim
