// Unit strings of the command line and the input files: "400Gbps", "1.5us", "64MiB",
// size lists "1KiB:1GiB", and --nccl-env's "NCCL_ALGO=Ring NCCL_MIN_NCHANNELS=16". The
// first byte picks the parser, the rest is the text.
#include "sim/coll/nccl_env.hpp"
#include "sim/core/size_list.hpp"
#include "sim/core/unit_parse.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t which = data[0] % 5;
  return collsim::fuzz::run_parser(data + 1, size - 1, [which](const std::string& text) {
    switch (which) {
      case 0: (void)collsim::parse_bandwidth(text); break;
      case 1: (void)collsim::parse_time(text); break;
      case 2: (void)collsim::parse_size(text); break;
      case 3: (void)collsim::parse_size_list(text, 2.0); break;
      default: (void)collsim::parse_nccl_env(text, "--nccl-env"); break;
    }
  });
}
