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
#include "sim/coll/nccl/host_paths.hpp"
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

// The search over host 0's paths (NcclHostPaths): the residual capacity its channels consume.
class Searcher {
 public:
  Searcher(const NcclHostPaths& paths, bool multi) : p_(paths), multi_(multi) {}

  [[nodiscard]] int gpus() const { return p_.gpus(); }
  [[nodiscard]] int nics() const { return p_.nics(); }
  [[nodiscard]] int nic_gpu(int k) const { return p_.own_gpu(k); }

  // As many channels at `speed` as the links' NCCL bandwidth allows. First greedily:
  // each channel the first ring found, successive channels from successive NICs. When
  // that stops short of what the GPUs' first-hop links could hold, a joint search
  // backtracks into earlier channels, as NCCL's ncclTopoSearchRec does (the DGX-1 hybrid
  // cube-mesh: 5 rings greedily, 6 jointly), within a budget. Returns the most found.
  // `to_beat`: the best channels x speed so far; the joint search runs only if it can beat it.
  std::vector<NcclChannel> channels_at(double speed, PathType ti, PathType tn, int max_channels, double to_beat,
                                       bool cross_nic) {
    cross_nic_ = cross_nic;
    residual_ = p_.capacity;
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
    residual_ = p_.capacity;
    for (const NcclChannel& ch : channels) {
      if (ch.nic >= 0) {
        const int entry = ch.order.front();
        if (!take(p_.ng[ch.nic][entry].links, inter) || !take_exit(ch.order.back(), ch.exit_nic, inter)) return false;
      }
      for (std::size_t i = 0; i + 1 < ch.order.size(); ++i) {
        if (!take_gg(ch.order[i], ch.order[i + 1], intra)) return false;
      }
    }
    return true;
  }

 private:
  // A channel of speed s consumes s on every link of its route, and `pcie` x s on the
  // PCIe links of a path through an Intel root complex (root_complex_charge).
  [[nodiscard]] double need(LinkId l, double s, double pcie) const {
    return p_.topo.links[l].kind == LinkKind::Pcie ? s * pcie : s;
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
  bool take_gg(int a, int b, double s) { return take(p_.gg[a][b].links, s, p_.gg_rc[a][b]); }
  void give_gg(int a, int b, double s) { give(p_.gg[a][b].links, s, p_.gg_rc[a][b]); }
  bool take_gn(int a, int k, double s) { return take(p_.gn[a][k].links, s, p_.gn_rc[a][k]); }
  void give_gn(int a, int k, double s) { give(p_.gn[a][k].links, s, p_.gn_rc[a][k]); }

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
      const auto kx = std::make_pair(p_.exit_type(a, x), x != entry);
      const auto ky = std::make_pair(p_.exit_type(a, y), y != entry);
      return kx < ky;
    });
    return out;
  }

  // The exit GPU's path to NIC k: direct, or over NVLink to the NIC's own GPU then PCIe.
  bool take_exit(int a, int k, double s) {
    if (p_.exit_type(a, k) != PathType::Pxn) return take_gn(a, k, s);
    const int p = nic_gpu(k);
    if (!take_gg(a, p, s)) return false;
    if (!take_gn(p, k, s)) {
      give_gg(a, p, s);
      return false;
    }
    return true;
  }

  void give_exit(int a, int k, double s) {
    if (p_.exit_type(a, k) != PathType::Pxn) {
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
    for (const NcclHostPaths::Hops& h : p_.hops) {
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
      if (try_channel((p_.first_nic + i + j) % nics(), s, ti, tn)) return true;
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
      if (entry < 0 || p_.gn_type[entry][k] > tn) return false;
      if (!take_one(p_.nic_in[k], s)) return false;
      if (!take(p_.ng[k][entry].links, s)) {
        give_one(p_.nic_in[k], s);
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
      give(p_.ng[k][entry].links, s);
      give_one(p_.nic_in[k], s);
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
      if (used[static_cast<std::size_t>(next)] || p_.gg_type[cur][next] > ti) continue;
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
        if (p_.exit_type(cur, k) > tn) continue;
        if (!take_one(p_.nic_out[k], s)) continue;
        if (!take_exit(cur, k, s)) {
          give_one(p_.nic_out[k], s);
          continue;
        }
        current_.back().exit_nic = k;
        current_.back().exit_path = p_.exit_type(cur, k);
        const bool stop = next_channel(s, ti, tn) || greedy_;
        give_exit(cur, k, s);
        give_one(p_.nic_out[k], s);
        if (stop) return true;
      }
      return false;
    }
    if (g == 1) return next_channel(s, ti, tn) || greedy_;
    const int first = ch.order.front();
    if (p_.gg_type[cur][first] > ti || !take_gg(cur, first, s)) return false;
    const bool stop = next_channel(s, ti, tn) || greedy_;
    give_gg(cur, first, s);
    return stop;
  }

  const NcclHostPaths& p_;
  bool multi_;
  std::vector<double> residual_;
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
  const NcclHostPaths paths(graph, *gpu, g.host.front(), g.p2p_level, options.transports, g.nic_gpu_direct);
  g.shm = paths.shm;
  g.staged = paths.staged;
  Searcher search(paths, multi);
  const double top = paths.max_speed(multi);
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
    if (ch.nic >= 0 && ch.exit_path == PathType::Pxn) ch.proxy = paths.own_gpu(ch.exit_nic);
  }
  return g;
}

}  // namespace collsim
