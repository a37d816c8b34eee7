#include "sim/topo/loader.hpp"

#include <unordered_map>

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"
#include "sim/topo/generator_json.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/link_overhead.hpp"
#include "sim/topo/rank_order.hpp"
#include "sim/topo/topology_rules.hpp"

namespace collsim {

namespace {

using Json = nlohmann::json;
using IdMap = std::unordered_map<std::string, NodeIndex>;

std::string item(std::string_view key, std::size_t i) { return fmt::format("/{}/{}", key, i); }
std::string in_quotes(const std::string& s) { return fmt::format("\"{}\"", s); }

std::optional<NodeIndex> lookup(const IdMap& ids, const Json& v, const std::string& source, const std::string& pointer,
                                Diagnostics& diags) {
  if (!v.is_string()) {
    diags.emplace_back(source, pointer, brief(v), "a node id (string)");
    return std::nullopt;
  }
  const auto it = ids.find(v.get<std::string>());
  if (it == ids.end()) {
    diags.emplace_back(source, pointer, in_quotes(v.get<std::string>()), "the id of a node listed in /nodes");
    return std::nullopt;
  }
  return it->second;
}

// A node that failed to parse still takes its index (kind gpu, no id) so later
// references and indices stay aligned; `broken` remembers it.
void read_nodes(const Json& nodes, const std::string& source, Topology& t, IdMap& ids, Diagnostics& d) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string base = item("nodes", i);
    const NodeIndex n = t.add_node("", NodeKind::Gpu);
    if (!nodes[i].is_object()) {
      d.emplace_back(source, base, brief(nodes[i]), "a JSON object");
      continue;
    }
    JsonFields f(nodes[i], source, base);
    if (auto id = attempt(d, [&] { return f.string("id"); })) {
      if (id->empty()) {
        d.emplace_back(source, base + "/id", "\"\"", "a non-empty node id");
      } else if (ids.count(*id) != 0) {
        d.emplace_back(source, base + "/id", in_quotes(*id), "a node id not used by an earlier node");
      } else {
        ids.emplace(*id, n);
        t.nodes[n].id = *id;
      }
    }
    const auto kind = attempt(d, [&] { return f.choice("kind", node_kind_names()); });
    if (kind) t.nodes[n].kind = *node_kind_from(*kind);
    if (auto model = attempt(d, [&] { return f.optional_string("model"); }); model && *model) {
      t.nodes[n].model = **model;
      if (kind && t.nodes[n].kind != NodeKind::Gpu) {
        d.emplace_back(source, base + "/model", in_quotes(**model), "no model except on a gpu node");
      } else if (!gpu_model_from(**model)) {
        d.emplace_back(source, base + "/model", in_quotes(**model),
                       fmt::format("a GPU model, one of: {}", fmt::join(gpu_model_names(), ", ")));
      }
    }
    (void)f.optional("host");  // resolved below, once every id is known
    (void)f.optional("nic");
    check_keys(nodes[i], {"id", "kind", "model", "host", "nic"}, source, base, d);
  }
  // Second pass: host membership and a GPU's own NIC, which may name later nodes.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].is_object()) continue;
    Node& node = t.nodes[i];
    if (const auto it = nodes[i].find("host"); it != nodes[i].end()) {
      const std::string pointer = item("nodes", i) + "/host";
      if (auto h = lookup(ids, *it, source, pointer, d)) {
        if (t.nodes[*h].kind != NodeKind::Host) {
          d.emplace_back(source, pointer, brief(*it), "the id of a node of kind \"host\"");
        } else if (node.kind == NodeKind::Host) {
          d.emplace_back(source, pointer, brief(*it), "no host on a node that is itself a host");
        } else {
          node.host = *h;
        }
      }
    }
    if (const auto it = nodes[i].find("nic"); it != nodes[i].end()) {
      const std::string pointer = item("nodes", i) + "/nic";
      if (auto n = lookup(ids, *it, source, pointer, d)) {
        if (node.kind != NodeKind::Gpu) {
          d.emplace_back(source, pointer, brief(*it), "no nic except on a gpu node");
        } else if (t.nodes[*n].kind != NodeKind::Nic) {
          d.emplace_back(source, pointer, brief(*it), "the id of a node of kind \"nic\"");
        } else {
          node.nic = *n;
        }
      }
    }
  }
}

