// NCCL's CollNet all-reduce (NCCL_COLLNET_ENABLE=1 with a CollNet plugin, SHARP on
// InfiniBand switches; connect.cc connectCollNet, the collnetChain setup in
// ncclTopoPreset, all_reduce.h runCollNetDirect / runCollNetChain):
//
// - Direct (collnet_direct): each host's heads are the GPUs nearest its NICs, one per NIC
//   (at most 8). The buffer is split over the heads; every GPU sends its share of head
//   j's block to head j over NVLink (a direct reduce-scatter onto the heads), head j
//   sends the host's partial sum of block j into the fabric through its NIC, the
//   switches add the hosts' streams (SHARP) and return the sum to every host's head j,
//   which copies it to its host's other GPUs.
// - Chain (collnet_chain): per channel, one head (the GPU nearest the channel's NIC) and
//   a chain through the host's other GPUs: the chain's tail sends its share up the chain,
//   each GPU adds its own and passes it on to the head, which sends it into the fabric;
//   the sum comes back to the head and goes down the chain.
//
// In the fabric a stream's links are those of the aggregation tree: the union of the
// routes from every host's head to the root host's head (InfiniBand routes depend on the
// destination alone, so that union is a tree), each link carrying one stream, and the
// union of the routes from the root's head back to every head for the result. A
// schedule builder sees no routes, so sim/coll computes them (collnet_layout.hpp) and
// hands them over as CollNetLayout: each head's contribution loads the links of its route
// to the root up to where it merges into a stream already there (TransferLeg::Span), and
// each head's result the links of the root's route to it from where it leaves the
// streams already going down. Without a layout (no topology: `collsim schedule`) the
// fabric is one switch: a contribution loads its route but the last link (ToSwitch), a
// result the last link only (FromSwitch), as `sharp` on a star of hosts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/algo/algorithm_info.hpp"

namespace collsim {

extern const AlgorithmInfo kCollNetDirectAlgorithm;
extern const AlgorithmInfo kCollNetChainAlgorithm;

// NCCL runs CollNet on at most NCCL_MAX_DIRECT_ARITY + 1 = 8 GPUs per node (enqueue.cc).
inline constexpr int kCollNetMaxLocalRanks = 8;

// CollNet Direct's heads per host: one per NIC (each its nearest GPU), as many as the
// host's GPUs at most, 8 at most (connect.cc, search.cc ncclTopoSearchTryCollnetDirect).
[[nodiscard]] constexpr int collnet_heads(std::size_t nics, int ppn) {
  const int n = static_cast<int>(std::min<std::size_t>(nics, 64));
  return std::max(1, std::min({n, ppn, kCollNetMaxLocalRanks}));
}

// Whether `algo` is collnet_direct or collnet_chain: laid on the fabric's SHARP trees,
// which needs a CollNetLayout from the topology (the flat `sharp` does not).
[[nodiscard]] bool lays_sharp_trees(std::string_view algo);

// A stream's links of a route: [first, second).
using RouteSpan = std::pair<std::uint8_t, std::uint8_t>;

struct CollNetStream {
  // Per host (in host order): the local positions (index into the host's ranks, ascending)
  // of the stream's head and, for Chain, of the chain from the head down (head first).
  int head = 0;
  std::vector<int> chain;
  int root = 0;  // the host whose head the stream's sums converge on
  // Per host: the links of route(head of host k -> head of root) its contribution loads,
  // and of route(head of root -> head of host k) its result loads; the root's own are
  // unused. Empty vectors: one switch (no layout: ToSwitch / FromSwitch legs).
  std::vector<RouteSpan> up, down;
  // Per host: the host whose stream its contribution merged into (-1: the root, or a
  // stream that reaches the root itself).
  std::vector<int> merges_into;
};

struct CollNetLayout {
  std::vector<CollNetStream> streams;  // Direct: one per head; Chain: one per channel
};

// The layout of `streams` streams with every host's j-th GPU heading stream j (Direct) or
// chain j (Chain: the chain runs on from the head through the host's other GPUs in order),
// the root host j % hosts, one switch between the hosts: the form used without a topology.
[[nodiscard]] CollNetLayout collnet_default_layout(int hosts, int ppn, int streams, bool chain);

}  // namespace collsim
