// A decoder-only transformer described by its shape (layers, hidden size, heads, FFN, vocabulary,
// sequence, experts), and what follows from it by formula: parameters per layer, FLOPs per
// token, activation bytes per layer split across tensor parallelism. Counts are elements, FLOPs
// are floating-point operations (1 multiply-add = 2), activation sizes are bytes of 16-bit
// activations. Formulas: Narayanan et al. 2021 (Megatron-LM, SC'21, appendix on FLOPs) and
// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
// section 4), generalised to grouped-query attention, gated (SwiGLU) MLPs and experts.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/name_table.hpp"

namespace collsim {

struct TransformerShape {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;        // h
  std::int64_t heads = 0;         // a (query heads)
  std::int64_t kv_heads = 0;      // key/value heads (grouped-query attention); = heads if absent
  std::int64_t ffn_hidden = 0;    // MLP inner size; 4h if absent
  bool gated_mlp = false;         // SwiGLU: three projections (gate, up, down) instead of two
  std::int64_t vocab = 0;         // V
  std::int64_t sequence = 0;      // s, tokens per sample
  std::int64_t experts = 1;       // MoE experts per MLP (1: dense)
  std::int64_t top_k = 1;         // experts each token is routed to
  bool tied_embeddings = true;    // the LM head reuses the input embedding
  bool learned_positions = false; // a learned position table of s x h (GPT-2/3); RoPE has none
  bool biases = false;            // linear and norm biases (GPT-2/3); Llama has none
  bool flash_attention = false;   // fused attention: the a s^2 softmax tensors are never stored
  bool dropout = true;            // dropout masks are stored (Megatron GPT); Llama trains without

  // Elements of one transformer layer's weights (all experts, router, norms, biases).
  [[nodiscard]] std::int64_t layer_parameters() const;
  // The same counting only the experts one token uses (top_k of them): what its FLOPs touch.
  [[nodiscard]] std::int64_t layer_active_parameters() const;
  // Elements of one layer's experts (the MLP weights of all experts; 0 for a dense model):
  // what expert parallelism splits.
  [[nodiscard]] std::int64_t layer_expert_parameters() const;
  // Input embedding (+ position table) and, when untied, the LM head; final norm included.
  [[nodiscard]] std::int64_t embedding_parameters() const;
  [[nodiscard]] std::int64_t lm_head_parameters() const;  // 0 when tied
  [[nodiscard]] std::int64_t parameters() const;

  // Forward FLOPs of one token through one layer: 2 x active weights (the GEMMs) plus the
  // attention scores and their weighted sum, 2 x 2 x s x h (Megatron counts the full s x s
  // matrix, causal mask or not). Backward is twice the forward.
  [[nodiscard]] double layer_forward_flops_per_token() const;
  [[nodiscard]] double layer_gemm_flops_per_token() const;       // the weight GEMMs only
  [[nodiscard]] double attention_core_flops_per_token() const;   // 4 s h
  // Forward FLOPs of the LM head (logits) per token: 2 h V.
  [[nodiscard]] double logit_flops_per_token() const;

  // Bytes one layer's forward keeps for its backward for a micro-batch of b samples, on one
  // of t tensor-parallel ranks (Korthikanti et al. 2022, eq. 1-4 and table 2):
  //   no recompute, no SP:   s b h (R + (A - R)/t) + 5 a s^2 b / t
  //   with SP:               (s b h A + 5 a s^2 b) / t
  //   selective recompute:   the 5 a s^2 b softmax/dropout term is recomputed, not stored
  //   full recompute:        only the layer input, 2 s b h (/ t with SP)
  // where A is the per-token-per-hidden byte count of the layer (34 for GPT with dropout) and
  // R = 10 the part TP replicates without SP (two norm inputs, attention and MLP inputs,
  // two dropout masks). Flash attention stores no softmax term either way.
  enum class Recompute : std::uint8_t { None, Selective, Full };
  [[nodiscard]] double layer_activation_bytes(std::int64_t micro_batch, std::int64_t tp, bool sequence_parallel,
                                              Recompute recompute) const;
  // A (34 for the standard GPT layer) for this shape: attention 2 + 2 + 4 kv/a + 2 (+1 mask),
  // MLP 2 + (4 or 6) f/h (+1 mask), norms 4; see layer_activation_bytes.
  [[nodiscard]] double activation_bytes_per_token_hidden() const;

  // Bytes one tensor-parallel all-reduce moves (nccl-tests size) for a micro-batch: the
  // layer output s b h in 16 bits.
  [[nodiscard]] std::int64_t layer_output_bytes(std::int64_t micro_batch) const;
};

template <>
inline constexpr auto kEnumNames<TransformerShape::Recompute> =
    names_in_order<TransformerShape::Recompute>({"none", "selective", "full"});

// Reads a "transformer" object strictly; errors name `source` and the JSON pointer.
[[nodiscard]] TransformerShape parse_transformer_shape(const nlohmann::json& j, const std::string& source,
                                                       const std::string& pointer);

}  // namespace collsim