void read_links(const Json& links, const std::string& source, Topology& t, const IdMap& ids, Diagnostics& d) {
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string base = item("links", i);
    if (!links[i].is_object()) {
      d.emplace_back(source, base, brief(links[i]), "a JSON object");
      continue;
    }
    JsonFields f(links[i], source, base);
    const std::size_t before = d.size();
    std::optional<NodeIndex> a, b;
    if (auto ends = attempt(d, [&] { return std::cref(f.required("endpoints")); })) {
      const Json& e = ends->get();
      if (!e.is_array() || e.size() != 2) {
        d.emplace_back(source, base + "/endpoints", brief(e), "an array of two node ids");
      } else {
        a = lookup(ids, e[0], source, base + "/endpoints/0", d);
        b = lookup(ids, e[1], source, base + "/endpoints/1", d);
        if (a && b && *a == *b) d.emplace_back(source, base + "/endpoints", brief(e), "two different nodes");
      }
    }
    const auto kind = attempt(d, [&] { return f.choice("kind", link_kind_names()); });
    const auto rate = attempt(d, [&] { return f.bandwidth("bandwidth"); });
    const auto lat = attempt(d, [&] { return f.time("latency"); });
    const auto duplex = attempt(d, [&] { return f.boolean("duplex", true); });
    const auto lanes = attempt(d, [&] { return f.optional_integer("lanes", 1, 1024); });
    const auto mtu = attempt(d, [&] { return f.optional_integer("mtu", kMinMtu, kMaxMtu); });
    const LinkKind k = kind ? *link_kind_from(*kind) : LinkKind::Pcie;
    if (kind && a && b) {
      if (auto rule = link_endpoint_rule(k, t.nodes[*a].kind, t.nodes[*b].kind)) {
        d.emplace_back(source, base + "/kind",
                       fmt::format("\"{}\" between {} \"{}\" and {} \"{}\"", *kind, to_string(t.nodes[*a].kind),
                                   t.nodes[*a].id, to_string(t.nodes[*b].kind), t.nodes[*b].id),
                       *rule);
      }
    }
    if (kind && mtu && *mtu && k != LinkKind::Ethernet) {
      d.emplace_back(source, base + "/mtu", std::to_string(**mtu),
                     "no mtu except on an \"ethernet\" link (only TCP/IP over Ethernet is charged header overhead)");
    }
    check_keys(links[i], {"endpoints", "kind", "bandwidth", "latency", "duplex", "lanes", "mtu"}, source, base, d);
    if (d.size() != before) continue;
    const int n_lanes = lanes->value_or(1);
    const int m = k == LinkKind::Ethernet ? static_cast<int>(mtu->value_or(kDefaultMtu)) : 0;
    const Bandwidth line = *rate * n_lanes;
    const DirectedLink l{*a, *b, k, payload_rate(k, line, m), *lat, line, n_lanes, m};
    t.links.push_back(l);
    if (*duplex) t.links.push_back(DirectedLink{*b, *a, k, l.bandwidth, l.latency, l.line_rate, l.lanes, l.mtu});
  }
}

