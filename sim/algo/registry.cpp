#include "sim/algo/registry.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/algo/parameter_server.hpp"
#include "sim/algo/ring.hpp"

namespace collsim {

std::vector<std::string> algorithm_names() { return {"ring", "ps"}; }

bool is_algorithm(std::string_view name) {
  for (const auto& a : algorithm_names()) {
    if (a == name) return true;
  }
  return false;
}

bool supports(std::string_view algo, CollectiveOp op) {
  if (algo == "ring" || algo == "ps") return op == CollectiveOp::AllReduce;
  return false;
}

Schedule build_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt) {
  if (!is_algorithm(algo)) {
    throw std::invalid_argument(fmt::format("unknown algorithm \"{}\"", algo));
  }
  if (!supports(algo, c.op)) {
    throw std::invalid_argument(fmt::format("algorithm \"{}\" does not implement {}", algo, to_string(c.op)));
  }
  if (algo == "ring") return ring_allreduce(c, opt.ring_order);
  return parameter_server_allreduce(c);
}

}  // namespace collsim
