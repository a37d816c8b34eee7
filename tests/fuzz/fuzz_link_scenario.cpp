// A link scenario (collsim collective --scenario) read against one DGX H100 host on a
// small rail fabric, so that node ids like "h0/nic3" resolve.
#include "sim/coll/link_scenario.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const collsim::Topology topo =
      collsim::load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/4x-dgx-h100-rail-8x400g-ib.json");
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::parse_link_scenario(collsim::parse_json_text(text, collsim::fuzz::kSource), collsim::fuzz::kSource,
                                       topo);
  });
}
