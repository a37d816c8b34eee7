// The journal of a plan's or sweep's finished items (collsim plan/sweep --journal --resume),
// read for a batch of three items whose first line is the seed's.
#include "sim/core/work_journal.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<collsim::WorkItem> items{{"c/8", 8}, {"c/16", 16}, {"c/32", 32}};
  static const std::string header = [] {
    collsim::WorkOptions o;
    o.command = "plan";
    o.fingerprint = "0123456789abcdef";
    return collsim::work_journal_header(o, items.size());
  }();
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    (void)collsim::read_work_journal(text, collsim::fuzz::kSource, header, items);
  });
}
