// Calibration files written by `validate --calibrate` and read by --calibration.
#include "sim/core/json_fields.hpp"
#include "sim/coll/calibration.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::parse_calibration(collsim::parse_json_text(text, collsim::fuzz::kSource), collsim::fuzz::kSource);
  });
}
