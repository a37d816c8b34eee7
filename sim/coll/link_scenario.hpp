// Link and NIC events played during a collective: a scenario file lists timed events
// (degrade a link or every link of a node to a bandwidth, fail them, restore them), times
// from the collective's start (ps). A failed link's flows move to the fewest-hop path that
// avoids every failed link (a GPU falls back to another NIC of its host, the fabric to
// another spine); a flow with no such path ends the collective with an error naming the
// host that is cut off.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"
#include "sim/topo/link_id.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

enum class LinkAction : std::uint8_t { Degrade, Fail, Restore };

struct LinkEvent {
  Time at;
  Time file_at;  // as the file gives it (`at` is moved when a step's collective sees it)
  LinkAction action = LinkAction::Fail;
  std::vector<LinkId> links;  // both directions of the named link, or every link of the node
  Bandwidth bandwidth;        // Degrade: each link's new payload rate
  std::string what;           // "node h0/nic3", "link h0/nic3 - leaf3", for messages
  std::string pointer;        // "/events/2"
};

struct LinkScenario {
  std::string source;
  std::vector<LinkEvent> events;  // by time; events at the same time in file order
};

// {"description": "...", (optional)
//  "events": [{"at": "20us", "action": "fail", "node": "h0/nic3"},
//             {"at": "0s", "action": "degrade", "link": ["h1/nic0", "leaf0"], "bandwidth": "100Gbps"},
//             {"at": "1ms", "action": "restore", "node": "h0/nic3"}]}
// Node ids as the topology names them (`collsim topo dot` lists them). Throws ConfigError
// naming the file, the field's pointer, the value and what was expected.
[[nodiscard]] LinkScenario parse_link_scenario(const nlohmann::json& j, const std::string& source, const Topology& topo);
[[nodiscard]] LinkScenario load_link_scenario(const std::string& path, const Topology& topo);

// The scenario as seen by a collective that starts at `start`: every event moved earlier by
// `start`, those before it to 0 (in their order, so the links are as they were at
// `start`). Empty when nothing happens at or before `until` (the collective's healthy end):
// the collective runs on the healthy links.
[[nodiscard]] LinkScenario seen_from(const LinkScenario& s, Time start, Time until);

// The fewest-hop path from `from` to `to` over links not `failed`, through switch-like
// nodes only (LinkGraph's transit rule); ties go to the lower link index. Empty if none.
[[nodiscard]] std::vector<LinkId> route_avoiding(const Topology& topo, NodeIndex from, NodeIndex to,
                                                 const std::vector<bool>& failed);

// The error for a flow from `from` to `to` that no path is left for after `event`: names
// the host that has no working link out (or the pair when both hosts still have one).
[[noreturn]] void throw_cut_off(const Topology& topo, const LinkScenario& scenario, const LinkEvent& event,
                                NodeIndex from, NodeIndex to, const std::vector<bool>& failed);

}  // namespace collsim
