#include "sim/coll/nccl_env.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "sim/algo/collnet.hpp"
#include "sim/algo/in_network.hpp"
#include "sim/algo/registry.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

constexpr std::array<std::string_view, 9> kKnobs{"NCCL_ALGO",        "NCCL_PROTO",       "NCCL_MIN_NCHANNELS",
                                                 "NCCL_MAX_NCHANNELS", "NCCL_NVLS_ENABLE", "NCCL_CROSS_NIC",
                                                 "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",   "NCCL_NET_GDR_LEVEL"};

// Calls f(a's knob, b's knob, its variable name) for every knob of NcclEnv.
template <typename F>
void each_knob(NcclEnv& a, const NcclEnv& b, F f) {
  f(a.algo, b.algo, "NCCL_ALGO");
  f(a.proto, b.proto, "NCCL_PROTO");
  f(a.min_channels, b.min_channels, "NCCL_MIN_NCHANNELS");
  f(a.max_channels, b.max_channels, "NCCL_MAX_NCHANNELS");
  f(a.nvls, b.nvls, "NCCL_NVLS_ENABLE");
  f(a.cross_nic, b.cross_nic, "NCCL_CROSS_NIC");
  f(a.p2p_disable, b.p2p_disable, "NCCL_P2P_DISABLE");
  f(a.p2p_level, b.p2p_level, "NCCL_P2P_LEVEL");
  f(a.gdr_level, b.gdr_level, "NCCL_NET_GDR_LEVEL");
}

std::vector<std::string_view> split_on(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A NCCL list ("Ring,Tree", "^NVLS") translated name by name; `name_of` returns the
// collsim name or an empty string for a name NCCL has and collsim does not model.
template <typename NameOf>
std::string translate_list(std::string_view value, std::string_view option, std::string_view variable,
                           std::string_view expected, NameOf name_of) {
  auto fail = [&](std::string_view why) {
    throw ConfigError(std::string(option), std::string(variable), in_quotes(value),
                      fmt::format("{}{}", expected, why));
  };
  if (value.find(':') != std::string_view::npos || value.find(';') != std::string_view::npos) {
    fail(" (per-collective lists such as \"allreduce:tree\" are not modelled: give one list for every collective)");
  }
  std::string_view body = value;
  std::string out;
  if (!body.empty() && body.front() == '^') {
    out.push_back('^');
    body.remove_prefix(1);
  }
  bool first = true;
  for (std::string_view entry : split_on(body, ',')) {
    const std::string key = to_lower(entry);
    if (key.empty()) fail(" (an empty entry)");
    const std::string name = name_of(key);
    if (name.empty()) fail(fmt::format(" (\"{}\" is an NCCL choice collsim does not model)", entry));
    if (name == "?") fail(fmt::format(" (unknown \"{}\")", entry));
    out += (first ? "" : ",") + name;
    first = false;
  }
  return out;
}

int env_integer(std::string_view value, std::string_view option, std::string_view variable, int lo, int hi,
            std::string_view expected) {
  int v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc{} || end != value.data() + value.size() || v < lo || v > hi) {
    throw ConfigError(std::string(option), std::string(variable), in_quotes(value), std::string(expected));
  }
  return v;
}

}  // namespace

bool NcclEnv::empty() const {
  return !algo && !proto && !min_channels && !max_channels && !nvls && !cross_nic && !p2p_disable && !p2p_level &&
         !gdr_level;
}

std::string nccl_algo_list(std::string_view value, std::string_view option) {
  return translate_list(value, option, "NCCL_ALGO", "Ring, Tree, NVLS, NVLSTree, CollNet, PAT, a comma list or ^list",
                        [](const std::string& k) -> std::string {
                          // NCCL's name -> the collsim algorithm that reproduces it.
                          std::optional<NcclAlgorithm> a;
                          if (k == "ring") a = NcclAlgorithm::Ring;
                          if (k == "tree") a = NcclAlgorithm::Tree;
                          if (k == "nvls") a = NcclAlgorithm::Nvls;
                          // CollNet: NCCL's two (and, on a star of hosts, collsim's flat SHARP).
                          if (k == "collnetdirect") return std::string(kCollNetDirectAlgorithm.name);
                          if (k == "collnetchain") return std::string(kCollNetChainAlgorithm.name);
                          if (k == "collnet") {
                            return fmt::format("{},{},{}", kCollNetDirectAlgorithm.name, kCollNetChainAlgorithm.name,
                                               kSharpAlgorithm.name);
                          }
                          if (k == "nvlstree") a = NcclAlgorithm::NvlsTree;
                          if (k == "pat") a = NcclAlgorithm::Pat;
                          if (!a) return "?";
                          for (const std::string& name : algorithm_names()) {
                            if (nccl_counterpart(name) == *a) return name;
                          }
                          return "";
                        });
}

std::string nccl_proto_list(std::string_view value, std::string_view option) {
  return translate_list(value, option, "NCCL_PROTO", "LL, LL128, Simple, a comma list or ^list",
                        [](const std::string& k) -> std::string {
                          if (k == "ll" || k == "ll128" || k == "simple") return k;
                          return "?";
                        });
}

