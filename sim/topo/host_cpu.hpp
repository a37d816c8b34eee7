// A host CPU as NCCL classifies it (src/graph/topo.cc: ncclTopoGetCpuType, the "arch",
// "vendor" and "familyid"/"modelid" of its <cpu> element): the architecture, the x86
// vendor, and for Intel and Zhaoxin the generation NCCL keys its inter-socket bandwidth on
// (GB/s, topo.h). NCCL's tuning and transport choices that depend on it are in
// sim/coll (net overhead, LL cap row, P2P level, Intel root-complex overhead).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/core/name_table.hpp"

namespace collsim {

// NCCL's classes: Intel by CPUID model (family 6): >= 0xCF Emerald Rapids (ERP), >= 0x8F
// Sapphire Rapids (SRP), >= 0x55 Skylake (SKL: Skylake, Cascade Lake, Ice Lake), else
// Broadwell (BDW); Zhaoxin Yongfeng is family 7 model 0x5B; every AMD x86 CPU is one class;
// ARM and POWER are architectures NCCL does not split further.
enum class HostCpu : std::uint8_t {
  IntelBroadwell,
  IntelSkylake,
  IntelSapphireRapids,
  IntelEmeraldRapids,
  Amd,
  Zhaoxin,
  ZhaoxinYongfeng,
  Arm,
  Power
};
template <>
inline constexpr auto kEnumNames<HostCpu> =
    names_in_order<HostCpu>({"intel-broadwell", "intel-skylake", "intel-sapphire-rapids", "intel-emerald-rapids", "amd",
                             "zhaoxin", "zhaoxin-yongfeng", "arm", "power"});

enum class CpuArch : std::uint8_t { X86, Arm, Power };
enum class CpuVendor : std::uint8_t { Intel, Amd, Zhaoxin, None };  // None: not x86

[[nodiscard]] CpuArch cpu_arch(HostCpu c);
[[nodiscard]] CpuVendor cpu_vendor(HostCpu c);

// NCCL's bandwidth of the link between two sockets of this CPU (ncclTopoGetInterCpuBw,
// GB/s per direction): BDW 6, SKL 10, SRP 22, ERP 40, AMD 16, Zhaoxin 6, Yongfeng 9,
// POWER9 32, ARM 6.
[[nodiscard]] double nccl_inter_cpu_gbps(HostCpu c);

// NCCL's class of an x86 CPU from its CPUID vendor string ("GenuineIntel",
// "AuthenticAMD", "CentaurHauls" or "  Shanghai  "), family and model; nullopt for another
// vendor.
[[nodiscard]] std::optional<HostCpu> nccl_x86_cpu(std::string_view vendor, int family, int model);

}  // namespace collsim
