// NCCL topology dumps (topo import-nccl): the XML reader, the schema and the conversion.
#include "sim/topo/nccl_topo_import.hpp"
#include "sim/topo/nccl_xml_system.hpp"
#include "sim/topo/xml_reader.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    const auto root = collsim::parse_xml(text, collsim::fuzz::kSource);
    const auto system = collsim::read_nccl_system(root, collsim::fuzz::kSource);
    (void)collsim::import_nccl_host(system, collsim::fuzz::kSource, collsim::NcclImportOptions{});
  });
}
