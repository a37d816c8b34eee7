// The measurement harness's JSON-lines records (collective and DDP measurements).
#include "sim/measure/measurement.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::parse_harness_records(text, collsim::fuzz::kSource, ".");
  });
}
