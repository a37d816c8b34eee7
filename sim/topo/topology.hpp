// A cluster as data: nodes (GPUs, switches, NICs, hosts...), directed links with
// bandwidth (bytes/s) and latency (ps), and the ranks (which nodes run the collective).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

enum class NodeKind : std::uint8_t { Gpu, NvSwitch, PcieSwitch, Cpu, Nic, Switch, Host };
enum class LinkKind : std::uint8_t { NvLink, NvSwitch, Pcie, Ib, Roce, Ethernet };

[[nodiscard]] std::string_view to_string(NodeKind k);
[[nodiscard]] std::string_view to_string(LinkKind k);
[[nodiscard]] std::optional<NodeKind> node_kind_from(std::string_view s);
[[nodiscard]] std::optional<LinkKind> link_kind_from(std::string_view s);
[[nodiscard]] std::vector<std::string> node_kind_names();
[[nodiscard]] std::vector<std::string> link_kind_names();

using NodeIndex = std::uint32_t;

struct Node {
  std::string id;
  NodeKind kind = NodeKind::Gpu;
  std::string model;                  // GPU model ("H100"), empty when not stated
  std::optional<NodeIndex> host;      // the host (server) this node belongs to, if any
};

// One direction of a physical link.
struct DirectedLink {
  NodeIndex from = 0;
  NodeIndex to = 0;
  LinkKind kind = LinkKind::Ethernet;
  Bandwidth bandwidth;   // payload bytes/s this direction can carry
  Time latency;          // one-way propagation + switching latency
};

struct Topology {
  std::string name;
  std::string source;                 // file it came from, or "built-in:..."
  std::vector<Node> nodes;
  std::vector<DirectedLink> links;
  std::vector<NodeIndex> ranks;       // rank r runs on node ranks[r]

  [[nodiscard]] int rank_count() const { return static_cast<int>(ranks.size()); }
  [[nodiscard]] std::optional<NodeIndex> find(std::string_view id) const;
  // Adds both directions with the same bandwidth and latency.
  void add_duplex(NodeIndex a, NodeIndex b, LinkKind kind, Bandwidth bw, Time latency);
  NodeIndex add_node(std::string id, NodeKind kind, std::string model = {});
};

}  // namespace collsim
