#include "sim/coll/link_scenario.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

namespace {

// Events further than this from the collective's start are surely a unit mistake.
constexpr Time kMaxEventTime = Time::from_s(3600);
constexpr std::size_t kMaxEvents = 100000;

NodeIndex node_named(const Topology& topo, JsonFields& f, std::string_view key, const std::string& id) {
  for (NodeIndex i = 0; i < topo.nodes.size(); ++i) {
    if (topo.nodes[i].id == id) return i;
  }
  f.fail(key, in_quotes(id), fmt::format("a node id of {} (collsim topo dot lists them)", topo.name));
}

LinkEvent read_event(const nlohmann::json& j, const std::string& source, std::size_t index, const Topology& topo) {
  LinkEvent e;
  e.pointer = fmt::format("/events/{}", index);
  JsonFields f(j, source, e.pointer);
  e.at = f.time("at", kMaxEventTime);
  e.file_at = e.at;
  const std::string action = f.choice("action", {"degrade", "fail", "restore"});
  e.action = action == "degrade" ? LinkAction::Degrade : action == "fail" ? LinkAction::Fail : LinkAction::Restore;
  const bool node = f.has("node"), link = f.has("link");
  if (node == link) f.fail(node ? "link" : "node", node ? brief(j.at("link")) : "nothing", "exactly one of \"node\" or \"link\"");
  if (node) {
    const NodeIndex n = node_named(topo, f, "node", f.string("node"));
    for (LinkId l = 0; l < topo.links.size(); ++l) {
      if (topo.links[l].from == n || topo.links[l].to == n) e.links.push_back(l);
    }
    e.what = fmt::format("node {}", topo.nodes[n].id);
    if (e.links.empty()) f.fail("node", in_quotes(topo.nodes[n].id), "a node with links");
  } else {
    const nlohmann::json& ends = f.required("link");
    if (!ends.is_array() || ends.size() != 2 || !ends[0].is_string() || !ends[1].is_string()) {
      f.fail("link", brief(ends), "two node ids, [\"h0/nic3\", \"leaf3\"]");
    }
    const NodeIndex a = node_named(topo, f, "link", ends[0].get<std::string>());
    const NodeIndex b = node_named(topo, f, "link", ends[1].get<std::string>());
    for (LinkId l = 0; l < topo.links.size(); ++l) {
      const auto& dl = topo.links[l];
      if ((dl.from == a && dl.to == b) || (dl.from == b && dl.to == a)) e.links.push_back(l);
    }
    e.what = fmt::format("link {} - {}", topo.nodes[a].id, topo.nodes[b].id);
    if (e.links.empty()) f.fail("link", brief(ends), "two nodes joined by a link");
  }
  if (e.action == LinkAction::Degrade) {
    e.bandwidth = f.bandwidth("bandwidth");
  } else if (f.has("bandwidth")) {
    f.fail("bandwidth", brief(j.at("bandwidth")), "no bandwidth for \"" + action + "\" (only \"degrade\" takes one)");
  }
  f.finish();
  return e;
}

}  // namespace

LinkScenario parse_link_scenario(const nlohmann::json& j, const std::string& source, const Topology& topo) {
  JsonFields top(j, source, "");
  (void)top.optional_string("description");
  const nlohmann::json& events = top.array("events");
  if (events.empty() || events.size() > kMaxEvents) {
    top.fail("events", fmt::format("{} events", events.size()), fmt::format("1 to {} events", kMaxEvents));
  }
  top.finish();
  LinkScenario s;
  s.source = source;
  for (std::size_t i = 0; i < events.size(); ++i) s.events.push_back(read_event(events[i], source, i, topo));
  std::stable_sort(s.events.begin(), s.events.end(), [](const LinkEvent& a, const LinkEvent& b) { return a.at < b.at; });
  return s;
}

LinkScenario load_link_scenario(const std::string& path, const Topology& topo) {
  return parse_link_scenario(read_json_file(path), path, topo);
}

std::vector<LinkId> route_avoiding(const Topology& topo, NodeIndex from, NodeIndex to, const std::vector<bool>& failed) {
  // Breadth-first over the links in index order: the first path found is the fewest-hop
  // one with the lowest link indices, the same on every run.
  std::vector<std::vector<LinkId>> out_links(topo.nodes.size());
  for (LinkId l = 0; l < topo.links.size(); ++l) {
    if (!failed[l]) out_links[topo.links[l].from].push_back(l);
  }
  std::vector<LinkId> via(topo.nodes.size(), static_cast<LinkId>(-1));
  std::vector<bool> seen(topo.nodes.size(), false);
  std::deque<NodeIndex> todo{from};
  seen[from] = true;
  while (!todo.empty() && !seen[to]) {
    const NodeIndex v = todo.front();
    todo.pop_front();
    if (v != from && !LinkGraph::can_transit(topo.nodes[v].kind)) continue;
    for (LinkId l : out_links[v]) {
      const NodeIndex w = topo.links[l].to;
      if (seen[w]) continue;
      seen[w] = true;
      via[w] = l;
      todo.push_back(w);
    }
  }
  std::vector<LinkId> path;
  if (!seen[to]) return path;
  for (NodeIndex v = to; v != from; v = topo.links[via[v]].from) path.push_back(via[v]);
  std::reverse(path.begin(), path.end());
  return path;
}

void throw_cut_off(const Topology& topo, const LinkScenario& scenario, const LinkEvent& event, NodeIndex from,
                   NodeIndex to, const std::vector<bool>& failed) {
  // A host is cut off when none of its nodes keeps a working link to a node outside it.
  auto cut_off = [&](NodeIndex n) -> std::optional<std::string> {
    const auto host = topo.nodes[n].host;
    if (!host) return std::nullopt;
    for (LinkId l = 0; l < topo.links.size(); ++l) {
      const auto& dl = topo.links[l];
      if (!failed[l] && topo.nodes[dl.from].host == host && topo.nodes[dl.to].host != host) return std::nullopt;
    }
    return topo.nodes[*host].id;
  };
  std::string why;
  if (auto h = cut_off(from)) {
    why = fmt::format("host {} has no working link to another host", *h);
  } else if (auto g = cut_off(to)) {
    why = fmt::format("host {} has no working link to another host", *g);
  } else {
    why = fmt::format("no working path is left from {} to {}", topo.nodes[from].id, topo.nodes[to].id);
  }
  throw ConfigError(scenario.source, event.pointer, fmt::format("{} at {}", event.what, to_string(event.file_at)),
                    fmt::format("a scenario the collective can finish in: {} (flow {} -> {})", why, topo.nodes[from].id,
                                topo.nodes[to].id));
}

LinkScenario seen_from(const LinkScenario& s, Time start, Time until) {
  LinkScenario out;
  out.source = s.source;
  if (s.events.empty() || s.events.front().at > until) return out;
  for (LinkEvent e : s.events) {
    e.at = e.at > start ? e.at - start : Time{};
    out.events.push_back(std::move(e));
  }
  return out;
}

}  // namespace collsim
