// The figures `collsim topo show` prints: node counts, GPUs by model, links by kind,
// NICs per host, per-GPU injection bandwidth by link class and the bisection bandwidth.
// Bandwidths are payload bytes/s per direction.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct LinkKindStats {
  LinkKind kind = LinkKind::Pcie;
  int links = 0;            // directed links (a duplex link counts twice)
  int lanes = 0;            // over all directed links
  Bandwidth min_rate, max_rate;  // payload rate of one directed link
};

// What one rank can push out of itself at once, per link class.
struct Injection {
  Bandwidth nvlink;  // over its NVLink / NVSwitch links
  Bandwidth pcie;    // over its PCIe links
  Bandwidth net;     // its share of its own NIC's network links (a host: all its NICs)
  auto operator<=>(const Injection&) const = default;
};

struct TopologySummary {
  std::string name;
  int ranks = 0;
  std::map<std::string, int> node_counts;    // by node kind name
  std::map<std::string, int> gpus_by_model;  // "" for a GPU without a model
  std::vector<LinkKindStats> links;          // kinds present, in enum order
  int min_nics_per_host = 0, max_nics_per_host = 0;
  Time max_net_latency;             // the largest NIC plugin latency (Node::net_latency)
  Injection first_rank_injection;   // rank 0's
  bool uniform_injection = true;    // every rank the same as rank 0
  Bandwidth bisection;              // see bisection.hpp
};

[[nodiscard]] Injection injection_of(const Topology& t, NodeIndex rank_node);
[[nodiscard]] TopologySummary summarize(const Topology& t);

}  // namespace collsim
