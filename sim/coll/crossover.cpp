#include "sim/coll/crossover.hpp"

namespace collsim {

std::vector<Crossover> find_crossovers(LinkGraph& graph, const std::vector<CollectivePrediction>& rows,
                                       const CollectiveRequest& request) {
  std::vector<Crossover> out;
  auto same = [](const CollectivePrediction& a, const CollectivePrediction& b) {
    return a.algorithm == b.algorithm && a.protocol == b.protocol;
  };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const CollectivePrediction& a = rows[i - 1];
    const CollectivePrediction& b = rows[i];
    if (same(a, b)) continue;
    std::int64_t lo = a.collective.size.count;
    std::int64_t hi = b.collective.size.count;
    while (hi - lo > std::max<std::int64_t>(1, lo / 1000)) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      Collective c = a.collective;
      c.size = Bytes{mid};
      const CollectivePrediction p = predict_collective(graph, c, request);
      if (same(p, b)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    out.push_back(Crossover{a.algorithm, b.algorithm, a.protocol, b.protocol, Bytes{hi}});
  }
  return out;
}

}  // namespace collsim
