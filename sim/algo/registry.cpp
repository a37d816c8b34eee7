#include "sim/algo/registry.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/algo/bintree.hpp"
#include "sim/algo/direct.hpp"
#include "sim/algo/halving_doubling.hpp"
#include "sim/algo/hier_ring.hpp"
#include "sim/algo/in_network.hpp"
#include "sim/algo/parameter_server.hpp"
#include "sim/algo/recursive_doubling.hpp"
#include "sim/algo/ring.hpp"
#include "sim/algo/tree.hpp"

namespace collsim {

namespace {

using Op = CollectiveOp;

struct Entry {
  std::string_view name;
  std::vector<Op> ops;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> kEntries{
      {"ring", {Op::AllReduce, Op::ReduceScatter, Op::AllGather, Op::Broadcast, Op::Reduce}},
      {"tree", {Op::AllReduce}},
      {"bintree", {Op::AllReduce, Op::Reduce, Op::Broadcast}},
      {"ps", {Op::AllReduce}},
      {"ps_sharded", {Op::AllReduce}},
      {"hier_ring", {Op::AllReduce}},
      {"rhd", {Op::AllReduce}},
      {"rd", {Op::AllReduce}},
      {"direct", {Op::AllReduce, Op::ReduceScatter, Op::AllGather, Op::Broadcast, Op::Reduce, Op::AllToAll}},
      {"nvls", {Op::AllReduce}},
      {"sharp", {Op::AllReduce}},
  };
  return kEntries;
}

}  // namespace

std::vector<std::string> algorithm_names() {
  std::vector<std::string> out;
  for (const auto& e : entries()) out.emplace_back(e.name);
  return out;
}

bool is_algorithm(std::string_view name) {
  for (const auto& e : entries()) {
    if (e.name == name) return true;
  }
  return false;
}

bool supports(std::string_view algo, CollectiveOp op) {
  for (const auto& e : entries()) {
    if (e.name != algo) continue;
    for (Op o : e.ops) {
      if (o == op) return true;
    }
  }
  return false;
}

bool needs_even_hosts(std::string_view algo) { return algo == "hier_ring"; }

Schedule build_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt) {
  if (!is_algorithm(algo)) throw std::invalid_argument(fmt::format("unknown algorithm \"{}\"", algo));
  if (!supports(algo, c.op)) {
    throw std::invalid_argument(fmt::format("algorithm \"{}\" does not implement {}", algo, to_string(c.op)));
  }
  if (c.ranks < 1 || c.root < 0 || c.root >= c.ranks) {
    throw std::invalid_argument(fmt::format("root {} outside 0..{}", c.root, c.ranks - 1));
  }
  if (algo == "ring") return ring_schedule(c, opt);
  if (algo == "tree") return double_binary_tree_allreduce(c, opt);
  if (algo == "bintree") return binary_heap_tree(c, opt);
  if (algo == "ps") return parameter_server_allreduce(c, opt);
  if (algo == "ps_sharded") return sharded_parameter_server_allreduce(c, opt);
  if (algo == "hier_ring") return hierarchical_ring_allreduce(c, opt);
  if (algo == "rhd") return halving_doubling_allreduce(c, opt);
  if (algo == "rd") return recursive_doubling_allreduce(c, opt);
  if (algo == "direct") return direct_schedule(c, opt);
  return in_network_allreduce(c, std::string(algo), opt);
}

}  // namespace collsim
