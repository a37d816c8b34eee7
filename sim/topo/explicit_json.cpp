#include "sim/topo/explicit_json.hpp"

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/link_overhead.hpp"
#include "sim/topo/net_transport.hpp"
#include "sim/topo/topology_rules.hpp"

namespace collsim {

std::optional<NodeIndex> lookup_node(const NodeIdMap& ids, const nlohmann::json& v, const std::string& source,
                                     const std::string& pointer, Diagnostics& diags) {
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

void read_nodes(const nlohmann::json& nodes, const std::string& source, const std::string& pointer, Topology& t, NodeIdMap& ids,
                Diagnostics& d) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string base = pointer + element_pointer("nodes", i);
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
    const auto kind = attempt(d, [&] { return f.choice("kind", enum_names<NodeKind>()); });
    if (kind) t.nodes[n].kind = *enum_from<NodeKind>(*kind);
    if (auto model = attempt(d, [&] { return f.optional_string("model"); }); model && *model) {
      const GpuSpec* gpu = find_gpu(**model);
      t.nodes[n].model = gpu != nullptr ? std::string(gpu->name) : **model;  // the catalogue's spelling
      if (kind && t.nodes[n].kind != NodeKind::Gpu) {
        d.emplace_back(source, base + "/model", in_quotes(**model), "no model except on a gpu node");
      } else if (gpu == nullptr) {
        d.emplace_back(source, base + "/model", in_quotes(**model),
                       fmt::format("a GPU model, one of: {}", fmt::join(gpu_names(), ", ")));
      }
    }
    if (auto lat = attempt(d, [&] { return optional_net_latency(f, "net_latency"); }); lat && *lat) {
      t.nodes[n].net_latency = (*lat)->latency;
      t.nodes[n].net_gpu_direct = (*lat)->gpu_direct;
      if (kind && t.nodes[n].kind != NodeKind::Nic) {
        d.emplace_back(source, base + "/net_latency", brief(nodes[i]["net_latency"]), "no net_latency except on a nic node");
      }
    }
    if (auto mem = attempt(d, [&] { return f.optional_bandwidth("memory_bandwidth"); }); mem && *mem) {
      t.nodes[n].memory_bandwidth = **mem;
      if (kind && t.nodes[n].kind != NodeKind::Cpu) {
        d.emplace_back(source, base + "/memory_bandwidth", brief(nodes[i]["memory_bandwidth"]),
                       "no memory_bandwidth except on a cpu node");
      }
    }
    if (auto platform = attempt(d, [&] { return f.optional_string("platform"); }); platform && *platform) {
      if (kind && t.nodes[n].kind != NodeKind::Cpu) {
        d.emplace_back(source, base + "/platform", in_quotes(**platform), "no platform except on a cpu node");
      } else if (const auto c = enum_from<HostCpu>(**platform)) {
        t.nodes[n].platform = *c;
      } else {
        d.emplace_back(source, base + "/platform", in_quotes(**platform),
                       fmt::format("a CPU as NCCL classifies it, one of: {}", fmt::join(enum_names<HostCpu>(), ", ")));
      }
    }
    (void)f.optional("host");  // resolved below, once every id is known
    (void)f.optional("nic");
    check_keys(nodes[i], {"id", "kind", "model", "host", "nic", "net_latency", "memory_bandwidth", "platform"}, source, base, d);
  }
  // Second pass: host membership and a GPU's own NIC, which may name later nodes.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].is_object()) continue;
    Node& node = t.nodes[i];
    if (const auto it = nodes[i].find("host"); it != nodes[i].end()) {
      const std::string at = pointer + element_pointer("nodes", i) + "/host";
      if (auto h = lookup_node(ids, *it, source, at, d)) {
        if (t.nodes[*h].kind != NodeKind::Host) {
          d.emplace_back(source, at, brief(*it), "the id of a node of kind \"host\"");
        } else if (node.kind == NodeKind::Host) {
          d.emplace_back(source, at, brief(*it), "no host on a node that is itself a host");
        } else {
          node.host = *h;
        }
      }
    }
    if (const auto it = nodes[i].find("nic"); it != nodes[i].end()) {
      const std::string at = pointer + element_pointer("nodes", i) + "/nic";
      if (auto n = lookup_node(ids, *it, source, at, d)) {
        if (node.kind != NodeKind::Gpu) {
          d.emplace_back(source, at, brief(*it), "no nic except on a gpu node");
        } else if (t.nodes[*n].kind != NodeKind::Nic) {
          d.emplace_back(source, at, brief(*it), "the id of a node of kind \"nic\"");
        } else {
          node.nic = *n;
        }
      }
    }
  }
}

void read_links(const nlohmann::json& links, const std::string& source, const std::string& pointer, Topology& t, const NodeIdMap& ids,
                Diagnostics& d) {
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string base = pointer + element_pointer("links", i);
    if (!links[i].is_object()) {
      d.emplace_back(source, base, brief(links[i]), "a JSON object");
      continue;
    }
    JsonFields f(links[i], source, base);
    const std::size_t before = d.size();
    std::optional<NodeIndex> a, b;
    if (auto ends = attempt(d, [&] { return std::cref(f.required("endpoints")); })) {
      const nlohmann::json& e = ends->get();
      if (!e.is_array() || e.size() != 2) {
        d.emplace_back(source, base + "/endpoints", brief(e), "an array of two node ids");
      } else {
        a = lookup_node(ids, e[0], source, base + "/endpoints/0", d);
        b = lookup_node(ids, e[1], source, base + "/endpoints/1", d);
        if (a && b && *a == *b) d.emplace_back(source, base + "/endpoints", brief(e), "two different nodes");
      }
    }
    const auto kind = attempt(d, [&] { return f.choice("kind", enum_names<LinkKind>()); });
    const auto rate = attempt(d, [&] { return f.bandwidth("bandwidth"); });
    const auto lat = attempt(d, [&] { return f.time("latency", kMaxLatency); });
    const auto duplex = attempt(d, [&] { return f.boolean("duplex", true); });
    const auto lanes = attempt(d, [&] { return f.optional_integer("lanes", 1, 1024); });
    const auto mtu = attempt(d, [&] { return f.optional_integer("mtu", kMinMtu, kMaxMtu); });
    const LinkKind k = kind ? *enum_from<LinkKind>(*kind) : LinkKind::Pcie;
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

}  // namespace collsim
