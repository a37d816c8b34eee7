// Turns an NCCL topology dump (read by nccl_xml_system.hpp) into a collsim topology file:
// one host as explicit nodes and links, or K copies of it on a generated fabric. What the
// dump cannot say (link latencies, socket-link rates, per-NVLink rates) comes from the
// constants the shipped server generators use (server_generators.hpp). Bandwidths in the
// output are per lane with units; latencies with units.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"
#include "sim/topo/nccl_xml_system.hpp"

namespace collsim {

struct NcclImportOptions {
  // Names the GPU model when the dump's SM and PCI device id cannot; must fit the SM.
  std::optional<std::string> gpu_model;
};

// One host in collsim's explicit form, plus what a fabric needs from it.
struct ImportedNcclHost {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  std::vector<Bandwidth> nic_speeds;  // line rate of each NIC port, in NIC (rail) order
  std::string summary;                // "8 x A100 (SM 80), 8 NICs, ...", for the description
};

// `source` names the dump in errors (unknown GPU, CPU without a known socket link, ...).
[[nodiscard]] ImportedNcclHost import_nccl_host(const NcclSystem& system, const std::string& source,
                                        const NcclImportOptions& options);

struct NcclClusterOptions {
  int hosts = 1;
  nlohmann::ordered_json fabric;  // a cluster generator's "fabric" object; nic_bandwidth
                                  // defaults to the hosts' common NIC speed
};

// The topology file: explicit nodes and links for one host, or a cluster generator with an
// explicit server. Throws ConfigError (source "--fabric") when a cluster needs a NIC
// speed the dump does not settle.
[[nodiscard]] nlohmann::ordered_json nccl_topology_json(const ImportedNcclHost& host, const std::string& name,
                                                        const std::string& source,
                                                        const std::optional<NcclClusterOptions>& cluster);

// A bandwidth as short text that parses back to the same value: "25GB/s", or "200Gbps"
// when `in_bits` (network speeds); bytes/s when neither is exact.
[[nodiscard]] std::string exact_bandwidth_text(Bandwidth b, bool in_bits = false);

}  // namespace collsim
