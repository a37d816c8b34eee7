// FSDP units from a workload: which consecutive layers (and their parameters) form one
// flat parameter under the auto-wrap policy. Declared in sharded_timeline.hpp.
#include <algorithm>

#include "sim/train/sharded_timeline.hpp"

namespace collsim {

namespace {

// Adds layer `l` to unit `u`: its range and the parameters no earlier unit has claimed
// (a tied parameter belongs to the first unit that uses it, as FSDP flattens it there).
void add_layer(const Workload& w, std::size_t l, ShardUnit& u, std::vector<bool>& claimed, bool first) {
  if (first) {
    u.first_layer = l;
  }
  u.first_layer = std::min(u.first_layer, l);
  u.last_layer = std::max(u.last_layer, l);
  for (std::size_t p : w.layers[l].params) {
    if (claimed[p]) continue;
    claimed[p] = true;
    u.params.push_back(p);
    u.numel += w.parameters[p].numel;
  }
}

}  // namespace

std::vector<ShardUnit> make_units(const Workload& w, const ShardingOptions& o) {
  std::vector<bool> claimed(w.parameters.size(), false);
  std::vector<ShardUnit> blocks;
  ShardUnit root;
  root.name = "root";
  root.root = true;
  bool root_has_layer = false;
  auto to_root = [&](std::size_t l) {
    add_layer(w, l, root, claimed, !root_has_layer);
    root_has_layer = true;
  };
  if (o.unit_policy == UnitPolicy::Blocks) {
    std::string_view open;
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
      const std::string_view prefix = block_prefix(w.layers[l].name);
      if (prefix.empty()) {
        open = {};
        to_root(l);
        continue;
      }
      const bool fresh = open != prefix;
      if (fresh) {
        blocks.push_back(ShardUnit{});
        blocks.back().name = std::string(prefix.substr(0, prefix.size() - (prefix.back() == '.' ? 1 : 0)));
        open = prefix;
      }
      add_layer(w, l, blocks.back(), claimed, fresh);
    }
  } else {
    // size_based_auto_wrap_policy: wrap consecutive layers once they hold >= min_unit_params;
    // a tail below the threshold stays with the root.
    std::size_t start = 0;
    std::int64_t pending = 0;
    std::vector<bool> counted(w.parameters.size(), false);
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
      for (std::size_t p : w.layers[l].params) {
        if (!counted[p]) pending += w.parameters[p].numel;
        counted[p] = true;
      }
      if (pending >= o.min_unit_params) {
        blocks.push_back(ShardUnit{});
        blocks.back().name = "unit" + std::to_string(blocks.size() - 1);
        for (std::size_t k = start; k <= l; ++k) add_layer(w, k, blocks.back(), claimed, k == start);
        start = l + 1;
        pending = 0;
      }
    }
    for (std::size_t k = start; k < w.layers.size(); ++k) to_root(k);
  }
  // Parameters no layer lists still live in the model: the root flattens them.
  for (std::size_t p = 0; p < w.parameters.size(); ++p) {
    if (!claimed[p]) {
      claimed[p] = true;
      root.params.push_back(p);
      root.numel += w.parameters[p].numel;
    }
  }
  std::erase_if(blocks, [](const ShardUnit& u) { return u.numel == 0; });
  std::vector<ShardUnit> units;
  if (root.numel > 0) units.push_back(std::move(root));
  for (auto& b : blocks) units.push_back(std::move(b));
  return units;
}

}  // namespace collsim
