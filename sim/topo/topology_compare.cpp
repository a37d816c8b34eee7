#include "sim/topo/topology_compare.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace collsim {

namespace {

std::string node_class(const Node& n) {
  std::string c = n.model.empty() ? std::string(to_string(n.kind)) : fmt::format("{} ({})", to_string(n.kind), n.model);
  if (n.net_latency > Time{}) c += fmt::format(" (net latency {} us)", n.net_latency.us());
  if (n.memory_bandwidth.bytes_per_s > 0) c += fmt::format(" (memory {:.9g} GB/s)", n.memory_bandwidth.gb_per_s());
  if (n.platform) c += fmt::format(" ({})", to_string(*n.platform));
  return c;
}

// A link without its endpoints: kind, lanes, rates, latency, MTU.
std::string describe_link_class(const DirectedLink& l) {
  return fmt::format("{} {} lane{} of {:.9g} GB/s payload ({:.9g} GB/s line rate in all), {} ps{}", to_string(l.kind),
                     l.lanes, l.lanes == 1 ? "" : "s", l.bandwidth.gb_per_s() / l.lanes, l.line_rate.gb_per_s(),
                     l.latency.ps, l.mtu ? fmt::format(", MTU {}", l.mtu) : "");
}

using Counts = std::map<std::string, int>;

void diff_counts(const Counts& a, const Counts& b, const std::string& what, std::vector<std::string>& out) {
  std::map<std::string, std::pair<int, int>> both;
  for (const auto& [k, n] : a) both[k].first = n;
  for (const auto& [k, n] : b) both[k].second = n;
  for (const auto& [k, n] : both) {
    if (n.first != n.second) out.push_back(fmt::format("{} {}: {} in the first, {} in the second", what, k, n.first, n.second));
  }
}

// Colour refinement over both topologies with one shared table of labels.
class Refinement {
 public:
  Refinement(const Topology& a, const Topology& b) : t_{&a, &b} {
    for (int s = 0; s < 2; ++s) {
      colours_[s].resize(t_[s]->nodes.size());
      rank_of_[s].assign(t_[s]->nodes.size(), -1);
      for (std::size_t r = 0; r < t_[s]->ranks.size(); ++r) rank_of_[s][t_[s]->ranks[r]] = static_cast<int>(r);
      for (std::size_t i = 0; i < colours_[s].size(); ++i) {
        const Node& n = t_[s]->nodes[i];
        colours_[s][i] = label(fmt::format("{}{}", node_class(n), rank_of_[s][i] >= 0 ? " rank" : ""));
      }
    }
  }

  // Refines until no class splits; returns the first round whose class counts differ
  // (0 = the initial labels), or -1 when the final colourings agree.
  int run() {
    std::size_t classes = 0;
    for (int round = 0;; ++round) {
      if (histogram(0) != histogram(1)) return round;
      if (table_.size() == classes || round > static_cast<int>(t_[0]->nodes.size()) + 1) return -1;
      classes = table_.size();
      step();
    }
  }

  [[nodiscard]] std::map<int, int> histogram(int s) const {
    std::map<int, int> h;
    for (int c : colours_[s]) ++h[c];
    return h;
  }
  [[nodiscard]] int colour(int s, NodeIndex n) const { return colours_[s][n]; }

 private:
  const Topology* t_[2];
  std::vector<int> colours_[2];
  std::vector<int> rank_of_[2];
  std::map<std::string, int> table_;

  int label(const std::string& signature) { return table_.emplace(signature, static_cast<int>(table_.size())).first->second; }

  void step() {
    std::vector<std::string> sig[2];
    for (int s = 0; s < 2; ++s) {
      const Topology& t = *t_[s];
      std::vector<std::vector<std::string>> around(t.nodes.size());
      for (const DirectedLink& l : t.links) {
        around[l.from].push_back(fmt::format("out {} to {}", describe_link_class(l), colours_[s][l.to]));
        around[l.to].push_back(fmt::format("in {} from {}", describe_link_class(l), colours_[s][l.from]));
      }
      for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        std::sort(around[i].begin(), around[i].end());
        const Node& n = t.nodes[i];
        sig[s].push_back(fmt::format("{}|host {}|nic {}|{}", colours_[s][i], n.host ? colours_[s][*n.host] : -1,
                                     n.nic ? colours_[s][*n.nic] : -1, fmt::join(around[i], ";")));
      }
    }
    // Labels are given in sorted signature order, so they do not depend on node order.
    std::vector<std::string> all(sig[0]);
    all.insert(all.end(), sig[1].begin(), sig[1].end());
    std::sort(all.begin(), all.end());
    table_.clear();
    for (const std::string& x : all) label(x);
    for (int s = 0; s < 2; ++s) {
      for (std::size_t i = 0; i < sig[s].size(); ++i) colours_[s][i] = table_.at(sig[s][i]);
    }
  }
};

// A node and its links, for a message.
std::string describe_node(const Topology& t, NodeIndex n) {
  Counts around;
  for (const DirectedLink& l : t.links) {
    if (l.from == n) ++around[fmt::format("{} to a {}", describe_link_class(l), node_class(t.nodes[l.to]))];
  }
  std::vector<std::string> parts;
  for (const auto& [k, c] : around) parts.push_back(fmt::format("{} x {}", c, k));
  return fmt::format("{} \"{}\" with links: {}", node_class(t.nodes[n]), t.nodes[n].id, fmt::join(parts, "; "));
}

}  // namespace

std::vector<std::string> topology_differences(const Topology& a, const Topology& b) {
  std::vector<std::string> out;
  Counts na, nb, la, lb;
  for (const Node& n : a.nodes) ++na[node_class(n)];
  for (const Node& n : b.nodes) ++nb[node_class(n)];
  diff_counts(na, nb, "nodes", out);
  for (const DirectedLink& l : a.links) ++la[fmt::format("{} -> {}: {}", to_string(a.nodes[l.from].kind), to_string(a.nodes[l.to].kind), describe_link_class(l))];
  for (const DirectedLink& l : b.links) ++lb[fmt::format("{} -> {}: {}", to_string(b.nodes[l.from].kind), to_string(b.nodes[l.to].kind), describe_link_class(l))];
  diff_counts(la, lb, "directed links", out);
  if (a.ranks.size() != b.ranks.size()) out.push_back(fmt::format("ranks: {} in the first, {} in the second", a.ranks.size(), b.ranks.size()));
  if (!out.empty()) return out;

  Refinement r(a, b);
  const int round = r.run();
  if (round >= 0) {
    const auto ha = r.histogram(0);
    const auto hb = r.histogram(1);
    for (NodeIndex n = 0; n < a.nodes.size(); ++n) {
      const int c = r.colour(0, n);
      const int in_b = hb.count(c) ? hb.at(c) : 0;
      if (ha.at(c) != in_b) {
        out.push_back(fmt::format("structure: {} nodes in the first and {} in the second are placed like {} (after {} round{} "
                                  "of neighbourhood refinement)",
                                  ha.at(c), in_b, describe_node(a, n), round, round == 1 ? "" : "s"));
        return out;
      }
    }
    out.push_back("structure: the neighbourhoods of the two topologies differ");
    return out;
  }
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    if (r.colour(0, a.ranks[i]) != r.colour(1, b.ranks[i])) {
      out.push_back(fmt::format("rank {}: {} in the first is placed unlike {} in the second", i, describe_node(a, a.ranks[i]),
                                describe_node(b, b.ranks[i])));
      return out;
    }
  }
  return out;
}

}  // namespace collsim
