#include "sim/algo/host_groups.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim {

bool HostGroups::even() const {
  for (const auto& g : ranks) {
    if (g.size() != ranks.front().size()) return false;
  }
  return true;
}

HostGroups group_by_host(int ranks, const std::vector<int>& host_of_rank) {
  if (!host_of_rank.empty() && static_cast<int>(host_of_rank.size()) != ranks) {
    throw std::invalid_argument(fmt::format("host labels for {} ranks given for {}", host_of_rank.size(), ranks));
  }
  HostGroups g;
  g.host.resize(static_cast<std::size_t>(ranks));
  g.local.resize(static_cast<std::size_t>(ranks));
  std::map<int, int> index;  // label -> host index, in order of first appearance
  for (int r = 0; r < ranks; ++r) {
    const int label = host_of_rank.empty() ? r : host_of_rank[static_cast<std::size_t>(r)];
    const auto [it, fresh] = index.try_emplace(label, static_cast<int>(g.ranks.size()));
    if (fresh) g.ranks.emplace_back();
    g.host[static_cast<std::size_t>(r)] = it->second;
    g.local[static_cast<std::size_t>(r)] = static_cast<int>(g.ranks[static_cast<std::size_t>(it->second)].size());
    g.ranks[static_cast<std::size_t>(it->second)].push_back(r);
  }
  return g;
}

std::vector<int> block_hosts(int ranks, int hosts) {
  if (hosts < 1 || hosts > ranks) {
    throw std::invalid_argument(fmt::format("{} hosts for {} ranks: need 1..{}", hosts, ranks, ranks));
  }
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(ranks));
  for (int h = 0; h < hosts; ++h) {
    const int count = ranks / hosts + (h < ranks % hosts ? 1 : 0);
    for (int i = 0; i < count; ++i) out.push_back(h);
  }
  return out;
}

}  // namespace collsim
