#include "sim/topo/dot_writer.hpp"

#include <map>
#include <tuple>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>

#include "sim/core/name_table.hpp"
#include "sim/topo/link_id.hpp"

namespace collsim {

namespace {

struct DotEdge {
  LinkId link;   // the first direction seen
  bool duplex;   // a link back with the same kind, lanes and rate exists
};

using DotGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                       boost::property<boost::edge_index_t, std::size_t>>;

// Graphviz shape per node kind, colour per link kind.
constexpr auto kShapes = names_in_order<NodeKind>({"box", "hexagon", "diamond", "octagon", "ellipse", "doubleoctagon", "folder"});

constexpr auto kColours = names_in_order<LinkKind>({"forestgreen", "darkgreen", "steelblue", "darkorange", "orangered", "purple"});

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void write_dot(std::ostream& out, const Topology& t) {
  // Pair up the two directions of each duplex link so a picture shows one line per cable.
  std::vector<DotEdge> edges;
  std::map<std::tuple<NodeIndex, NodeIndex, LinkKind, int>, std::vector<std::size_t>> open;
  for (LinkId l = 0; l < t.links.size(); ++l) {
    const auto& k = t.links[l];
    auto back = open.find({k.to, k.from, k.kind, k.lanes});
    if (back != open.end() && !back->second.empty()) {
      edges[back->second.back()].duplex = true;
      back->second.pop_back();
      continue;
    }
    open[{k.from, k.to, k.kind, k.lanes}].push_back(edges.size());
    edges.push_back(DotEdge{l, false});
  }
  DotGraph g(t.nodes.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    boost::add_edge(t.links[edges[i].link].from, t.links[edges[i].link].to, i, g);
  }
  const auto edge_index = boost::get(boost::edge_index, g);
  auto vertex_writer = [&](std::ostream& os, std::size_t v) {
    const Node& n = t.nodes[v];
    const std::string label = n.model.empty() ? escape(n.id) : fmt::format("{}\\n{}", escape(n.id), escape(n.model));
    os << fmt::format("[label=\"{}\", shape={}]", label, kShapes.name(n.kind));
  };
  auto edge_writer = [&](std::ostream& os, DotGraph::edge_descriptor e) {
    const DotEdge& d = edges[edge_index[e]];
    const auto& l = t.links[d.link];
    const std::string lanes = l.lanes > 1 ? fmt::format("x{} = ", l.lanes) : "";
    os << fmt::format("[label=\"{} {}{:.4g} GB/s\", color={}{}]", to_string(l.kind), lanes, l.bandwidth.gb_per_s(),
                      kColours.name(l.kind), d.duplex ? "" : ", style=dashed");
  };
  auto graph_writer = [&](std::ostream& os) {
    os << fmt::format("label=\"{}\";\nfontsize=20;\nnode [fontsize=10];\nedge [fontsize=8];\n", escape(t.name));
  };
  boost::write_graphviz(out, g, vertex_writer, edge_writer, graph_writer);
}

}  // namespace collsim
