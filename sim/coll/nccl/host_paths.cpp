#include "sim/coll/nccl/host_paths.hpp"

#include <algorithm>
#include <limits>

namespace collsim {

namespace {

bool is_network(LinkKind k) { return k == LinkKind::Ib || k == LinkKind::Roce || k == LinkKind::Ethernet; }

}  // namespace

NcclHostPaths::NcclHostPaths(LinkGraph& graph, const GpuSpec& gpu, const NcclHost& host, PathType p2p_level,
                             const NcclTransportLevels& levels, const std::vector<bool>& nic_gdr)
    : topo(graph.topology()), host(host) {
  const std::size_t g = host.gpus.size();
  const std::size_t n = host.nics.size();
  gg.assign(g, std::vector<Route>(g));
  gg_type.assign(g, std::vector<PathType>(g, PathType::Loc));
  shm.assign(g, std::vector<bool>(g, false));
  for (std::size_t a = 0; a < g; ++a) {
    for (std::size_t b = 0; b < g; ++b) {
      if (a == b) continue;
      bool via_cpu = false;
      if (auto r = nccl_gpu_route(graph, host.gpus[a], host.gpus[b], p2p_level, &via_cpu)) {
        gg[a][b] = std::move(*r);
        gg_type[a][b] = classify_route(topo, gg[a][b]);
        shm[a][b] = via_cpu;
      } else {
        gg_type[a][b] = PathType::Net;  // no path inside the host: never used
      }
    }
  }
  gn.assign(g, std::vector<Route>(n));
  ng.assign(n, std::vector<Route>(g));
  gn_type.assign(g, std::vector<PathType>(n, PathType::Net));
  for (std::size_t a = 0; a < g; ++a) {
    for (std::size_t k = 0; k < n; ++k) {
      auto up = graph.node_route(host.gpus[a], host.nics[k]);
      auto down = graph.node_route(host.nics[k], host.gpus[a]);
      if (!up || !down) continue;
      gn[a][k] = std::move(*up);
      ng[k][a] = std::move(*down);
      gn_type[a][k] = classify_route(topo, gn[a][k]);
    }
  }
  // Without GPUDirect RDMA (judged on the direct paths, as NCCL does), through the GPU's CPU.
  staged.assign(g, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < g; ++a) {
    for (std::size_t k = 0; k < n; ++k) {
      if (gn_type[a][k] == PathType::Net || nccl_gdr(topo, host.gpus[a], nic_gdr[k], gdr_distance(a, k), levels)) {
        continue;
      }
      auto up = route_via_cpu(graph, host.gpus[a], host.nics[k], host.gpus[a]);
      auto down = route_via_cpu(graph, host.nics[k], host.gpus[a], host.gpus[a]);
      if (!up || !down) continue;
      staged[a][k] = true;
      gn[a][k] = std::move(*up);
      ng[k][a] = std::move(*down);
    }
  }
  for (std::size_t a = 0; a < g; ++a) {
    for (std::size_t k = 0; k < n; ++k) {
      if (staged[a][k]) gn_type[a][k] = classify_route(topo, gn[a][k]);
    }
  }
  gg_rc.assign(g, std::vector<double>(g, 1.0));
  gn_rc.assign(g, std::vector<double>(n, 1.0));
  for (std::size_t a = 0; a < g; ++a) {
    for (std::size_t b = 0; b < g; ++b) gg_rc[a][b] = root_complex_charge(gg[a][b], gg_type[a][b]);
    for (std::size_t k = 0; k < n; ++k) gn_rc[a][k] = root_complex_charge(gn[a][k], gn_type[a][k]);
  }
  for (std::size_t k = 0; k < n; ++k) {
    // The NIC's own GPU: the one whose traffic leaves through it, else the nearest.
    int own = -1;
    for (std::size_t a = 0; a < g; ++a) {
      if (topo.nodes[host.gpus[a]].nic == host.nics[k]) {
        own = static_cast<int>(a);
        break;
      }
    }
    if (own < 0) {
      for (std::size_t a = 0; a < g; ++a) {
        if (own < 0 || gn_type[a][k] < gn_type[static_cast<std::size_t>(own)][k]) own = static_cast<int>(a);
      }
    }
    nic_gpu.push_back(own);
    // The NIC's first network link each way, in link order (its own edges only, not
    // every link; in-edges come by source, so the least link id is taken).
    std::optional<LinkId> out, in;
    const auto& g = graph.graph();
    for (auto [e, end] = boost::out_edges(host.nics[k], g); e != end && !out; ++e) {
      if (is_network(topo.links[g[*e].link].kind)) out = g[*e].link;
    }
    for (auto [e, end] = boost::in_edges(host.nics[k], g); e != end; ++e) {
      const LinkId l = g[*e].link;
      if (is_network(topo.links[l].kind) && (!in || l < *in)) in = l;
    }
    nic_out.push_back(out);
    nic_in.push_back(in);
  }
  capacity.resize(topo.links.size());
  for (LinkId l = 0; l < topo.links.size(); ++l) {
    const DirectedLink& link = topo.links[l];
    const Node& from = topo.nodes[link.from];
    // NCCL joins a host's sockets by one SYS link of its figure for the CPU
    // (ncclTopoGetInterCpuBw), whatever the socket links' own rate.
    if (from.kind == NodeKind::Cpu && topo.nodes[link.to].kind == NodeKind::Cpu && from.platform) {
      capacity[l] = nccl_inter_cpu_gbps(*from.platform);
    } else {
      capacity[l] = nccl_link_gbps(link, gpu);
    }
  }
  // Each GPU's distinct first links out (to GPUs and NICs) and last links in: every
  // channel leaves and enters a GPU once through one of them (channel_bound).
  // NCCL spreads a host's communicators over its NICs by their GPUs (ncclTopoGetLocalNet:
  // among a GPU's nearest NICs, the one its device index picks): the first channel tries
  // the first GPU's own NIC first. On a whole host that is NIC 0.
  for (std::size_t k = 0; k < n; ++k) {
    if (g > 0 && topo.nodes[host.gpus.front()].nic == host.nics[k]) first_nic = static_cast<int>(k);
  }
  hops.resize(g);
  for (std::size_t a = 0; a < g; ++a) {
    Hops& h = hops[a];
    for (std::size_t b = 0; b < g; ++b) {
      if (a == b || gg_type[a][b] == PathType::Net) continue;
      if (!gg[a][b].links.empty()) h.first.push_back(gg[a][b].links.front());
      if (!gg[b][a].links.empty()) h.last.push_back(gg[b][a].links.back());
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (!gn[a][k].links.empty()) h.first.push_back(gn[a][k].links.front());
      if (!ng[k][a].links.empty()) h.last.push_back(ng[k][a].links.back());
    }
    for (auto* v : {&h.first, &h.last}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
  }
}

double NcclHostPaths::bottleneck(std::span<const LinkId> links) const {
  double v = std::numeric_limits<double>::infinity();
  for (LinkId l : links) v = std::min(v, capacity[l]);
  return v;
}

// The largest speed any single hop can carry: NCCL starts its search below it.
double NcclHostPaths::max_speed(bool multi) const {
  double best = 0;
  for (int a = 0; a < gpus(); ++a) {
    for (int b = 0; b < gpus(); ++b) {
      if (a != b && gg_type[a][b] != PathType::Net) best = std::max(best, bottleneck(gg[a][b].links));
    }
  }
  if (!multi) return best;
  double net = 0;
  for (int k = 0; k < nics(); ++k) {
    if (!nic_out[k] || !nic_in[k]) continue;
    double v = std::min(capacity[*nic_out[k]], capacity[*nic_in[k]]);
    v = std::min(v, bottleneck(ng[k][own_gpu(k)].links));
    net = std::max(net, v);
  }
  return gpus() > 1 ? std::min(best, net) : net;
}


// How far GPU a's traffic has to go to NIC k, counting PXN (through the NIC's own GPU

// over NVLink) when that is closer than its own path.
PathType NcclHostPaths::exit_type(int a, int k) const {
  const PathType direct = gn_type[a][k];
  const int p = own_gpu(k);
  if (direct > PathType::Pxb && p != a && gg_type[a][p] == PathType::Nvl && gn_type[p][k] <= PathType::Pxb) {
    return PathType::Pxn;
  }
  return direct;
}


// ncclTopoCheckGdr's distance from GPU a to NIC k: its direct path type, or where PXN

// carries its traffic (beyond PXB, to a GPU over NVLink within PXB of the NIC) that GPU's.
PathType NcclHostPaths::gdr_distance(std::size_t a, std::size_t k) const {
  const PathType direct = gn_type[a][k];
  if (direct <= PathType::Pxb) return direct;
  for (std::size_t p = 0; p < gn_type.size(); ++p) {
    if (p != a && gg_type[a][p] == PathType::Nvl && gn_type[p][k] <= PathType::Pxb) return gn_type[p][k];
  }
  return direct;
}

// search.cc followPath: "account for P2P inefficiency through Intel CPU RC": a path of

// type PHB from a GPU through an Intel CPU charges its PCIe links 6/5 of the channel's

// speed (INTEL_P2P_OVERHEAD, topo.h).
double NcclHostPaths::root_complex_charge(const Route& r, PathType type) const {
  if (type != PathType::Phb) return 1.0;
  for (std::size_t i = 0; i + 1 < r.links.size(); ++i) {
    const Node& via = topo.nodes[topo.links[r.links[i]].to];
    if (via.kind == NodeKind::Cpu && via.platform && cpu_vendor(*via.platform) == CpuVendor::Intel) return 6.0 / 5.0;
  }
  return 1.0;
}

}  // namespace collsim
