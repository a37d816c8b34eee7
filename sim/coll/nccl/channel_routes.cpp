// NcclGraph's channels as ranks and routes: each channel's global rank order, and the
// route a channel's data takes between hosts (channel_search.hpp).
#include "sim/coll/nccl/channel_search.hpp"

namespace collsim {

std::vector<int> NcclGraph::rank_order(int c) const {
  const NcclChannel& ch = per_channel.at(static_cast<std::size_t>(c));
  std::vector<int> out;
  for (const NcclHost& h : host) {
    for (int li : ch.order) out.push_back(h.ranks[static_cast<std::size_t>(li)]);
  }
  return out;
}

namespace {

// The leg between a host's GPU (local index `local`) and its NIC `nic`, through the GPU's
// CPU where the graph stages that pair in host memory.
std::optional<Route> nic_leg(LinkGraph& graph, const NcclGraph& g, NodeIndex from, NodeIndex to, NodeIndex gpu,
                             int local, int nic) {
  const bool staged = !g.staged.empty() && g.staged[static_cast<std::size_t>(local)][static_cast<std::size_t>(nic)];
  return staged ? route_via_cpu(graph, from, to, gpu) : graph.node_route(from, to);
}

}  // namespace

std::optional<Route> gpu_nic_hop_route(LinkGraph& graph, const NcclGraph& g, int local, int nic, int from, int to) {
  const NodeIndex a = g.host.at(static_cast<std::size_t>(from)).gpus.at(static_cast<std::size_t>(local));
  const NodeIndex b = g.host.at(static_cast<std::size_t>(to)).gpus.at(static_cast<std::size_t>(local));
  const NodeIndex out_nic = g.host[static_cast<std::size_t>(from)].nics.at(static_cast<std::size_t>(nic));
  const NodeIndex in_nic = g.host[static_cast<std::size_t>(to)].nics.at(static_cast<std::size_t>(nic));
  return join_routes({nic_leg(graph, g, a, out_nic, a, local, nic), graph.node_route(out_nic, in_nic),
                      nic_leg(graph, g, in_nic, b, b, local, nic)});
}

std::optional<Route> tree_hop_route(LinkGraph& graph, const NcclGraph& g, int channel, int from, int to) {
  const NcclChannel& ch = g.per_channel.at(static_cast<std::size_t>(channel));
  return gpu_nic_hop_route(graph, g, ch.order.front(), ch.nic, from, to);
}

std::optional<Route> channel_hop_route(LinkGraph& graph, const NcclGraph& g, int channel, int from, int to) {
  const NcclChannel& ch = g.per_channel.at(static_cast<std::size_t>(channel));
  const NcclHost& a = g.host.at(static_cast<std::size_t>(from));
  const NcclHost& b = g.host.at(static_cast<std::size_t>(to));
  const NodeIndex exit_gpu = a.gpus[static_cast<std::size_t>(ch.order.back())];
  const NodeIndex entry_gpu = b.gpus[static_cast<std::size_t>(ch.order.front())];
  const NodeIndex out_nic = a.nics.at(static_cast<std::size_t>(ch.exit_nic));
  const NodeIndex in_nic = b.nics.at(static_cast<std::size_t>(ch.nic));
  // A GPU without GPUDirect RDMA to the NIC stages through its CPU's memory.
  const auto in = nic_leg(graph, g, in_nic, entry_gpu, entry_gpu, ch.order.front(), ch.nic);
  if (ch.exit_path == PathType::Pxn) {
    const NodeIndex proxy = a.gpus[static_cast<std::size_t>(ch.proxy)];
    return join_routes({graph.node_route(exit_gpu, proxy),
                        nic_leg(graph, g, proxy, out_nic, proxy, ch.proxy, ch.exit_nic),
                        graph.node_route(out_nic, in_nic), in});
  }
  return join_routes({nic_leg(graph, g, exit_gpu, out_nic, exit_gpu, ch.order.back(), ch.exit_nic),
                      graph.node_route(out_nic, in_nic), in});
}

}  // namespace collsim
