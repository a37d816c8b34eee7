#include "sim/coll/nccl/transport.hpp"

#include <algorithm>
#include <charconv>

namespace collsim {

namespace {

// The catalogue entry of a GPU node; null for a model the catalogue lacks (NCCL's search
// refuses those before any transport is chosen).
const GpuSpec* spec_of(const Topology& topo, NodeIndex gpu) { return find_gpu(topo.nodes[gpu].model); }

}  // namespace

std::optional<Route> join_routes(std::initializer_list<std::optional<Route>> parts) {
  Route r;
  for (const auto& p : parts) {
    if (!p) return std::nullopt;
    r.links.insert(r.links.end(), p->links.begin(), p->links.end());
    r.latency += p->latency;
  }
  return r;
}

std::optional<NodeIndex> local_cpu(LinkGraph& graph, NodeIndex gpu) {
  const Topology& topo = graph.topology();
  const auto host = topo.nodes[gpu].host;
  std::optional<NodeIndex> best;
  std::size_t best_links = 0;
  for (NodeIndex v = 0; v < topo.nodes.size(); ++v) {
    if (topo.nodes[v].kind != NodeKind::Cpu || topo.nodes[v].host != host) continue;
    const auto r = graph.node_route(gpu, v);
    if (!r) continue;
    if (!best || r->links.size() < best_links) {
      best = v;
      best_links = r->links.size();
    }
  }
  return best;
}

PathType nccl_default_p2p_level(std::optional<HostCpu> platform, int gpus) {
  // paths.cc ncclTopoCheckP2p: "Allow P2P between pairs of GPU devices on AMD systems".
  if (platform && cpu_vendor(*platform) == CpuVendor::Amd && gpus <= 2) {  // AMD: x86 by its vendor
    return PathType::Sys;
  }
  return PathType::Pxb;
}

bool nccl_p2p(const Topology& topo, NodeIndex a, NodeIndex b, PathType direct, PathType level) {
  if (direct > level) return false;
  if (direct == PathType::Nvl) return true;
  for (NodeIndex g : {a, b}) {
    const GpuSpec* spec = spec_of(topo, g);
    if (spec != nullptr && !spec->pcie_p2p) return false;
  }
  return true;
}

bool nic_gpu_direct(const LinkGraph& graph, NodeIndex nic) {
  const Topology& topo = graph.topology();
  if (const auto& named = topo.nodes[nic].net_gpu_direct) return *named;
  bool ethernet = false;
  for (auto [e, end] = boost::out_edges(nic, graph.graph()); e != end; ++e) {
    const LinkKind kind = topo.links[graph.graph()[*e].link].kind;
    if (kind == LinkKind::Ib || kind == LinkKind::Roce) return true;
    ethernet = ethernet || kind == LinkKind::Ethernet;
  }
  return !ethernet;
}

bool nccl_gdr(const Topology& topo, NodeIndex gpu, bool nic_gpu_direct, PathType distance,
              const NcclTransportLevels& levels) {
  const GpuSpec* spec = spec_of(topo, gpu);
  if (spec != nullptr && !spec->gpudirect_rdma) return false;
  return nic_gpu_direct && distance <= levels.gdr();
}

std::optional<Route> route_via_cpu(LinkGraph& graph, NodeIndex from, NodeIndex to, NodeIndex near) {
  const auto cpu = local_cpu(graph, near);
  if (!cpu) return graph.node_route(from, to);
  return join_routes({graph.node_route(from, *cpu), graph.node_route(*cpu, to)});
}

std::optional<Route> nccl_gpu_route(LinkGraph& graph, NodeIndex a, NodeIndex b, PathType p2p_level, bool* shm) {
  auto direct = graph.node_route(a, b);
  if (shm) *shm = false;
  if (!direct) return direct;
  if (nccl_p2p(graph.topology(), a, b, classify_route(graph.topology(), *direct), p2p_level)) return direct;
  const auto cpu = local_cpu(graph, b);
  if (!cpu) return direct;  // no CPU node to stage through: the only route there is
  if (shm) *shm = true;
  return join_routes({graph.node_route(a, *cpu), graph.node_route(*cpu, b)});
}

std::optional<PathType> nccl_level_from(std::string_view text, bool allow_nvl) {
  if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    constexpr PathType kLegacy[] = {PathType::Loc, PathType::Pix, PathType::Pxb, PathType::Phb, PathType::Sys};
    return kLegacy[std::min(v, 4)];
  }
  const auto t = path_type_from(text);
  if (!t) return std::nullopt;
  switch (*t) {
    case PathType::Loc:
    case PathType::Pix:
    case PathType::Pxb:
    case PathType::Phb:
    case PathType::Sys: return t;
    case PathType::Nvl: return allow_nvl ? t : std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace collsim