void read_ranks(const Json& ranks, const std::string& source, Topology& t, const IdMap* ids, Diagnostics& d) {
  if (ranks.is_string()) {
    const auto order = rank_order_from(ranks.get<std::string>());
    if (!order) {
      d.emplace_back(source, "/ranks", brief(ranks),
                     fmt::format("an array of node ids or one of: {}", fmt::join(rank_order_names(), ", ")));
      return;
    }
    t.ranks = ranks_in_order(t, *order);
    if (t.ranks.empty()) {
      d.emplace_back(source, "/ranks", brief(ranks),
                     fmt::format("an order that finds nodes: this topology has no {} node",
                                 *order == RankOrder::Hosts ? "host" : "gpu"));
    }
    return;
  }
  if (!ranks.is_array() || ranks.empty() || ids == nullptr) {
    d.emplace_back(source, "/ranks", brief(ranks),
                   fmt::format("a non-empty array of node ids{} or one of: {}", ids ? "" : " (only without a generator)",
                               fmt::join(rank_order_names(), ", ")));
    return;
  }
  std::vector<bool> used(t.nodes.size(), false);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string pointer = item("ranks", i);
    const auto n = lookup(*ids, ranks[i], source, pointer, d);
    if (!n) continue;
    const NodeKind k = t.nodes[*n].kind;
    if (k != NodeKind::Gpu && k != NodeKind::Host) {
      d.emplace_back(source, pointer, brief(ranks[i]), "a node of kind \"gpu\" or \"host\"");
    } else if (used[*n]) {
      d.emplace_back(source, pointer, brief(ranks[i]), "a node not already a rank");
    } else {
      used[*n] = true;
      t.ranks.push_back(*n);
    }
  }
}

void default_ranks(Topology& t, Diagnostics& d) {
  // Every GPU in file order; a CPU-only cluster uses its hosts.
  t.ranks = ranks_in_order(t, RankOrder::Gpus);
  if (t.ranks.empty()) t.ranks = ranks_in_order(t, RankOrder::Hosts);
  if (t.ranks.empty()) {
    d.emplace_back(t.source, "/nodes", "no gpu or host node", "at least one node of kind \"gpu\" or \"host\" to be a rank");
  }
}

}  // namespace

TopologyCheck check_topology_json(const Json& doc, const std::string& source) {
  TopologyCheck out;
  Diagnostics& d = out.errors;
  if (!doc.is_object()) {
    d.emplace_back(source, "/", brief(doc), "a JSON object");
    return out;
  }
  Topology t;
  t.source = source;
  JsonFields top(doc, source, "");
  const auto name = attempt(d, [&] { return top.optional_string("name"); });
  (void)attempt(d, [&] { return top.optional_string("description"); });
  const Json* ranks = top.optional("ranks");
  if (top.has("generator")) {
    check_keys(doc, {"name", "description", "generator", "ranks"}, source, "", d);
    auto g = read_generator(doc["generator"], source, "/generator", d);
    if (!g) return out;
    t = std::move(*g);
    t.source = source;
    if (ranks) read_ranks(*ranks, source, t, nullptr, d);
  } else {
    check_keys(doc, {"name", "description", "nodes", "links", "ranks"}, source, "", d);
    IdMap ids;
    if (auto nodes = attempt(d, [&] { return std::cref(top.array("nodes")); })) read_nodes(nodes->get(), source, t, ids, d);
    if (auto links = attempt(d, [&] { return std::cref(top.array("links")); })) read_links(links->get(), source, t, ids, d);
    if (!d.empty()) return out;
    if (ranks) {
      read_ranks(*ranks, source, t, &ids, d);
    } else {
      default_ranks(t, d);
    }
  }
  if (name && *name) t.name = **name;
  if (t.name.empty()) t.name = source;
  if (!d.empty()) return out;
  check_topology_rules(t, d);
  if (d.empty()) out.topology = std::move(t);
  return out;
}

TopologyCheck check_topology_file(const std::string& path) {
  try {
    return check_topology_json(read_json_file(path), path);
  } catch (const ConfigError& e) {
    TopologyCheck out;
    out.errors.push_back(e);
    return out;
  }
}

Topology load_topology_json(const Json& doc, const std::string& source) {
  TopologyCheck c = check_topology_json(doc, source);
  if (!c.errors.empty()) throw c.errors.front();
  return std::move(*c.topology);
}

Topology load_topology_file(const std::string& path) {
  return load_topology_json(read_json_file(path), path);
}

}  // namespace collsim
