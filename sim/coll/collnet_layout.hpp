// CollNet's layout on a topology (sim/algo/collnet.hpp says what runs): which GPU heads
// each stream on every host, the routes its heads' data takes through their NICs and the
// InfiniBand fabric, and which links of those routes each stream loads, so that every link
// of a SHARP aggregation tree carries one stream each way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/algo/collnet.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct CollNetPin {
  int src = 0, dst = 0;  // ranks
  Route route;
};

struct CollNetPlan {
  std::shared_ptr<const CollNetLayout> layout;
  // The head-to-head routes the layout's spans index: pinned while the schedule plays.
  std::vector<CollNetPin> pins;
};

// Direct (`chain` false): one stream per head, the heads the GPUs nearest the hosts' NICs
// (collnet_heads of them, NIC order, each NIC its nearest GPU not yet a head; fewest
// links, lower index on a tie). Chain: `channels` streams, channel c through the NIC of
// NCCL's ring channel c, headed by that NIC's nearest GPU, its chain the rest of the ring
// channel's order from the head. Stream q's root is host q % hosts. A head reaches the
// fabric through its stream's NIC on every host. nullopt, with the reason in `why_not`,
// where a route has no path, passes a link that is not InfiniBand between the NICs (SHARP
// runs on InfiniBand switches), meets no network switch, or is longer than 255 links.
[[nodiscard]] std::optional<CollNetPlan> collnet_plan(LinkGraph& graph, const NcclGraph& g, bool chain, int channels,
                                                      std::string* why_not);

}  // namespace collsim