void set_nccl_variable(NcclEnv& env, const std::string& name, std::string_view value, std::string_view option) {
  if (name == "NCCL_ALGO") {
    env.algo = nccl_algo_list(value, option);
  } else if (name == "NCCL_PROTO") {
    env.proto = nccl_proto_list(value, option);
  } else if (name == "NCCL_MIN_NCHANNELS") {
    env.min_channels = env_integer(value, option, name, 0, 64, "an integer from 0 to 64 (MAXCHANNELS)");
  } else if (name == "NCCL_MAX_NCHANNELS") {
    env.max_channels = env_integer(value, option, name, 1, 64, "an integer from 1 to 64 (MAXCHANNELS)");
  } else if (name == "NCCL_NVLS_ENABLE") {
    env.nvls = env_integer(value, option, name, 0, 2, "0 (off), 1 (on) or 2 (on where supported)") != 0;
  } else if (name == "NCCL_CROSS_NIC") {
    env.cross_nic = env_integer(value, option, name, 0, 2, "0 (same NIC in and out), 1 (any NIC) or 2 (try 0, then 1)");
  } else if (name == "NCCL_P2P_DISABLE") {
    env.p2p_disable = env_integer(value, option, name, 0, 1, "0 or 1 (no P2P between GPUs)") == 1;
  } else if (name == "NCCL_P2P_LEVEL" || name == "NCCL_NET_GDR_LEVEL") {
    const bool p2p = name == "NCCL_P2P_LEVEL";
    const auto level = nccl_level_from(value, p2p);
    if (!level) {
      throw ConfigError(std::string(option), name, in_quotes(value),
                        fmt::format("a path type: {}PIX, PXB, PHB or SYS (or NCCL's legacy 0 LOC, 1 PIX, 2 PXB, "
                                    "3 PHB, 4 SYS)", p2p ? "LOC, NVL, " : "LOC, "));
    }
    (p2p ? env.p2p_level : env.gdr_level) = level;
  } else {
    throw ConfigError(std::string(option), name, in_quotes(value), fmt::format("one of {}", fmt::join(kKnobs, ", ")));
  }
}

bool is_nccl_knob(std::string_view name) { return std::find(kKnobs.begin(), kKnobs.end(), name) != kKnobs.end(); }

NcclEnv parse_nccl_env(std::string_view text, std::string_view option) {
  NcclEnv env;
  std::vector<std::string> seen;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const std::string_view pair = text.substr(i, j - i);
    i = j;
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw ConfigError(std::string(option), "", in_quotes(pair), "NAME=VALUE pairs such as NCCL_ALGO=Ring");
    }
    const std::string name(pair.substr(0, eq));
    const std::string_view value = pair.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      throw ConfigError(std::string(option), name, in_quotes(value), "each variable once");
    }
    seen.push_back(name);
    set_nccl_variable(env, name, value, option);
  }
  return env;
}

NcclEnv merge_nccl_env(const NcclEnv& a, const NcclEnv& b, std::string_view option) {
  NcclEnv out = a;
  each_knob(out, b, [&](auto& into, const auto& from, const char* name) {
    if (!from) return;
    if (into && *into != *from) {
      throw ConfigError(std::string(option), name, "two different values", "one value, given once");
    }
    into = from;
  });
  return out;
}

bool sets_knob(const NcclEnv& env, std::string_view name) {
  NcclEnv unused;
  bool set = false;
  each_knob(unused, env, [&](auto&, const auto& from, const char* n) { set = set || (n == name && from.has_value()); });
  return set;
}

NcclEnv overlay_nccl_env(const NcclEnv& base, const NcclEnv& over) {
  NcclEnv out = base;
  each_knob(out, over, [](auto& into, const auto& from, const char*) {
    if (from) into = from;
  });
  return out;
}

void apply_nccl_env(const NcclEnv& env, ProtocolModel& model) {
  if (env.min_channels) model.min_nchannels = *env.min_channels;
  if (env.max_channels) model.max_nchannels = *env.max_channels;
  if (env.nvls) model.nvls_enabled = *env.nvls;
  if (env.cross_nic) model.cross_nic = *env.cross_nic;
  // ncclGetLevel: NCCL_P2P_DISABLE=1 wins over NCCL_P2P_LEVEL.
  if (env.p2p_level) model.transports.p2p_level = env.p2p_level;
  if (env.p2p_disable.value_or(false)) model.transports.p2p_level = PathType::Loc;
  if (env.gdr_level) model.transports.gdr_level = env.gdr_level;
}

NcclSearchOptions nccl_search_options(const ProtocolModel& model) {
  NcclSearchOptions o;
  o.cross_nic = model.cross_nic;
  o.transports = model.transports;
  return o;
}

int nccl_run_channels(int searched, const ProtocolModel& model) {
  int n = searched;
  if (model.max_nchannels) n = std::min(n, *model.max_nchannels);
  if (model.min_nchannels) n = std::max(n, *model.min_nchannels);
  return std::max(1, n);
}

}  // namespace collsim
