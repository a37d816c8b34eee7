#include "sim/train/transformer.hpp"

#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/json_fields.hpp"

namespace collsim {

namespace {

std::int64_t kv_hidden(const TransformerShape& t) { return t.hidden / t.heads * t.kv_heads; }

// Weights of the attention block: Q and O are h x h, K and V h x (h kv/a).
std::int64_t attention_weights(const TransformerShape& t) {
  const std::int64_t h = t.hidden;
  std::int64_t n = 2 * h * h + 2 * h * kv_hidden(t);
  if (t.biases) n += h + 2 * kv_hidden(t) + h;
  return n;
}

// One expert's MLP: two (or, gated, three) h x f projections.
std::int64_t expert_weights(const TransformerShape& t) {
  std::int64_t n = (t.gated_mlp ? 3 : 2) * t.hidden * t.ffn_hidden;
  if (t.biases) n += (t.gated_mlp ? 2 : 1) * t.ffn_hidden + t.hidden;
  return n;
}

std::int64_t norm_weights(const TransformerShape& t) { return (t.biases ? 2 : 1) * t.hidden; }

std::int64_t router_weights(const TransformerShape& t) { return t.experts > 1 ? t.hidden * t.experts : 0; }

}  // namespace

std::int64_t TransformerShape::layer_parameters() const {
  return attention_weights(*this) + experts * expert_weights(*this) + router_weights(*this) + 2 * norm_weights(*this);
}

std::int64_t TransformerShape::layer_active_parameters() const {
  return attention_weights(*this) + top_k * expert_weights(*this) + router_weights(*this) + 2 * norm_weights(*this);
}

std::int64_t TransformerShape::layer_expert_parameters() const { return experts > 1 ? experts * expert_weights(*this) : 0; }

std::int64_t TransformerShape::embedding_parameters() const {
  return vocab * hidden + (learned_positions ? sequence * hidden : 0) + norm_weights(*this);
}

std::int64_t TransformerShape::lm_head_parameters() const { return tied_embeddings ? 0 : vocab * hidden; }

std::int64_t TransformerShape::parameters() const {
  return layers * layer_parameters() + embedding_parameters() + lm_head_parameters();
}

double TransformerShape::layer_gemm_flops_per_token() const {
  // The GEMMs touch the weights once each per token (norms and biases are not GEMMs).
  const double weights = static_cast<double>(2 * hidden * hidden + 2 * hidden * kv_hidden(*this)) +
                         static_cast<double>(top_k) * (gated_mlp ? 3.0 : 2.0) * static_cast<double>(hidden * ffn_hidden) +
                         static_cast<double>(router_weights(*this));
  return 2.0 * weights;
}

double TransformerShape::attention_core_flops_per_token() const {
  // Q K^T and softmax(.) V: s x h multiply-adds each per token.
  return 4.0 * static_cast<double>(sequence) * static_cast<double>(hidden);
}

double TransformerShape::layer_forward_flops_per_token() const {
  return layer_gemm_flops_per_token() + attention_core_flops_per_token();
}

double TransformerShape::logit_flops_per_token() const {
  return 2.0 * static_cast<double>(hidden) * static_cast<double>(vocab);
}

double TransformerShape::activation_bytes_per_token_hidden() const {
  const double kv_ratio = static_cast<double>(kv_heads) / static_cast<double>(heads);
  const double f_ratio = static_cast<double>(ffn_hidden) / static_cast<double>(hidden);
  const double mask = dropout ? 1.0 : 0.0;
  // Attention: QKV input 2, Q 2, K and V 4 kv/a, projection input 2, output dropout mask 1.
  const double attention = 2 + 2 + 4 * kv_ratio + 2 + mask;
  // MLP: input 2, first GEMM output(s) 2 f/h each (two when gated), activation output 2 f/h,
  // dropout mask 1. top_k experts each keep their own.
  const double mlp = 2 + static_cast<double>(top_k) * ((gated_mlp ? 6.0 : 4.0) * f_ratio) + mask;
  const double norms = 4;
  return attention + mlp + norms;
}

double TransformerShape::layer_activation_bytes(std::int64_t micro_batch, std::int64_t tp, bool sequence_parallel,
                                                Recompute recompute) const {
  const double sbh = static_cast<double>(sequence) * static_cast<double>(micro_batch) * static_cast<double>(hidden);
  const double t = static_cast<double>(tp);
  if (recompute == Recompute::Full) return 2.0 * sbh / (sequence_parallel ? t : 1.0);
  const double a_total = activation_bytes_per_token_hidden();
  // Without SP, TP replicates the norm inputs (4), the attention and MLP inputs (2 + 2) and,
  // with dropout, the two dropout masks (2): Korthikanti's "10".
  const double replicated = sequence_parallel ? 0.0 : 8.0 + (dropout ? 2.0 : 0.0);
  double bytes = sbh * (replicated + (a_total - replicated) / t);
  // Softmax output (2), dropout mask (1) and dropout output (2) per score: 5 a s^2 b, split
  // by heads across TP; gone with selective recompute or a fused (flash) attention kernel.
  if (recompute == Recompute::None && !flash_attention) {
    const double scores = static_cast<double>(heads) * static_cast<double>(sequence) * static_cast<double>(sequence) *
                          static_cast<double>(micro_batch);
    bytes += (dropout ? 5.0 : 2.0) * scores / t;
  }
  return bytes;
}

std::int64_t TransformerShape::layer_output_bytes(std::int64_t micro_batch) const {
  return 2 * sequence * micro_batch * hidden;
}

TransformerShape parse_transformer_shape(const nlohmann::json& j, const std::string& source, const std::string& pointer) {
  JsonFields f(j, source, pointer);
  constexpr std::int64_t kBig = std::int64_t{1} << 24;  // sizes beyond any model, and safe in products
  TransformerShape t;
  t.layers = f.integer("layers", 1, 100'000);
  t.hidden = f.integer("hidden", 1, kBig);
  t.heads = f.integer("heads", 1, t.hidden);
  if (t.hidden % t.heads != 0) {
    f.fail("heads", std::to_string(t.heads), fmt::format("a divisor of hidden ({})", t.hidden));
  }
  t.kv_heads = f.optional_integer("kv_heads", 1, t.heads).value_or(t.heads);
  if (t.heads % t.kv_heads != 0) {
    f.fail("kv_heads", std::to_string(t.kv_heads), fmt::format("a divisor of heads ({})", t.heads));
  }
  t.ffn_hidden = f.optional_integer("ffn_hidden", 1, kBig).value_or(4 * t.hidden);
  t.gated_mlp = f.boolean("gated_mlp", false);
  t.vocab = f.integer("vocab", 1, kBig);
  t.sequence = f.integer("sequence", 1, kBig);
  t.experts = f.optional_integer("experts", 1, 4096).value_or(1);
  t.top_k = f.optional_integer("top_k", 1, t.experts).value_or(t.experts > 1 ? 2 : 1);
  if (t.experts == 1 && t.top_k != 1) f.fail("top_k", std::to_string(t.top_k), "1 for a dense model (experts 1)");
  t.tied_embeddings = f.boolean("tied_embeddings", true);
  t.learned_positions = f.boolean("learned_positions", false);
  t.biases = f.boolean("biases", false);
  t.flash_attention = f.boolean("flash_attention", false);
  t.dropout = f.boolean("dropout", true);
  f.finish();
  // Checked in doubles before any integer count is formed, so no product can overflow.
  const double h = static_cast<double>(t.hidden);
  const double rough = static_cast<double>(t.layers) * (4 * h * h + 3 * static_cast<double>(t.experts) * h *
                                                        static_cast<double>(t.ffn_hidden)) +
                       2 * static_cast<double>(t.vocab + t.sequence) * h;
  if (rough > 1e15) f.fail("layers", std::to_string(t.layers), "a model under 10^15 parameters");
  return t;
}

}  // namespace collsim
