// Topology files (topologies/*.json): JSON text, then the loader, its generators and its
// route and reachability checks.
//
// Generators accept clusters of up to 100,000 hosts, which take seconds to build in a
// Release build and minutes under the sanitizers: a fuzzer that grows "hosts" would spend
// its time building big fabrics, not finding parser defects. Inputs whose size fields
// exceed kMaxScale are passed over here; the large sizes are exercised by the topology
// benchmark (scripts/bench_topology.sh) and the shipped 16,384- and 131,072-GPU files.
#include <array>
#include <string_view>

#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

namespace {

constexpr std::int64_t kMaxScale = 64;
constexpr std::array<std::string_view, 6> kScaleKeys = {"hosts", "gpus", "spines", "nics_per_leaf", "lanes", "nics"};

bool too_big(const nlohmann::json& j) {
  if (j.is_array()) {
    for (const auto& v : j) {
      if (too_big(v)) return true;
    }
  } else if (j.is_object()) {
    for (const auto& [key, v] : j.items()) {
      for (const auto k : kScaleKeys) {
        if (key == k && v.is_number() && v.get<double>() > kMaxScale) return true;
      }
      if (too_big(v)) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    const auto doc = collsim::parse_json_text(text, collsim::fuzz::kSource);
    if (too_big(doc)) return;
    (void)collsim::check_topology_json(doc, collsim::fuzz::kSource);
  });
}
