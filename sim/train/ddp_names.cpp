#include "sim/train/ddp_names.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {
constexpr std::string_view kPowerSgdPrefix = "powersgd:";
}  // namespace

namespace {

// Digits only, at most `max_digits` (<= 10) of them, at most 2^31 - 1; nullopt otherwise.
std::optional<int> digits(std::string_view r, std::size_t max_digits) {
  if (r.empty() || r.size() > max_digits || r.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  std::int64_t v = 0;
  for (char c : r) v = v * 10 + (c - '0');
  if (v > INT32_MAX) return std::nullopt;
  return static_cast<int>(v);
}

constexpr std::string_view kOneBitPrefix = "onebit:";

}  // namespace

std::optional<std::int64_t> iteration_step(std::string_view s) {
  if (s == "steady") return 1;
  return digits(s, 10);
}

std::optional<CommHookChoice> comm_hook_from(std::string_view s) {
  if (s.starts_with(kPowerSgdPrefix)) {
    const auto rank = digits(s.substr(kPowerSgdPrefix.size()), 6);
    if (!rank || *rank < 1) return std::nullopt;
    return CommHookChoice{CommHook::PowerSgd, *rank, 0};
  }
  if (s.starts_with(kOneBitPrefix)) {
    const auto warmup = digits(s.substr(kOneBitPrefix.size()), 9);
    if (!warmup) return std::nullopt;
    return CommHookChoice{CommHook::OneBit, 1, *warmup};
  }
  const auto h = enum_from<CommHook>(s);
  if (!h || *h == CommHook::PowerSgd) return std::nullopt;  // PowerSGD needs its rank
  return CommHookChoice{*h, 1, 0};
}

}  // namespace collsim
