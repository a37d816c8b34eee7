// Writes an LLM training step (collsim llm) as Chrome trace event JSON (Perfetto,
// chrome://tracing): one process per pipeline stage with a track per stream: compute
// (every forward and backward of every micro-batch and model chunk, then the optimizer),
// pipeline sends (the activation or gradient leaving after an operation), and data
// parallel (the gradient reduction, the ZeRO-1 parameter all-gather, the offload's PCIe
// traffic). TP and EP collectives run inside the compute operations; each operation's
// args give their share. Same input, same bytes.
#pragma once

#include <ostream>
#include <string>

#include "sim/train/llm_step.hpp"

namespace collsim {

void write_llm_trace(std::ostream& out, const LlmStep& step, const LlmTraining& training, const std::string& title);

}  // namespace collsim
