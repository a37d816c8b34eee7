// nccl-tests output (validate --nccl-tests, the importer): tables, headers, footers.
#include "sim/measure/nccl_tests_log.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::parse_nccl_tests_log(text, collsim::fuzz::kSource);
  });
}
