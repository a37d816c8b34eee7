#include "sim/coll/nccl/channel_search.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/algo/host_groups.hpp"
#include "sim/coll/nccl/speed_lists.hpp"

namespace collsim {

namespace {

constexpr double kEps = 1e-9;
// Expansions one channel's greedy search may make, and the joint search in all (NCCL
// bounds its search by time).
constexpr int kChannelBudget = 20'000;
constexpr int kJointBudget = 5'000;

constexpr std::array<PathType, 5> kIntraTypes{PathType::Nvl, PathType::Pix, PathType::Pxb, PathType::Phb,
                                              PathType::Sys};
constexpr std::array<PathType, 5> kInterTypes{PathType::Pix, PathType::Pxb, PathType::Pxn, PathType::Phb,
                                              PathType::Sys};

bool is_network(LinkKind k) { return k == LinkKind::Ib || k == LinkKind::Roce || k == LinkKind::Ethernet; }

// Host 0's routes and NCCL bandwidths, and the residual capacity a search consumes.
class Searcher {
 public:
  // Routes as NCCL's transports take them (transport.hpp): through a CPU between GPUs
  // without P2P at `p2p_level` and between a GPU and a NIC without GPUDirect RDMA
  // (`nic_gdr`: each NIC's transport has it); `shm` and `staged` (sized here) record which.
  Searcher(LinkGraph& graph, const GpuSpec& gpu, const NcclHost& host, bool multi, PathType p2p_level,
           const NcclTransportLevels& levels, const std::vector<bool>& nic_gdr, std::vector<std::vector<bool>>& shm,
           std::vector<std::vector<bool>>& staged)
      : topo_(graph.topology()), gpu_(gpu), host_(host), multi_(multi) {
    const std::size_t g = host.gpus.size();
    const std::size_t n = host.nics.size();
    gg_.assign(g, std::vector<Route>(g));
    gg_type_.assign(g, std::vector<PathType>(g, PathType::Loc));
    shm.assign(g, std::vector<bool>(g, false));
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t b = 0; b < g; ++b) {
        if (a == b) continue;
        bool via_cpu = false;
        if (auto r = nccl_gpu_route(graph, host.gpus[a], host.gpus[b], p2p_level, &via_cpu)) {
          gg_[a][b] = std::move(*r);
          gg_type_[a][b] = classify_route(topo_, gg_[a][b]);
          shm[a][b] = via_cpu;
        } else {
          gg_type_[a][b] = PathType::Net;  // no path inside the host: never used
        }
      }
    }
    gn_.assign(g, std::vector<Route>(n));
    ng_.assign(n, std::vector<Route>(g));
    gn_type_.assign(g, std::vector<PathType>(n, PathType::Net));
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t k = 0; k < n; ++k) {
        auto up = graph.node_route(host.gpus[a], host.nics[k]);
        auto down = graph.node_route(host.nics[k], host.gpus[a]);
        if (!up || !down) continue;
        gn_[a][k] = std::move(*up);
        ng_[k][a] = std::move(*down);
        gn_type_[a][k] = classify_route(topo_, gn_[a][k]);
      }
    }
    // Without GPUDirect RDMA (judged on the direct paths, as NCCL does), through the GPU's CPU.
    staged.assign(g, std::vector<bool>(n, false));
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t k = 0; k < n; ++k) {
        if (gn_type_[a][k] == PathType::Net || nccl_gdr(topo_, host.gpus[a], nic_gdr[k], gdr_distance(a, k), levels)) {
          continue;
        }
        auto up = route_via_cpu(graph, host.gpus[a], host.nics[k], host.gpus[a]);
        auto down = route_via_cpu(graph, host.nics[k], host.gpus[a], host.gpus[a]);
        if (!up || !down) continue;
        staged[a][k] = true;
        gn_[a][k] = std::move(*up);
        ng_[k][a] = std::move(*down);
      }
    }
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t k = 0; k < n; ++k) {
        if (staged[a][k]) gn_type_[a][k] = classify_route(topo_, gn_[a][k]);
      }
    }
    gg_rc_.assign(g, std::vector<double>(g, 1.0));
    gn_rc_.assign(g, std::vector<double>(n, 1.0));
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t b = 0; b < g; ++b) gg_rc_[a][b] = root_complex_charge(gg_[a][b], gg_type_[a][b]);
      for (std::size_t k = 0; k < n; ++k) gn_rc_[a][k] = root_complex_charge(gn_[a][k], gn_type_[a][k]);
    }
    for (std::size_t k = 0; k < n; ++k) {
      // The NIC's own GPU: the one whose traffic leaves through it, else the nearest.
      int own = -1;
      for (std::size_t a = 0; a < g; ++a) {
        if (topo_.nodes[host.gpus[a]].nic == host.nics[k]) {
          own = static_cast<int>(a);
          break;
        }
      }
      if (own < 0) {
        for (std::size_t a = 0; a < g; ++a) {
          if (own < 0 || gn_type_[a][k] < gn_type_[static_cast<std::size_t>(own)][k]) own = static_cast<int>(a);
        }
      }
      nic_gpu_.push_back(own);
      // The NIC's first network link each way, in link order (its own edges only, not
      // every link; in-edges come by source, so the least link id is taken).
      std::optional<LinkId> out, in;
      const auto& g = graph.graph();
      for (auto [e, end] = boost::out_edges(host.nics[k], g); e != end && !out; ++e) {
        if (is_network(topo_.links[g[*e].link].kind)) out = g[*e].link;
      }
      for (auto [e, end] = boost::in_edges(host.nics[k], g); e != end; ++e) {
        const LinkId l = g[*e].link;
        if (is_network(topo_.links[l].kind) && (!in || l < *in)) in = l;
      }
      nic_out_.push_back(out);
      nic_in_.push_back(in);
    }
    capacity_.resize(topo_.links.size());
    for (LinkId l = 0; l < topo_.links.size(); ++l) {
      const DirectedLink& link = topo_.links[l];
      const Node& from = topo_.nodes[link.from];
      // NCCL joins a host's sockets by one SYS link of its figure for the CPU
      // (ncclTopoGetInterCpuBw), whatever the socket links' own rate.
      if (from.kind == NodeKind::Cpu && topo_.nodes[link.to].kind == NodeKind::Cpu && from.platform) {
        capacity_[l] = nccl_inter_cpu_gbps(*from.platform);
      } else {
        capacity_[l] = nccl_link_gbps(link, gpu_);
      }
    }
    // Each GPU's distinct first links out (to GPUs and NICs) and last links in: every
    // channel leaves and enters a GPU once through one of them (channel_bound).
    // NCCL spreads a host's communicators over its NICs by their GPUs (ncclTopoGetLocalNet:
    // among a GPU's nearest NICs, the one its device index picks): the first channel tries
    // the first GPU's own NIC first. On a whole host that is NIC 0.
    for (std::size_t k = 0; k < n; ++k) {
      if (g > 0 && topo_.nodes[host.gpus.front()].nic == host.nics[k]) first_nic_ = static_cast<int>(k);
    }
    hops_.resize(g);
    for (std::size_t a = 0; a < g; ++a) {
      HopLinks& h = hops_[a];
      for (std::size_t b = 0; b < g; ++b) {
        if (a == b || gg_type_[a][b] == PathType::Net) continue;
        if (!gg_[a][b].links.empty()) h.first.push_back(gg_[a][b].links.front());
        if (!gg_[b][a].links.empty()) h.last.push_back(gg_[b][a].links.back());
      }
      for (std::size_t k = 0; k < n; ++k) {
        if (!gn_[a][k].links.empty()) h.first.push_back(gn_[a][k].links.front());
        if (!ng_[k][a].links.empty()) h.last.push_back(ng_[k][a].links.back());
      }
      for (auto* v : {&h.first, &h.last}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
      }
    }
  }

  [[nodiscard]] int gpus() const { return static_cast<int>(host_.gpus.size()); }
  [[nodiscard]] int nics() const { return static_cast<int>(host_.nics.size()); }
  [[nodiscard]] int nic_gpu(int k) const { return nic_gpu_[static_cast<std::size_t>(k)]; }

  // The largest speed any single hop can carry: NCCL starts its search below it.
  [[nodiscard]] double max_speed() const {
    double best = 0;
    for (int a = 0; a < gpus(); ++a) {
      for (int b = 0; b < gpus(); ++b) {
        if (a != b && gg_type_[a][b] != PathType::Net) best = std::max(best, bottleneck(gg_[a][b].links));
      }
    }
    if (!multi_) return best;
    double net = 0;
    for (int k = 0; k < nics(); ++k) {
      if (!nic_out_[k] || !nic_in_[k]) continue;
      double v = std::min(capacity_[*nic_out_[k]], capacity_[*nic_in_[k]]);
      v = std::min(v, bottleneck(ng_[k][nic_gpu(k)].links));
      net = std::max(net, v);
    }
    return gpus() > 1 ? std::min(best, net) : net;
  }

  // How far GPU a's traffic has to go to NIC k, counting PXN (through the NIC's own GPU
  // over NVLink) when that is closer than its own path.
  [[nodiscard]] PathType exit_type(int a, int k) const {
    const PathType direct = gn_type_[a][k];
    const int p = nic_gpu(k);
    if (direct > PathType::Pxb && p != a && gg_type_[a][p] == PathType::Nvl && gn_type_[p][k] <= PathType::Pxb) {
      return PathType::Pxn;
    }
    return direct;
  }

  // ncclTopoCheckGdr's distance from GPU a to NIC k: its direct path type, or where PXN
  // carries its traffic (beyond PXB, to a GPU over NVLink within PXB of the NIC) that GPU's.
  [[nodiscard]] PathType gdr_distance(std::size_t a, std::size_t k) const {
    const PathType direct = gn_type_[a][k];
    if (direct <= PathType::Pxb) return direct;
    for (std::size_t p = 0; p < gn_type_.size(); ++p) {
      if (p != a && gg_type_[a][p] == PathType::Nvl && gn_type_[p][k] <= PathType::Pxb) return gn_type_[p][k];
    }
    return direct;
  }

  // As many channels at `speed` as the links' NCCL bandwidth allows. First greedily:
  // each channel the first ring found, successive channels from successive NICs. When
  // that stops short of what the GPUs' first-hop links could hold, a joint search
  // backtracks into earlier channels, as NCCL's ncclTopoSearchRec does (the DGX-1 hybrid
  // cube-mesh: 5 rings greedily, 6 jointly), within a budget. Returns the most found.
  // `to_beat`: the best channels x speed so far; the joint search runs only if it can beat it.
  std::vector<NcclChannel> channels_at(double speed, PathType ti, PathType tn, int max_channels, double to_beat,
                                       bool cross_nic) {
    cross_nic_ = cross_nic;
    residual_ = capacity_;
    best_.clear();
    current_.clear();
    greedy_ = true;
    max_channels_ = max_channels;
    (void)next_channel(speed, ti, tn);
    const int bound = std::min(max_channels, channel_bound(speed));
    if (static_cast<int>(best_.size()) < bound && bound * speed > to_beat + kEps) {
      std::vector<NcclChannel> greedy = std::move(best_);
      best_.clear();
      greedy_ = false;
      budget_ = kJointBudget;
      max_channels_ = bound;
      (void)next_channel(speed, ti, tn);
      if (best_.size() <= greedy.size()) best_ = std::move(greedy);
    }
    return best_;
  }

  // NCCL's second pass for trees (search.cc, "increase bwIntra for trees"): can the
  // channels' chains (the channel's GPU order without the ring's closing hop) carry
  // `intra` each while their NIC legs carry `inter`?
  bool chains_fit(const std::vector<NcclChannel>& channels, double intra, double inter) {
    residual_ = capacity_;
    for (const NcclChannel& ch : channels) {
      if (ch.nic >= 0) {
        const int entry = ch.order.front();
        if (!take(ng_[ch.nic][entry].links, inter) || !take_exit(ch.order.back(), ch.exit_nic, inter)) return false;
      }
      for (std::size_t i = 0; i + 1 < ch.order.size(); ++i) {
        if (!take_gg(ch.order[i], ch.order[i + 1], intra)) return false;
      }
    }
    return true;
  }

 private:
  [[nodiscard]] double bottleneck(std::span<const LinkId> links) const {
    double v = std::numeric_limits<double>::infinity();
    for (LinkId l : links) v = std::min(v, capacity_[l]);
    return v;
  }
  // A channel of speed s consumes s on every link of its route, and `pcie` x s on the
  // PCIe links of a path through an Intel root complex (root_complex_charge).
  [[nodiscard]] double need(LinkId l, double s, double pcie) const {
    return topo_.links[l].kind == LinkKind::Pcie ? s * pcie : s;
  }
  bool take(std::span<const LinkId> links, double s, double pcie = 1.0) {
    for (LinkId l : links) {
      if (residual_[l] + kEps < need(l, s, pcie)) return false;
    }
    for (LinkId l : links) residual_[l] -= need(l, s, pcie);
    return true;
  }
  void give(std::span<const LinkId> links, double s, double pcie = 1.0) {
    for (LinkId l : links) residual_[l] += need(l, s, pcie);
  }
  bool take_gg(int a, int b, double s) { return take(gg_[a][b].links, s, gg_rc_[a][b]); }
  void give_gg(int a, int b, double s) { give(gg_[a][b].links, s, gg_rc_[a][b]); }
  bool take_gn(int a, int k, double s) { return take(gn_[a][k].links, s, gn_rc_[a][k]); }
  void give_gn(int a, int k, double s) { give(gn_[a][k].links, s, gn_rc_[a][k]); }

  // search.cc followPath: "account for P2P inefficiency through Intel CPU RC": a path of
  // type PHB from a GPU through an Intel CPU charges its PCIe links 6/5 of the channel's
  // speed (INTEL_P2P_OVERHEAD, topo.h).
  [[nodiscard]] double root_complex_charge(const Route& r, PathType type) const {
    if (type != PathType::Phb) return 1.0;
    for (std::size_t i = 0; i + 1 < r.links.size(); ++i) {
      const Node& via = topo_.nodes[topo_.links[r.links[i]].to];
      if (via.kind == NodeKind::Cpu && via.platform && cpu_vendor(*via.platform) == CpuVendor::Intel) return 6.0 / 5.0;
    }
    return 1.0;
  }
  bool take_one(std::optional<LinkId> l, double s) {
    if (!l) return false;
    const LinkId one[1] = {*l};
    return take(one, s);
  }
  void give_one(std::optional<LinkId> l, double s) {
    if (l) residual_[*l] += s;
  }

  // The NICs a channel that entered by `entry` may leave by from GPU a: the same one; with
  // crossNic any, nearest to GPU a first (then the entry NIC, then in order).
  [[nodiscard]] std::vector<int> exit_nics(int a, int entry) const {
    if (!cross_nic_) return {entry};
    std::vector<int> out(static_cast<std::size_t>(nics()));
    for (int k = 0; k < nics(); ++k) out[static_cast<std::size_t>(k)] = k;
    std::stable_sort(out.begin(), out.end(), [&](int x, int y) {
      const auto kx = std::make_pair(exit_type(a, x), x != entry);
      const auto ky = std::make_pair(exit_type(a, y), y != entry);
      return kx < ky;
    });
    return out;
  }

  // The exit GPU's path to NIC k: direct, or over NVLink to the NIC's own GPU then PCIe.
  bool take_exit(int a, int k, double s) {
    if (exit_type(a, k) != PathType::Pxn) return take_gn(a, k, s);
    const int p = nic_gpu(k);
    if (!take_gg(a, p, s)) return false;
    if (!take_gn(p, k, s)) {
      give_gg(a, p, s);
      return false;
    }
    return true;
  }

  void give_exit(int a, int k, double s) {
    if (exit_type(a, k) != PathType::Pxn) {
      give_gn(a, k, s);
      return;
    }
    const int p = nic_gpu(k);
    give_gg(a, p, s);
    give_gn(p, k, s);
  }

  // How many more channels of `s` could fit: every channel leaves and enters each GPU
  // once, through one of its first-hop links (NVLinks, its PCIe or NVSwitch port).
  [[nodiscard]] int channel_bound(double s) const {
    if (gpus() == 1 && nics() == 0) return 1;
    int bound = std::numeric_limits<int>::max();
    for (const HopLinks& h : hops_) {
      double out = 0, in = 0;
      for (LinkId l : h.first) out += std::floor(residual_[l] / s + kEps);
      for (LinkId l : h.last) in += std::floor(residual_[l] / s + kEps);
      bound = std::min(bound, static_cast<int>(std::min(out, in)));
    }
    return bound;
  }

  // Adds channels after current_; true once the search should stop (max_channels_ found
  // or the budget spent).
  bool next_channel(double s, PathType ti, PathType tn) {
    if (current_.size() > best_.size()) best_ = current_;
    if (static_cast<int>(current_.size()) >= max_channels_) return true;
    if (!greedy_ && static_cast<int>(current_.size()) + channel_bound(s) <= static_cast<int>(best_.size())) return false;
    const int i = static_cast<int>(current_.size());
    if (!multi_) return try_channel(-1, s, ti, tn);
    for (int j = 0; j < nics(); ++j) {
      if (try_channel((first_nic_ + i + j) % nics(), s, ti, tn)) return true;
    }
    return false;
  }

  // Channel current_.size() entering (and leaving) by NIC k (-1: one host): every ring
  // through the host, each followed by the search for the next channel.
  bool try_channel(int k, double s, PathType ti, PathType tn) {
    NcclChannel ch;
    ch.nic = k;
    int entry = 0;
    if (k >= 0) {
      entry = nic_gpu(k);
      if (entry < 0 || gn_type_[entry][k] > tn) return false;
      if (!take_one(nic_in_[k], s)) return false;
      if (!take(ng_[k][entry].links, s)) {
        give_one(nic_in_[k], s);
        return false;
      }
    }
    ch.order = {entry};
    current_.push_back(std::move(ch));
    std::vector<bool> used(static_cast<std::size_t>(gpus()), false);
    used[static_cast<std::size_t>(entry)] = true;
    if (greedy_) budget_ = kChannelBudget;
    bool stop = dfs(used, s, ti, tn);
    // Greedy: a channel whose budget ran out failed (the next NIC is tried); joint: the
    // whole search ends.
    if (greedy_ && budget_ < 0) stop = false;
    current_.pop_back();
    if (k >= 0) {
      give(ng_[k][entry].links, s);
      give_one(nic_in_[k], s);
    }
    return stop;
  }

  bool dfs(std::vector<bool>& used, double s, PathType ti, PathType tn) {
    if (--budget_ < 0) return true;
    NcclChannel& ch = current_.back();
    const int cur = ch.order.back();
    const int g = gpus();
    if (static_cast<int>(ch.order.size()) == g) return close_channel(s, ti, tn);
    for (int step = 1; step < g; ++step) {
      const int next = (cur + step) % g;
      if (used[static_cast<std::size_t>(next)] || gg_type_[cur][next] > ti) continue;
      if (!take_gg(cur, next, s)) continue;
      used[static_cast<std::size_t>(next)] = true;
      current_.back().order.push_back(next);
      const bool stop = dfs(used, s, ti, tn);
      current_.back().order.pop_back();
      used[static_cast<std::size_t>(next)] = false;
      give_gg(cur, next, s);
      if (stop) return true;
    }
    return false;
  }

  // The channel has visited every GPU: leave by its NIC (or back to the first GPU), then
  // search the next channel; the exit is given back when that search returns.
  bool close_channel(double s, PathType ti, PathType tn) {
    NcclChannel& ch = current_.back();
    const int cur = ch.order.back();
    const int g = gpus();
    if (ch.nic >= 0) {
      for (int k : exit_nics(cur, ch.nic)) {
        if (exit_type(cur, k) > tn) continue;
        if (!take_one(nic_out_[k], s)) continue;
        if (!take_exit(cur, k, s)) {
          give_one(nic_out_[k], s);
          continue;
        }
        current_.back().exit_nic = k;
        current_.back().exit_path = exit_type(cur, k);
        const bool stop = next_channel(s, ti, tn) || greedy_;
        give_exit(cur, k, s);
        give_one(nic_out_[k], s);
        if (stop) return true;
      }
      return false;
    }
    if (g == 1) return next_channel(s, ti, tn) || greedy_;
    const int first = ch.order.front();
    if (gg_type_[cur][first] > ti || !take_gg(cur, first, s)) return false;
    const bool stop = next_channel(s, ti, tn) || greedy_;
    give_gg(cur, first, s);
    return stop;
  }

  const Topology& topo_;
  const GpuSpec& gpu_;
  const NcclHost& host_;
  bool multi_;
  int first_nic_ = 0;  // the NIC the first channel tries first
  std::vector<std::vector<Route>> gg_, gn_, ng_;
  std::vector<std::vector<PathType>> gg_type_, gn_type_;
  std::vector<std::vector<double>> gg_rc_, gn_rc_;  // root_complex_charge of each route
  std::vector<int> nic_gpu_;
  std::vector<std::optional<LinkId>> nic_out_, nic_in_;
  std::vector<double> capacity_, residual_;
  struct HopLinks {
    std::vector<LinkId> first, last;
  };
  std::vector<HopLinks> hops_;  // per local GPU
  std::vector<NcclChannel> current_, best_;
  int max_channels_ = 0;
  bool greedy_ = true;
  bool cross_nic_ = false;
  int budget_ = 0;
};

}  // namespace

