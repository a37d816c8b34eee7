#include "sim/train/parallel_layout.hpp"

#include <fmt/format.h>

namespace collsim {

int ParallelLayout::rank(int t, int p, int d) const {
  return order == PlacementOrder::TpDpPp ? t + tp * (d + dp * p) : t + tp * (p + pp * d);
}

std::vector<std::vector<int>> ParallelLayout::tp_groups() const {
  std::vector<std::vector<int>> out;
  for (int p = 0; p < pp; ++p) {
    for (int d = 0; d < dp; ++d) {
      auto& g = out.emplace_back();
      for (int t = 0; t < tp; ++t) g.push_back(rank(t, p, d));
    }
  }
  return out;
}

std::vector<std::vector<int>> ParallelLayout::dp_groups(int stage) const {
  std::vector<std::vector<int>> out;
  for (int t = 0; t < tp; ++t) {
    auto& g = out.emplace_back();
    for (int d = 0; d < dp; ++d) g.push_back(rank(t, stage, d));
  }
  return out;
}

std::vector<std::vector<int>> ParallelLayout::stage_pairs(int stage) const {
  std::vector<std::vector<int>> out;
  for (int d = 0; d < dp; ++d) {
    for (int t = 0; t < tp; ++t) out.push_back({rank(t, stage, d), rank(t, stage + 1, d)});
  }
  return out;
}

std::vector<std::vector<int>> ParallelLayout::ep_groups(int stage) const {
  std::vector<std::vector<int>> out;
  for (int t = 0; t < tp; ++t) {
    for (int d0 = 0; d0 < dp; d0 += ep) {
      auto& g = out.emplace_back();
      for (int d = d0; d < d0 + ep && d < dp; ++d) g.push_back(rank(t, stage, d));
    }
  }
  return out;
}

std::vector<std::vector<int>> ParallelLayout::expert_dp_groups(int stage) const {
  std::vector<std::vector<int>> out;
  for (int t = 0; t < tp; ++t) {
    for (int e = 0; e < ep; ++e) {
      auto& g = out.emplace_back();
      for (int d = e; d < dp; d += ep) g.push_back(rank(t, stage, d));
    }
  }
  return out;
}

std::vector<std::vector<int>> ParallelLayout::embedding_pairs() const {
  std::vector<std::vector<int>> out;
  for (int d = 0; d < dp; ++d) {
    for (int t = 0; t < tp; ++t) out.push_back({rank(t, 0, d), rank(t, pp - 1, d)});
  }
  return out;
}

std::string ParallelLayout::label() const {
  std::string s = fmt::format("tp{} pp{} dp{}", tp, pp, dp);
  if (virtual_stages > 1) s += fmt::format(" v{}", virtual_stages);
  if (ep > 1) s += fmt::format(" ep{}", ep);
  return s;
}

}  // namespace collsim
