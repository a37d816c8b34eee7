#include "sim/train/ddp_names.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {
constexpr auto kHookNames = name_table<CommHook>(
    {{CommHook::None, "none"}, {CommHook::Fp16, "fp16"}, {CommHook::Bf16, "bf16"}, {CommHook::PowerSgd, "powersgd"}});
constexpr auto kBackendNames = name_table<DdpBackend>({{DdpBackend::Nccl, "nccl"}, {DdpBackend::Gloo, "gloo"}});
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
  const auto h = kHookNames.parse(s);
  if (!h || *h == CommHook::PowerSgd) return std::nullopt;  // PowerSGD needs its rank
  return CommHookChoice{*h, 1};
}

std::string_view to_string(CommHook h) { return kHookNames.name(h); }

std::string_view to_string(DdpBackend b) { return kBackendNames.name(b); }
std::optional<DdpBackend> ddp_backend_from(std::string_view s) { return kBackendNames.parse(s); }
std::vector<std::string> ddp_backend_names() { return kBackendNames.names(); }

}  // namespace collsim
