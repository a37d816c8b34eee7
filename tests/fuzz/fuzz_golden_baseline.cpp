// Golden baselines of `collsim check` (results/golden/*.json).
#include "sim/measure/golden_baseline.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::parse_golden_baseline(text, collsim::fuzz::kSource);
  });
}
