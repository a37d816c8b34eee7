#include "sim/topo/loader.hpp"

#include <unordered_map>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/generators.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

namespace {

using Json = nlohmann::json;
using IdMap = std::unordered_map<std::string, NodeIndex>;

std::string item(const std::string& base, std::string_view key, std::size_t i) {
  return fmt::format("{}/{}/{}", base, key, i);
}

NodeIndex lookup(const IdMap& ids, const Json& v, const std::string& source, const std::string& pointer) {
  if (!v.is_string()) throw ConfigError(source, pointer, brief(v), "a node id (string)");
  const auto it = ids.find(v.get<std::string>());
  if (it == ids.end()) {
    throw ConfigError(source, pointer, fmt::format("\"{}\"", v.get<std::string>()), "the id of a node listed in /nodes");
  }
  return it->second;
}

void read_nodes(JsonFields& top, Topology& t, IdMap& ids) {
  const Json& nodes = top.array("nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    JsonFields f(nodes[i], top.source(), item(top.base(), "nodes", i));
    const std::string id = f.string("id");
    if (id.empty()) f.fail("id", "\"\"", "a non-empty node id");
    const auto kind = *node_kind_from(f.choice("kind", node_kind_names()));
    const std::string model = f.optional_string("model").value_or("");
    if (!model.empty() && kind != NodeKind::Gpu) f.fail("model", fmt::format("\"{}\"", model), "no model except on a gpu node");
    if (ids.count(id) != 0) f.fail("id", fmt::format("\"{}\"", id), "a node id not used by an earlier node");
    const NodeIndex n = t.add_node(id, kind, model);
    ids.emplace(id, n);
    if (const Json* host = f.optional("host")) {
      // Hosts may be listed after their members; resolve in a second pass below.
      if (!host->is_string()) f.fail("host", brief(*host), "the id of a host node");
    }
    f.finish();
  }
  // Second pass: host membership.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto it = nodes[i].find("host");
    if (it == nodes[i].end()) continue;
    const std::string pointer = item(top.base(), "nodes", i) + "/host";
    const NodeIndex h = lookup(ids, *it, top.source(), pointer);
    if (t.nodes[h].kind != NodeKind::Host) {
      throw ConfigError(top.source(), pointer, brief(*it), "the id of a node of kind \"host\"");
    }
    t.nodes[i].host = h;
  }
}

void read_links(JsonFields& top, Topology& t, const IdMap& ids) {
  const Json& links = top.array("links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string base = item(top.base(), "links", i);
    JsonFields f(links[i], top.source(), base);
    const Json& ends = f.required("endpoints");
    if (!ends.is_array() || ends.size() != 2) f.fail("endpoints", brief(ends), "an array of two node ids");
    const NodeIndex a = lookup(ids, ends[0], top.source(), base + "/endpoints/0");
    const NodeIndex b = lookup(ids, ends[1], top.source(), base + "/endpoints/1");
    if (a == b) f.fail("endpoints", brief(ends), "two different nodes");
    const auto kind = *link_kind_from(f.choice("kind", link_kind_names()));
    const Bandwidth bw = f.bandwidth("bandwidth");
    const Time lat = f.time("latency");
    const bool duplex = f.boolean("duplex", true);
    f.finish();
    t.links.push_back(DirectedLink{a, b, kind, bw, lat});
    if (duplex) t.links.push_back(DirectedLink{b, a, kind, bw, lat});
  }
}

void read_ranks(JsonFields& top, Topology& t, const IdMap& ids) {
  if (const Json* ranks = top.optional("ranks")) {
    if (!ranks->is_array() || ranks->empty()) top.fail("ranks", brief(*ranks), "a non-empty array of node ids");
    std::vector<bool> used(t.nodes.size(), false);
    for (std::size_t i = 0; i < ranks->size(); ++i) {
      const std::string pointer = item(top.base(), "ranks", i);
      const NodeIndex n = lookup(ids, (*ranks)[i], top.source(), pointer);
      const NodeKind k = t.nodes[n].kind;
      if (k != NodeKind::Gpu && k != NodeKind::Host) {
        throw ConfigError(top.source(), pointer, brief((*ranks)[i]), "a node of kind \"gpu\" or \"host\"");
      }
      if (used[n]) throw ConfigError(top.source(), pointer, brief((*ranks)[i]), "a node not already a rank");
      used[n] = true;
      t.ranks.push_back(n);
    }
    return;
  }
  // Default: every GPU in file order; a CPU-only cluster uses its hosts.
  for (NodeIndex n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind == NodeKind::Gpu) t.ranks.push_back(n);
  }
  if (t.ranks.empty()) {
    for (NodeIndex n = 0; n < t.nodes.size(); ++n) {
      if (t.nodes[n].kind == NodeKind::Host) t.ranks.push_back(n);
    }
  }
  if (t.ranks.empty()) top.fail("nodes", "no gpu or host node", "at least one node of kind \"gpu\" or \"host\" to be a rank");
}

