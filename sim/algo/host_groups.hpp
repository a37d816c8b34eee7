// Ranks grouped by host: which ranks share a server, in rank order, and hosts in order of
// their first rank. Hierarchical algorithms (tree chains, hierarchical ring) use it.
#pragma once

#include <vector>

namespace collsim {

struct HostGroups {
  std::vector<std::vector<int>> ranks;  // per host, its ranks ascending
  std::vector<int> host;                // per rank, its host index
  std::vector<int> local;               // per rank, its index within its host

  [[nodiscard]] int hosts() const { return static_cast<int>(ranks.size()); }
  // Same number of ranks on every host.
  [[nodiscard]] bool even() const;
};

// `host_of_rank` labels (any integers; empty: each rank alone) for `ranks` ranks.
[[nodiscard]] HostGroups group_by_host(int ranks, const std::vector<int>& host_of_rank);

// Labels for `ranks` ranks on `hosts` hosts in contiguous blocks whose sizes differ by at
// most one (the first ranks % hosts hosts get one more).
[[nodiscard]] std::vector<int> block_hosts(int ranks, int hosts);

}  // namespace collsim