std::map<NodeIndex, std::vector<NodeIndex>> host_nics(const Topology& topo) {
  std::map<NodeIndex, std::vector<NodeIndex>> out;
  for (NodeIndex v = 0; v < topo.nodes.size(); ++v) {
    if (topo.nodes[v].kind == NodeKind::Nic && topo.nodes[v].host) out[*topo.nodes[v].host].push_back(v);
  }
  return out;
}

namespace {

// Host h's GPUs (rank_nodes of its ranks) and its NICs (those of its first GPU's host).
void place_host(NcclHost& h, const Topology& topo, const std::vector<NodeIndex>& rank_nodes,
                const std::map<NodeIndex, std::vector<NodeIndex>>& nics) {
  h.gpus.clear();
  for (int r : h.ranks) h.gpus.push_back(rank_nodes.at(static_cast<std::size_t>(r)));
  h.nics.clear();
  if (const auto home = topo.nodes[h.gpus.front()].host) {
    if (auto it = nics.find(*home); it != nics.end()) h.nics = it->second;
  }
}

}  // namespace

NcclGraph moved_to(NcclGraph g, const Topology& topo, const std::vector<NodeIndex>& rank_nodes,
                   const std::map<NodeIndex, std::vector<NodeIndex>>& nics) {
  for (NcclHost& h : g.host) place_host(h, topo, rank_nodes, nics);
  return g;
}

