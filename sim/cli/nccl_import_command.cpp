// `collsim topo import-nccl DUMP.xml [-o OUT] [--nodes K --fabric KIND[,key=value...]]`:
// an NCCL topology dump (NCCL_TOPO_DUMP_FILE) as a collsim topology file, one host or K
// hosts on a generated fabric. The output is checked by the topology loader before it is
// written; same input, same bytes.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/fabric_generators.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_topo_import.hpp"

namespace collsim::cli {

namespace {

struct ImportArgs {
  std::string file;
  std::string output;
  std::optional<int> nodes;
  std::string fabric;
  std::optional<std::string> gpu_model;
  std::string name;
};

// "KIND[,key=value...]": a cluster generator's fabric object. Integers and numbers are
// typed here; unit strings and ranges are checked by the topology loader.
nlohmann::ordered_json parse_fabric(const std::string& text) {
  nlohmann::ordered_json f;
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1) {
    parts.push_back(text.substr(start, comma - start));
  }
  parts.push_back(text.substr(start));
  const auto kinds = enum_names<FabricKind>();
  if (std::find(kinds.begin(), kinds.end(), parts.front()) == kinds.end()) {
    throw ConfigError("--fabric", "KIND", in_quotes(parts.front()), fmt::format("one of: {}", fmt::join(kinds, ", ")));
  }
  f["kind"] = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    const std::string key = parts[i].substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
    const bool is_int = key == "mtu" || key == "nics_per_leaf" || key == "spines";
    const bool is_string = key == "link_kind" || key == "nic_bandwidth" || key == "latency";
    if (eq == std::string::npos || value.empty() || (!is_int && !is_string && key != "oversubscription")) {
      throw ConfigError("--fabric", "", in_quotes(parts[i]),
                        "key=value with a key among link_kind, nic_bandwidth, latency, mtu, nics_per_leaf, spines, oversubscription");
    }
    try {
      std::size_t used = 0;
      if (is_int) {
        f[key] = std::stoll(value, &used);
      } else if (is_string) {
        f[key] = value;
        used = value.size();
      } else {
        f[key] = std::stod(value, &used);
      }
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::logic_error&) {
      throw ConfigError("--fabric", key, in_quotes(value), is_int ? "an integer" : "a number");
    }
  }
  return f;
}

void run_import(const ImportArgs& a) {
  if (a.nodes.has_value() != !a.fabric.empty()) {
    throw ConfigError(a.nodes ? "--fabric" : "--nodes", "", "", "--nodes K and --fabric KIND together (a cluster), or neither (one host)");
  }
  std::optional<NcclClusterOptions> cluster;
  if (a.nodes) {
    if (*a.nodes < 1 || *a.nodes > 100000) throw ConfigError("--nodes", "", std::to_string(*a.nodes), "a host count from 1 to 100000");
    cluster = NcclClusterOptions{*a.nodes, parse_fabric(a.fabric)};
  }
  const XmlElement root = read_xml_file(a.file);
  const ImportedNcclHost host = import_nccl_host(read_nccl_system(root, a.file), a.file, NcclImportOptions{a.gpu_model});
  const std::filesystem::path path(a.file);
  const std::string name = a.name.empty() ? path.stem().string() : a.name;
  const nlohmann::ordered_json doc = nccl_topology_json(host, name, path.filename().string(), cluster);
  const std::string text = doc.dump(2) + "\n";
  // The loader checks what a user would load: the same text, every rule.
  (void)load_topology_json(nlohmann::json::parse(text), fmt::format("{} (imported)", a.file));
  if (a.output.empty()) {
    std::cout << text;
    return;
  }
  write_file_atomically(a.output, text, "-o");
}

}  // namespace

void add_import_nccl_command(CLI::App& topo) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = topo.add_subcommand(
      "import-nccl", "An NCCL topology dump (NCCL_TOPO_DUMP_FILE, XML) as a collsim topology: one host, or K on a fabric");
  cmd->add_option("FILE", args->file, "NCCL topology dump (XML)")->required();
  cmd->add_option("-o,--output", args->output, "Write the topology here (default: stdout)");
  cmd->add_option("--nodes", args->nodes, "Replicate the host K times (needs --fabric)");
  cmd->add_option("--fabric", args->fabric,
                  "KIND[,key=value...]: star, fat_tree or rail_optimized, with link_kind, nic_bandwidth (default: the "
                  "dump's NIC speed), latency, mtu, nics_per_leaf, spines, oversubscription");
  cmd->add_option("--gpu-model", args->gpu_model, "GPU model when the dump's SM and PCI device id do not say it");
  cmd->add_option("--name", args->name, "Topology name (default: FILE's name without extension)");
  cmd->callback([args] { run_import(*args); });
}

}  // namespace collsim::cli
