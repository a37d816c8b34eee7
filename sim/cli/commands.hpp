// The collsim subcommands. Each registers its options and its action on the app.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/report/collective_table.hpp"
#include "sim/topo/topology.hpp"

namespace collsim::cli {

void add_collective_command(CLI::App& app);
void add_schedule_command(CLI::App& app);
void add_topo_command(CLI::App& app);  // collsim topo show|validate|dot FILE
void add_ddp_command(CLI::App& app);
void add_sweep_command(CLI::App& app);

// --topology FILE (or the built-in node when empty), cut to the first `ranks` ranks.
[[nodiscard]] Topology load_topology_option(const std::string& path, std::optional<int> ranks);
// Parses --format; throws ConfigError naming the flag.
[[nodiscard]] OutputFormat parse_format_option(const std::string& text);

}  // namespace collsim::cli
