// What an NCCL topology dump (NCCL_TOPO_DUMP_FILE; schema of NCCL's src/graph/xml.cc and
// topo.cc, <system version="1">) says about one machine: CPUs, the PCIe tree under them
// (switches, GPUs, NICs with link generation and width), GPUs' NVLinks, NICs' speeds.
// Speeds as NCCL writes them: NIC speed in Mb/s, PCIe in GT/s per lane. Every attribute
// the importer needs is checked here; errors are ConfigErrors naming file, line, element
// and attribute.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/topo/xml_reader.hpp"

namespace collsim {

struct NcclPcieLink {
  int generation = 4;  // from link_speed: 8 GT/s = 3, 16 = 4, 32 = 5
  int width = 16;      // lanes, from link_width
};

struct NcclCpu {
  std::string numaid;
  std::string arch;    // "x86_64", "arm64", "ppc64"; empty when not written
  std::string vendor;  // "GenuineIntel", "AuthenticAMD"; empty when not written (non-x86)
  int family = 0;      // CPUID family and model, decimal as NCCL writes them
  int model = 0;
  int line = 0;
};

enum class NcclDeviceKind : std::uint8_t { PcieSwitch, Gpu, Nic };

struct NcclNvLink {
  std::string target;  // bus id of the other end
  int count = 1;       // NVLinks to it
  bool to_nvswitch = false;  // tclass 0x068000; otherwise a GPU (tclass 0x03xxxx)
  int line = 0;
};

// One <pci> element that collsim turns into a node: a PCIe switch, a GPU or one NIC port.
struct NcclDevice {
  NcclDeviceKind kind = NcclDeviceKind::Gpu;
  std::string busid;
  int cpu = 0;                // index into NcclSystem::cpus
  std::optional<int> parent;  // index of the PCIe switch above; nullopt: the CPU's root complex
  NcclPcieLink link;          // this element's link to its parent
  std::string pci_device;     // "device" attribute ("0x20b2"); empty when not written
  int line = 0;
  // GPU only
  int dev = 0;  // CUDA device index
  int sm = 0;   // compute capability x 10 (80 = A100)
  std::vector<NcclNvLink> nvlinks;
  // NIC only (one <net>: one port)
  std::string net_name;
  int net_dev = 0;
  double speed_mbps = 0.0;
  double net_latency_us = 0.0;  // <net latency="...">: what the net plugin reported (0 for IB)
};

struct NcclSystem {
  std::vector<NcclCpu> cpus;
  std::vector<NcclDevice> devices;  // in file order; parents before children
};

// Reads the root <system version="1"> element of a dump; `source` names the file.
[[nodiscard]] NcclSystem read_nccl_system(const XmlElement& root, const std::string& source);

}  // namespace collsim
