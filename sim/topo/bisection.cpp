#include "sim/topo/bisection.hpp"

#include <cmath>
#include <cstdint>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "sim/topo/link_graph.hpp"

namespace collsim {

namespace {
using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, std::int64_t,
                    boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
}  // namespace

Bandwidth bisection_bandwidth(const Topology& t) {
  const std::size_t n = t.ranks.size();
  if (n < 2) return Bandwidth{0};
  // 0 = not a rank, 1 = sending half, 2 = receiving half.
  std::vector<std::uint8_t> side(t.nodes.size(), 0);
  for (std::size_t r = 0; r < n; ++r) side[t.ranks[r]] = r < n / 2 ? 1 : 2;
  const auto source = static_cast<Traits::vertex_descriptor>(t.nodes.size());
  const auto sink = source + 1;
  FlowGraph g(t.nodes.size() + 2);
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  auto add = [&](std::size_t a, std::size_t b, std::int64_t c) {
    const auto e = boost::add_edge(a, b, g).first;
    const auto r = boost::add_edge(b, a, g).first;
    cap[e] = c;
    cap[r] = 0;
    rev[e] = r;
    rev[r] = e;
  };
  std::int64_t total = 0;
  for (const auto& l : t.links) {
    const bool from_ok = LinkGraph::can_transit(t.nodes[l.from].kind) || side[l.from] == 1;
    const bool to_ok = LinkGraph::can_transit(t.nodes[l.to].kind) || side[l.to] == 2;
    if (!from_ok || !to_ok) continue;
    const auto c = static_cast<std::int64_t>(std::llround(l.bandwidth.bytes_per_s));
    add(l.from, l.to, c);
    total += c;
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (r < n / 2) add(source, t.ranks[r], total + 1);
    else add(t.ranks[r], sink, total + 1);
  }
  const std::int64_t flow = boost::push_relabel_max_flow(g, source, sink);
  return Bandwidth{static_cast<double>(flow)};
}

}  // namespace collsim
