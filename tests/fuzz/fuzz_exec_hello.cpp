// collsim-exec's hello, the first bytes a listening rank reads from anyone who connects:
// the fixed header with the token, then the run-parameters text that is compared with
// this rank's own. The socket handling around it is covered by tests/cli/exec_hostile_peer.sh.
#include <cstring>

#include "sim/exec/handshake.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

namespace {

const std::string kToken = "fuzz-token-0123456789abcdef";
const std::string kMine = "version 0.5.0\n--op allreduce\n--algo ring\n--sizes 1048576\n--warmup 1\n--iters 5\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  collsim::exec::Hello h;
  if (size < sizeof h) return 0;
  std::memcpy(&h, data, sizeof h);
  return collsim::fuzz::run_parser(data + sizeof h, size - sizeof h, [&h](const std::string& params) {
    if (!collsim::exec::token_matches(h, kToken)) return;
    (void)collsim::exec::params_differences(params, kMine);
  });
}
