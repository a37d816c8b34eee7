// The names of DDP's settings, one vocabulary for the command line, plan files and
// measurement records: communication hooks ("none", "fp16", "bf16", "powersgd:R") and
// process-group backends ("nccl", "gloo").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/train/ddp_timeline.hpp"

namespace collsim {

// A hook, its PowerSGD rank (1 for the others) and the 1-bit hook's full-precision
// warm-up steps (0 for the others).
struct CommHookChoice {
  CommHook hook = CommHook::None;
  int powersgd_rank = 1;
  int onebit_warmup = 0;
};

// "none", "fp16", "bf16", "powersgd:R" with a rank R from 1 to 999999, or "onebit" /
// "onebit:W" with W full-precision warm-up steps from 0 to 999999999.
[[nodiscard]] std::optional<CommHookChoice> comm_hook_from(std::string_view s);
// --iteration as a step number: "steady" is step 1, "0" the first iteration (construction
// buckets), N >= 1 a steady step with step N's unused parameters; nullopt otherwise.
[[nodiscard]] std::optional<std::int64_t> iteration_step(std::string_view s);
inline constexpr std::string_view kExpectedIteration = "0, steady or a step number from 1 to 2^31 - 1";

inline constexpr std::string_view kExpectedCommHook =
    "one of: none, fp16, bf16, powersgd:R (a rank R >= 1, e.g. powersgd:4), onebit or onebit:W (W >= 0 warm-up steps, "
    "e.g. onebit:1000)";


}  // namespace collsim
