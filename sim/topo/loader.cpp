#include "sim/topo/loader.hpp"

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"
#include "sim/topo/explicit_json.hpp"
#include "sim/topo/generator_json.hpp"
#include "sim/topo/rank_order.hpp"
#include "sim/topo/topology_rules.hpp"

namespace collsim {

namespace {

using JsonValue = nlohmann::json;
using IdMap = NodeIdMap;


void read_ranks(const JsonValue& ranks, const std::string& source, Topology& t, const IdMap* ids, Diagnostics& d) {
  if (ranks.is_string()) {
    const auto order = enum_from<RankOrder>(ranks.get<std::string>());
    if (!order) {
      d.emplace_back(source, "/ranks", brief(ranks),
                     fmt::format("an array of node ids or one of: {}", fmt::join(enum_names<RankOrder>(), ", ")));
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
                               fmt::join(enum_names<RankOrder>(), ", ")));
    return;
  }
  std::vector<bool> used(t.nodes.size(), false);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string pointer = element_pointer("ranks", i);
    const auto n = lookup_node(*ids, ranks[i], source, pointer, d);
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

TopologyCheck check_topology_json(const JsonValue& doc, const std::string& source) {
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
  (void)attempt(d, [&] { return top.optional_string("collsim_version"); });  // who wrote it (topo import-nccl)
  const JsonValue* ranks = top.optional("ranks");
  if (top.has("generator")) {
    check_keys(doc, {"name", "description", "collsim_version", "generator", "ranks"}, source, "", d);
    auto g = read_generator(doc["generator"], source, "/generator", d);
    if (!g) return out;
    t = std::move(*g);
    t.source = source;
    if (ranks) read_ranks(*ranks, source, t, nullptr, d);
  } else {
    check_keys(doc, {"name", "description", "collsim_version", "nodes", "links", "ranks"}, source, "", d);
    IdMap ids;
    if (auto nodes = attempt(d, [&] { return std::cref(top.array("nodes")); })) read_nodes(nodes->get(), source, "", t, ids, d);
    if (auto links = attempt(d, [&] { return std::cref(top.array("links")); })) read_links(links->get(), source, "", t, ids, d);
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

Topology load_topology_json(const JsonValue& doc, const std::string& source) {
  TopologyCheck c = check_topology_json(doc, source);
  if (!c.errors.empty()) throw c.errors.front();
  return std::move(*c.topology);
}

Topology load_topology_file(const std::string& path) {
  return load_topology_json(read_json_file(path), path);
}

}  // namespace collsim