Topology read_generator(JsonFields& top) {
  JsonFields g(top.required("generator"), top.source(), top.pointer("generator"));
  const std::string kind = g.choice("kind", {"star", "nvswitch_node"});
  Topology t;
  if (kind == "star") {
    StarSpec s;
    s.hosts = static_cast<int>(g.integer("hosts", 1, 1 << 20));
    s.bandwidth = g.bandwidth("bandwidth");
    s.latency = g.time("latency");
    if (g.has("link_kind")) s.link_kind = *link_kind_from(g.choice("link_kind", link_kind_names()));
    t = make_star(s);
  } else {
    NvSwitchNodeSpec s;
    s.gpus = static_cast<int>(g.integer("gpus", 1, 1024));
    s.gpu_model = g.optional_string("gpu_model").value_or(s.gpu_model);
    s.bandwidth = g.bandwidth("bandwidth");
    s.latency = g.time("latency");
    t = make_nvswitch_node(s);
  }
  g.finish();
  return t;
}

[[noreturn]] void fail_unreachable(const Topology& t, NodeIndex from, NodeIndex to) {
  const Node& a = t.nodes[from];
  const Node& b = t.nodes[to];
  throw ConfigError(t.source, fmt::format("/nodes/{}", from),
                    fmt::format("{} \"{}\" with no path to {} \"{}\"", to_string(a.kind), a.id, to_string(b.kind), b.id),
                    "a path of links (through switches, NICs or CPUs, not through other GPUs or hosts) between "
                    "every pair of ranks");
}

// Every rank must reach every other rank without transiting a GPU or host. Up to 2048
// ranks this is one search per rank (exact for any link set). Larger (generated)
// fabrics: union-find over links between transit nodes; two ranks connect when one has
// a link into, and the other a link out of, the same transit component. That is exact
// when transit links come in both directions, which every generator produces.
void check_connected(const Topology& t) {
  if (t.ranks.size() <= 2048) {
    LinkGraph g(t);
    for (NodeIndex r : t.ranks) {
      const auto seen = g.reachable_from(r);
      for (NodeIndex q : t.ranks) {
        if (!seen[q]) fail_unreachable(t, r, q);
      }
    }
    return;
  }
  std::vector<NodeIndex> parent(t.nodes.size());
  for (NodeIndex i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](NodeIndex v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const auto& l : t.links) {
    if (LinkGraph::can_transit(t.nodes[l.from].kind) && LinkGraph::can_transit(t.nodes[l.to].kind)) {
      parent[root(l.from)] = root(l.to);
    }
  }
  constexpr NodeIndex kNone = ~NodeIndex{0};
  std::vector<NodeIndex> out_comp(t.nodes.size(), kNone), in_comp(t.nodes.size(), kNone);
  for (const auto& l : t.links) {
    if (LinkGraph::can_transit(t.nodes[l.to].kind)) out_comp[l.from] = root(l.to);
    if (LinkGraph::can_transit(t.nodes[l.from].kind)) in_comp[l.to] = root(l.from);
  }
  const NodeIndex first = t.ranks.front();
  for (NodeIndex r : t.ranks) {
    if (out_comp[r] == kNone || out_comp[r] != out_comp[first]) fail_unreachable(t, first, r);
    if (in_comp[r] == kNone || in_comp[r] != out_comp[first]) fail_unreachable(t, first, r);
  }
}

}  // namespace

Topology load_topology_json(const Json& doc, const std::string& source) {
  JsonFields top(doc, source, "");
  Topology t;
  if (top.has("generator")) {
    t = read_generator(top);
    t.source = source;
    if (auto name = top.optional_string("name")) t.name = *name;
  } else {
    t.name = top.optional_string("name").value_or(source);
    t.source = source;
    IdMap ids;
    read_nodes(top, t, ids);
    read_links(top, t, ids);
    read_ranks(top, t, ids);
  }
  top.finish();
  check_connected(t);
  return t;
}

Topology load_topology_file(const std::string& path) {
  return load_topology_json(read_json_file(path), path);
}

}  // namespace collsim
