#include "sim/topo/host_cpu.hpp"

namespace collsim {

CpuArch cpu_arch(HostCpu c) {
  switch (c) {
    case HostCpu::Arm: return CpuArch::Arm;
    case HostCpu::Power: return CpuArch::Power;
    default: return CpuArch::X86;
  }
}

CpuVendor cpu_vendor(HostCpu c) {
  switch (c) {
    case HostCpu::IntelBroadwell:
    case HostCpu::IntelSkylake:
    case HostCpu::IntelSapphireRapids:
    case HostCpu::IntelEmeraldRapids: return CpuVendor::Intel;
    case HostCpu::Amd: return CpuVendor::Amd;
    case HostCpu::Zhaoxin:
    case HostCpu::ZhaoxinYongfeng: return CpuVendor::Zhaoxin;
    case HostCpu::Arm:
    case HostCpu::Power: return CpuVendor::None;
  }
  return CpuVendor::None;
}

double nccl_inter_cpu_gbps(HostCpu c) {
  // topo.h: BDW_QPI_BW 6, SKL_QPI_BW 10, SRP_QPI_BW 22, ERP_QPI_BW 40, AMD_BW 16, ZPI_BW 6,
  // YONGFENG_ZPI_BW 9, P9_BW 32, ARM_BW 6.
  switch (c) {
    case HostCpu::IntelBroadwell: return 6.0;
    case HostCpu::IntelSkylake: return 10.0;
    case HostCpu::IntelSapphireRapids: return 22.0;
    case HostCpu::IntelEmeraldRapids: return 40.0;
    case HostCpu::Amd: return 16.0;
    case HostCpu::Zhaoxin: return 6.0;
    case HostCpu::ZhaoxinYongfeng: return 9.0;
    case HostCpu::Power: return 32.0;
    case HostCpu::Arm: return 6.0;
  }
  return 6.0;
}

std::optional<HostCpu> nccl_x86_cpu(std::string_view vendor, int family, int model) {
  if (vendor == "GenuineIntel") {
    if (family == 6 && model >= 0xCF) return HostCpu::IntelEmeraldRapids;
    if (family == 6 && model >= 0x8F) return HostCpu::IntelSapphireRapids;
    if (family == 6 && model >= 0x55) return HostCpu::IntelSkylake;
    return HostCpu::IntelBroadwell;
  }
  if (vendor == "AuthenticAMD") return HostCpu::Amd;
  if (vendor == "CentaurHauls" || vendor == "  Shanghai  ") {
    return family == 7 && model == 0x5B ? HostCpu::ZhaoxinYongfeng : HostCpu::Zhaoxin;
  }
  return std::nullopt;
}

}  // namespace collsim
