// Plan files (plans/*.json). Workloads and topologies a plan names are looked up beside
// the shipped plans, as `collsim plan` does for a plan in plans/.
#include "sim/core/json_fields.hpp"
#include "sim/plan/plan.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::parse_plan(collsim::parse_json_text(text, collsim::fuzz::kSource), collsim::fuzz::kSource,
                              COLLSIM_SOURCE_DIR "/plans");
  });
}
