// A failure trace (collsim run --failure-trace), replayed against a run of 1,000 one-second
// steps and scanned over checkpoint intervals when it has interruptions, so that the
// replay meets whatever times the parser lets through.
#include "sim/core/json_fields.hpp"
#include "sim/train/trace_replay.hpp"
#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return collsim::fuzz::run_parser(data, size, [](const std::string& text) {
    const collsim::FailureTrace trace =
        collsim::parse_failure_trace(collsim::parse_json_text(text, collsim::fuzz::kSource), collsim::fuzz::kSource);
    collsim::RunModel m;
    m.step_s = 1;
    m.steps = 1000;
    m.interval_s = 60;
    m.checkpoint_s = 5;
    m.restart_s = 30;
    m.restore_s = 5;
    (void)collsim::replay_trace(m, trace);
    if (!trace.interruptions.empty()) (void)collsim::scan_trace_interval(m, trace);
  });
}
