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

// A hook and its PowerSGD rank (1 for the others).
struct CommHookChoice {
  CommHook hook = CommHook::None;
  int powersgd_rank = 1;
};

// "none", "fp16", "bf16" or "powersgd:R" with a rank R from 1 to 999999.
[[nodiscard]] std::optional<CommHookChoice> comm_hook_from(std::string_view s);
inline constexpr std::string_view kExpectedCommHook = "one of: none, fp16, bf16, powersgd:R (a rank R >= 1, e.g. powersgd:4)";


}  // namespace collsim