std::optional<NcclGraph> search_nccl_ring(LinkGraph& graph, const std::vector<int>& host_of_rank,
                                          const NcclSearchOptions& options, std::string* why_not) {
  return search_nccl_ring(graph, graph.topology().ranks, host_of_rank, options, why_not);
}

std::optional<NcclGraph> search_nccl_ring(LinkGraph& graph, const std::vector<NodeIndex>& rank_nodes,
                                          const std::vector<int>& host_of_rank, const NcclSearchOptions& options,
                                          std::string* why_not) {
  auto fail = [why_not](std::string why) -> std::optional<NcclGraph> {
    if (why_not) *why_not = std::move(why);
    return std::nullopt;
  };
  const Topology& topo = graph.topology();
  const int n = static_cast<int>(rank_nodes.size());
  if (n < 1) return fail("the topology has no ranks");
  if (host_of_rank.size() != rank_nodes.size()) throw std::invalid_argument("search_nccl_ring: one host label per rank");
  NcclGraph g;
  g.pattern = "ring";
  const GpuSpec* gpu = nullptr;  // the lowest compute capability: NCCL's minimum
  for (int r = 0; r < n; ++r) {
    const Node& nd = topo.nodes[rank_nodes[static_cast<std::size_t>(r)]];
    // NCCL's graph is for GPUs of a known generation.
    if (nd.kind != NodeKind::Gpu) {
      return fail(fmt::format("rank {} runs on {} node \"{}\", not on a GPU", r, to_string(nd.kind), nd.id));
    }
    const GpuSpec* spec = find_gpu(nd.model);
    if (spec == nullptr) {
      return fail(nd.model.empty() ? fmt::format("rank {}'s GPU \"{}\" names no model", r, nd.id)
                                   : fmt::format("rank {}'s GPU \"{}\" is a {}, not a GPU of a known generation", r,
                                                 nd.id, nd.model));
    }
    if (gpu == nullptr || spec->compute_capability < gpu->compute_capability) gpu = spec;
  }
  g.arch = gpu_arch_from_sm(gpu->compute_capability.sm());
  const HostGroups groups = group_by_host(n, host_of_rank);
  if (!groups.even()) {
    std::vector<std::size_t> sizes;
    for (const auto& h : groups.ranks) sizes.push_back(h.size());
    return fail(fmt::format("hosts hold different numbers of ranks ({})", fmt::join(sizes, ", ")));
  }
  const auto nics_of_host = host_nics(topo);
  std::vector<std::size_t> nic_counts;
  for (const auto& ranks : groups.ranks) {
    NcclHost h;
    h.ranks = ranks;
    place_host(h, topo, rank_nodes, nics_of_host);
    nic_counts.push_back(h.nics.size());
    g.host.push_back(std::move(h));
  }
  g.hosts = groups.hosts();
  const bool multi = g.hosts > 1;
  if (std::any_of(nic_counts.begin(), nic_counts.end(), [&](std::size_t c) { return c != nic_counts.front(); })) {
    return fail(fmt::format("hosts have different numbers of NICs ({})", fmt::join(nic_counts, ", ")));
  }
  if (multi && nic_counts.front() == 0) return fail(fmt::format("{} hosts and no NICs to join them", g.hosts));

  g.transports = options.transports;
  g.host_cpu = host_platform(topo, g.host.front().gpus.front());
  g.p2p_level = options.transports.p2p_level.value_or(
      nccl_default_p2p_level(g.host_cpu, static_cast<int>(g.host.front().gpus.size())));
  for (NodeIndex nic : g.host.front().nics) g.nic_gpu_direct.push_back(nic_gpu_direct(graph, nic));
  Searcher search(graph, *gpu, g.host.front(), multi, g.p2p_level, options.transports, g.nic_gpu_direct, g.shm,
                  g.staged);
  const double top = search.max_speed();
  const auto speeds = nccl_speed_list(g.arch, !multi);
  double best_score = 0;
  std::vector<NcclChannel> best;
  const std::span<const PathType> inter_types = multi ? std::span<const PathType>(kInterTypes)
                                                      : std::span<const PathType>(kInterTypes).first(1);
  // crossNic 0 or 1: one pass with that rule; 2: a second pass with any NIC at a speed
  // where the same NIC found nothing.
  std::vector<bool> cross_passes{options.cross_nic == 1};
  if (multi && options.cross_nic == 2) cross_passes.push_back(true);
  for (double s : speeds) {
    if (s > top + kEps) continue;
    bool found = false;
    for (bool cross : cross_passes) {
      for (PathType ti : kIntraTypes) {
        for (PathType tn : inter_types) {
          auto channels = search.channels_at(s, ti, tn, options.max_channels, best_score, cross && multi);
          if (channels.empty()) continue;
          found = true;
          const double score = s * static_cast<double>(channels.size());
          if (score > best_score + kEps) {
            best_score = score;
            best = std::move(channels);
            g.searched_speed_gbps = s;
            g.type_intra = ti;
            g.type_inter = tn;
          }
          break;
        }
        if (found) break;
      }
      if (found) break;
    }
  }
  if (best.empty()) return fail("the search found no ring at any of NCCL's speeds");
  g.searched_channels = static_cast<int>(best.size());
  double speed = g.searched_speed_gbps;
  int count = g.searched_channels;
  // ncclTopoDupChannels: twice the channels at half the speed, unless the speed is under
  // 25 GB/s, or (newer than Ampere) under 50 GB/s with more than 4 channels.
  g.duplicated = speed >= 25 && !(g.arch > GpuArch::Ampere && speed < 50 && count > 4) &&
                 count * 2 <= options.channel_limit;
  g.per_channel = best;
  if (g.duplicated) {
    g.per_channel.insert(g.per_channel.end(), best.begin(), best.end());
    speed /= 2;
    count *= 2;
  }
  g.channels = count;
  g.speed_gbps = speed;
  g.tree_speed_gbps = speed;
  if (multi) {
    // Pass 2 for trees: raise bwIntra one listed speed at a time while it is below twice
    // bwInter and the chains still carry it (NCCL uses it for trees on 2 nodes).
    auto next = std::find_if(speeds.rbegin(), speeds.rend(), [&](double s) { return s > speed + kEps; });
    for (; next != speeds.rend() && g.tree_speed_gbps < 2 * speed - kEps; ++next) {
      if (!search.chains_fit(g.per_channel, *next, speed)) break;
      g.tree_speed_gbps = *next;
    }
  }
  // Remember the proxy GPU of PXN exits: the NIC's own GPU.
  for (NcclChannel& ch : g.per_channel) {
    g.cross_nic = g.cross_nic || ch.exit_nic != ch.nic;
    if (ch.nic >= 0 && ch.exit_path == PathType::Pxn) ch.proxy = search.nic_gpu(ch.exit_nic);
  }
  return g;
}

}  // namespace collsim
