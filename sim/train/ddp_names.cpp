#include "sim/train/ddp_names.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {
constexpr std::string_view kPowerSgdPrefix = "powersgd:";
}  // namespace

std::optional<CommHookChoice> comm_hook_from(std::string_view s) {
  if (s.starts_with(kPowerSgdPrefix)) {
    const std::string_view r = s.substr(kPowerSgdPrefix.size());
    if (r.empty() || r.size() > 6 || r.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    int rank = 0;
    for (char c : r) rank = rank * 10 + (c - '0');
    if (rank < 1) return std::nullopt;
    return CommHookChoice{CommHook::PowerSgd, rank};
  }
  const auto h = enum_from<CommHook>(s);
  if (!h || *h == CommHook::PowerSgd) return std::nullopt;  // PowerSGD needs its rank
  return CommHookChoice{*h, 1};
}

}  // namespace collsim
