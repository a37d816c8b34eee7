// Where the automatic choice changes: between two sizes whose predicted-fastest
// (algorithm, protocol) differ, bisects for the smallest size (to 0.1 %) at which the
// larger size's choice wins.
#pragma once

#include <string>
#include <vector>

#include "sim/coll/predict.hpp"

namespace collsim {

struct Crossover {
  std::string from_algorithm, to_algorithm;
  Protocol from_protocol = Protocol::Ideal, to_protocol = Protocol::Ideal;
  Bytes at;  // smallest size found that picks the `to` choice
};

// `rows`: predictions for increasing sizes of one collective with `request`.
[[nodiscard]] std::vector<Crossover> find_crossovers(LinkGraph& graph, const std::vector<CollectivePrediction>& rows,
                                                     const CollectiveRequest& request);

}  // namespace collsim
