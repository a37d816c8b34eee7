// A cluster of DGX A100 hosts on one 200 Gb/s star switch, for the NCCL tuning tests: its
// EPYC sockets, or (`cpu`, a server block's cpu key) other host CPUs such as AWS p4d's Xeons.
#pragma once

#include <string_view>

#include <fmt/format.h>

#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"

namespace collsim::test {

inline Topology dgx_a100_hosts(int hosts, std::string_view cpu = "epyc-7002") {
  return load_topology_json(
      parse_json_text(fmt::format(R"({{"generator": {{"kind": "cluster", "hosts": {}, "server": {{"kind": "dgx_a100",
                      "cpu": "{}"}}, "fabric": {{"kind": "star", "nic_bandwidth": "200Gbps"}}}}}})",
                                  hosts, cpu),
                      "t.json"),
      "t.json");
}

}  // namespace collsim::test
