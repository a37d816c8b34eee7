#include "sim/measure/nccl_tests_log.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <cctype>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

std::optional<double> number(const std::string& t) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> log_integer(const std::string& t) {
  if (t.empty() || t.find_first_not_of("-0123456789") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (end != t.c_str() + t.size() || errno == ERANGE) return std::nullopt;  // ERANGE: clamped to LLONG_MAX
  return v;
}

// Sizes and element counts: at most 2^50, collsim's message-size range (docs/file-formats.md),
// so that count x element size cannot wrap.
constexpr std::int64_t kMaxRowSize = std::int64_t{1} << 50;

int nccl_type_size(const std::string& type) {
  if (type == "float" || type == "int32" || type == "uint32" || type == "int") return 4;
  if (type == "half" || type == "bfloat16" || type == "bf16") return 2;
  if (type == "double" || type == "int64" || type == "uint64") return 8;
  if (type == "int8" || type == "uint8" || type == "char" || type.rfind("f8", 0) == 0) return 1;
  return 0;
}

// nccl-tests binary names (without _perf) and file-name spellings -> collective.
std::optional<CollectiveOp> op_from_test_name(const std::string& n) {
  if (n == "all_reduce") return CollectiveOp::AllReduce;
  if (n == "all_gather") return CollectiveOp::AllGather;
  if (n == "reduce_scatter") return CollectiveOp::ReduceScatter;
  if (n == "alltoall") return CollectiveOp::AllToAll;
  if (n == "broadcast") return CollectiveOp::Broadcast;
  if (n == "reduce") return CollectiveOp::Reduce;
  return std::nullopt;
}

std::optional<CollectiveOp> op_from_file_name(std::string name) {
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  name = to_lower(name);
  const std::pair<const char*, CollectiveOp> table[] = {
      {"reduce_scatter", CollectiveOp::ReduceScatter}, {"reducescatter", CollectiveOp::ReduceScatter},
      {"all_reduce", CollectiveOp::AllReduce},         {"allreduce", CollectiveOp::AllReduce},
      {"all_gather", CollectiveOp::AllGather},         {"allgather", CollectiveOp::AllGather},
      {"alltoall", CollectiveOp::AllToAll},            {"broadcast", CollectiveOp::Broadcast},
      {"reduce", CollectiveOp::Reduce}};
  for (const auto& [key, op] : table) {
    if (name.find(key) != std::string::npos) return op;
  }
  return std::nullopt;
}

bool lower_or_underscore(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Removes an MPI rank prefix: "[1,0]<stdout>:", "[0]" (leading blanks allowed).
std::string strip_mpi_prefix(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '[') return line;
  std::size_t j = i + 1;
  bool digit = false;
  while (j < line.size() && (std::isdigit(static_cast<unsigned char>(line[j])) || line[j] == ',')) {
    digit = digit || line[j] != ',';
    ++j;
  }
  if (!digit || j >= line.size() || line[j] != ']') return line;
  ++j;
  for (const char* tag : {"<stdout>", "<stderr>"}) {
    if (line.compare(j, std::strlen(tag), tag) == 0) j += std::strlen(tag);
  }
  if (j < line.size() && line[j] == ':') ++j;
  return line.substr(j);
}

// The first "NAME_perf" (NAME of [a-z_], "_perf" not followed by a word character).
std::optional<std::string> perf_name(const std::string& body) {
  for (std::size_t at = body.find("_perf"); at != std::string::npos; at = body.find("_perf", at + 1)) {
    const std::size_t end = at + 5;
    if (end < body.size() && word_char(body[end])) continue;
    std::size_t b = at;
    while (b > 0 && lower_or_underscore(body[b - 1])) --b;
    if (b < at) return body.substr(b, at - b);
  }
  return std::nullopt;
}

struct RunHints {  // what the lines before a table said about it
  int rank_lines = 0;
  std::optional<int> threads_x_gpus;
  std::optional<int> gpus_per_thread;  // nGpus: GPUs one thread drives
  std::optional<NcclTestsFormat> format;
  std::optional<bool> ms;  // time unit from the units line
  std::vector<NcclLogVariable> nccl_env;
};

// "... NCCL INFO NCCL_ALGO set by environment to Tree" -> {NCCL_ALGO, Tree}; NCCL's
// integer parameters end in "." ("... to 24."), which is not part of the value.
std::optional<std::pair<std::string, std::string>> nccl_env_line(const std::string& body) {
  static constexpr std::string_view kInfo = "NCCL INFO ", kSet = " set by environment to ";
  const std::size_t info = body.find(kInfo);
  if (info == std::string::npos) return std::nullopt;
  const std::size_t set = body.find(kSet, info);
  if (set == std::string::npos) return std::nullopt;
  const std::size_t name_at = body.find_last_of(' ', set - 1) + 1;
  std::string name = body.substr(name_at, set - name_at);
  std::string value = body.substr(set + kSet.size());
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
  if (name.rfind("NCCL_", 0) != 0 || value.empty()) return std::nullopt;
  if (value.back() == '.') value.pop_back();
  return std::make_pair(std::move(name), std::move(value));
}

void add_variable(std::vector<NcclLogVariable>& env, std::pair<std::string, std::string> v, int no) {
  for (const NcclLogVariable& e : env) {
    if (e.name == v.first && e.value == v.second) return;  // every rank prints it
  }
  env.push_back({std::move(v.first), std::move(v.second), no});
}

class LogParser {
 public:
  LogParser(std::string source, const NcclTestsImportOptions& o) : source_(std::move(source)), opt_(o) {}

  void line(std::string raw, int no) {
    raw = strip_mpi_prefix(raw);
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) return;
    std::string body = raw.substr(first);
    const bool comment = body[0] == '#';
    if (comment) body = body.substr(1);
    const auto tokens = split_ws(body);
    if (tokens.empty()) return;

    if (body.find("Avg bus bandwidth") != std::string::npos) {
      const auto colon = body.find(':');
      if (colon != std::string::npos && !rows_.empty()) {
        const auto t = split_ws(body.substr(colon + 1));
        if (!t.empty()) avg_ = number(t[0]);
      }
      close();
      return;
    }
    if (auto v = comment ? std::nullopt : nccl_env_line(body)) {
      // Inside a table (a variable NCCL reads at its first use): this run's.
      add_variable(rows_.empty() ? next_.nccl_env : hints_.nccl_env, std::move(*v), no);
      return;
    }
    // A data row starts with its size: digits (one too large for 2^63 is still a row, and
    // row() refuses it by name).
    if (comment || tokens[0].find_first_not_of("-0123456789") != std::string::npos ||
        tokens[0].find_first_of("0123456789") == std::string::npos) {
      hint(body, tokens, no);
      return;
    }
    row(tokens, no);
  }

  std::vector<NcclTestsRun> finish() {
    close();
    return std::move(runs_);
  }

 private:
  [[noreturn]] void fail(int no, const std::string& value, const std::string& expected) const {
    throw ConfigError(source_, fmt::format("line {}", no), value, expected);
  }

  void hint(const std::string& body, const std::vector<std::string>& tokens, int no) {
    const std::string starting = "Collective test starting:";
    if (const auto at = body.find(starting); at != std::string::npos) {
      const auto name = perf_name(body.substr(at + starting.size()));
      if (!name) fail(no, body, "\"Collective test starting: NAME_perf\"");
      started_op_ = op_from_test_name(*name);
      if (!started_op_) fail(no, *name + "_perf", "a collective collsim models");
    } else if (!perf_op_ && perf_name_.empty()) {
      if (const auto name = perf_name(body)) {
        perf_name_ = *name;
        perf_op_ = op_from_test_name(perf_name_);
        perf_line_ = no;
      }
    }
    if (tokens.size() >= 3 && tokens[0] == "Rank" && log_integer(tokens[1])) ++next_.rank_lines;
    for (std::size_t i = 0; i + 3 < tokens.size(); ++i) {
      const auto t = log_integer(tokens[i + 1]), g = log_integer(tokens[i + 3]);
      if (tokens[i] == "nThread" && tokens[i + 2] == "nGpus" && t && g) {
        constexpr std::int64_t kMax = 1 << 20;  // collsim's rank range
        if (*t < 1 || *g < 1 || *t > kMax || *g > kMax || *t * *g > kMax) {
          fail(no, fmt::format("nThread {} nGpus {}", *t, *g), "thread and GPU counts of at least 1, at most 2^20 ranks in all");
        }
        next_.threads_x_gpus = static_cast<int>(*t * *g);
        next_.gpus_per_thread = static_cast<int>(*g);
      }
    }
    const auto has = [&](const char* t) { return std::find(tokens.begin(), tokens.end(), t) != tokens.end(); };
    if (has("algbw") && has("busbw")) {
      if (!rows_.empty()) close();  // a new table begins
      if (has("root")) {
        next_.format = NcclTestsFormat::Current;
      } else if (has("error")) {
        next_.format = NcclTestsFormat::Error2019;
      } else if (has("res")) {
        next_.format = NcclTestsFormat::Ms2017;
        next_.ms = true;
      } else {
        next_.format = NcclTestsFormat::Current;
      }
    }
    if (has("(us)")) next_.ms = false;
    if (has("(ms)")) next_.ms = true;
  }

  void row(const std::vector<std::string>& t, int no) {
    const std::size_t n = t.size();
    std::size_t leading, groups;
    if (n >= 11 && n <= 13) {
      leading = n - 8, groups = 2;
    } else if (n >= 7 && n <= 9) {
      leading = n - 4, groups = 1;
    } else {
      fail(no, fmt::format("a row of {} fields", n),
           "an nccl-tests data row: size count type [redop] [root] then time algbw busbw check, out-of-place and in-place");
    }
    NcclTestsRow r;
    r.line = no;
    const auto size = log_integer(t[0]);
    const auto count = log_integer(t[1]);
    if (!size || *size < 0 || *size > kMaxRowSize) fail(no, t[0], "a size in bytes from 0 to 2^50");
    if (!count || *count < 0 || *count > kMaxRowSize) fail(no, t[1], "an element count from 0 to 2^50");
    r.size = Bytes{*size};
    r.count = *count;
    r.type = t[2];
    if (number(r.type)) fail(no, r.type, "a data type name (float, half, ...)");
    if (leading >= 4) {
      r.redop = t[3];
      if (number(r.redop)) fail(no, r.redop, "a reduction name (sum, prod, none, ...)");
    }
    if (leading == 5) {
      const auto root = log_integer(t[4]);
      if (!root) fail(no, t[4], "a root rank (-1 when rootless)");
      r.root = static_cast<int>(*root);
    }
    std::array<double, 2> times{0, 0};  // out-of-place, in-place, in the printed unit
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t b = leading + 4 * g;
      const auto time = number(t[b]), algbw = number(t[b + 1]), busbw = number(t[b + 2]);
      if (!time || *time < 0) fail(no, t[b], "a time");
      // A zero time measured nothing (a timer too coarse, a run that did not happen);
      // validation would have to drop the row without a word, so refuse it here.
      if (*time == 0) fail(no, t[b], "a positive time (0 is not a measurement)");
      if (!algbw) fail(no, t[b + 1], "an algbw in GB/s");
      if (!busbw) fail(no, t[b + 2], "a busbw in GB/s");
      // Time stays in the printed unit until the run's unit is known (close()).
      // The check column: "#wrong" (nccl-tests -c 1) counts wrong elements, N/A without the
      // check; the older formats print the largest error, a real number. A count above 0
      // means the results were wrong, so the time is not a measurement of a working collective.
      const std::string& check = t[b + 3];
      const auto wrong = log_integer(check);
      const auto magnitude = number(check);
      const bool error_column = next_.format != NcclTestsFormat::Current && magnitude && *magnitude >= 0;
      if (check != "N/A" && !(wrong && *wrong >= 0) && !error_column) {
        fail(no, fmt::format("#wrong {}", check),
             next_.format == NcclTestsFormat::Current
                 ? "a count of wrong elements (0 or more) or N/A"
                 : "a count of wrong elements (0 or more), the largest error (a non-negative number) or N/A");
      }
      if (wrong && *wrong > 0) {
        fail(no, fmt::format("#wrong {}", check), "0 wrong elements (nccl-tests found wrong results; this row is not a valid measurement)");
      }
      NcclTestsResult res{Time{}, *algbw, *busbw, t[b + 3]};
      times[g] = *time;
      if (g == 0) {
        r.out_of_place = res;
      } else {
        r.in_place = res;
      }
    }
    // Sizes restart: a new run (several tests in one file). Decided before this row joins,
    // so its times stay with it.
    if (!rows_.empty() && r.size < rows_.back().size) close();
    if (!rows_.empty() && r.in_place.has_value() != rows_.front().in_place.has_value()) {
      fail(no, fmt::format("a row with {} result group(s)", groups),
           fmt::format("the columns of the rows above it (line {}: {})", rows_.front().line,
                       rows_.front().in_place ? "out-of-place and in-place" : "one result group"));
    }
    if (rows_.empty()) {
      hints_ = next_;
      // A later table without a header line of its own (logs pasted one after another
      // under one command) was launched like this one.
      next_ = RunHints{};
      next_.gpus_per_thread = hints_.gpus_per_thread;
      next_.nccl_env = hints_.nccl_env;
      first_line_ = no;
    }
    rows_.push_back(std::move(r));
    raw_times_.push_back(times);
  }

  void close() {
    if (rows_.empty()) return;
    NcclTestsRun run;
    run.source = source_;
    run.first_line = first_line_;
    run.avg_busbw_gbps = avg_;
    run.gpus_per_thread = hints_.gpus_per_thread.value_or(1);
    run.nccl_env = hints_.nccl_env;
    // The time unit: the header's, else the one under which algbw ~ size / time (the
    // two candidates differ 1000x, while algbw conventions differ at most n/(n-1)).
    bool ms = hints_.ms.value_or(false);
    if (!hints_.ms) {
      const NcclTestsRow* best = nullptr;
      std::size_t best_i = 0;
      for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (!best || rows_[i].out_of_place.algbw_gbps > best->out_of_place.algbw_gbps) best = &rows_[i], best_i = i;
      }
      const double t = raw_times_[best_i][0];
      if (best->out_of_place.algbw_gbps > 0 && t > 0) {
        const double gbps_us = static_cast<double>(best->size.count) / (t * 1e-6) / 1e9;
        const double gbps_ms = gbps_us / 1000;
        ms = std::abs(std::log(gbps_ms / best->out_of_place.algbw_gbps)) < std::abs(std::log(gbps_us / best->out_of_place.algbw_gbps));
      }
    }
    run.format = hints_.format.value_or(ms ? NcclTestsFormat::Ms2017
                                           : rows_[0].root                                      ? NcclTestsFormat::Current
                                           : rows_[0].out_of_place.check.find('e') != std::string::npos ? NcclTestsFormat::Error2019
                                                                                                 : NcclTestsFormat::Current);
    const double scale = ms ? 1e-3 : 1e-6;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      rows_[i].out_of_place.time = Time::from_seconds(raw_times_[i][0] * scale);
      if (rows_[i].in_place) rows_[i].in_place->time = Time::from_seconds(raw_times_[i][1] * scale);
    }
    run.op = resolve_op(first_line_);
    resolve_ranks(run);
    run.rows = std::move(rows_);
    runs_.push_back(std::move(run));
    rows_.clear();
    raw_times_.clear();
    avg_.reset();
  }

  CollectiveOp resolve_op(int no) const {
    if (opt_.op) return *opt_.op;
    if (started_op_) return *started_op_;
    if (perf_op_) return *perf_op_;
    if (!perf_name_.empty()) fail(perf_line_, perf_name_ + "_perf", "a collective collsim models");
    if (const auto op = op_from_file_name(source_)) return *op;
    fail(no, "no collective named", "a \"Collective test starting\" line, an XXX_perf command, or the collective in the file name (or pass --op)");
  }

  void resolve_ranks(NcclTestsRun& run) const {
    const NcclTestsRow& last = rows_.back();
    if (opt_.ranks) {
      run.ranks = *opt_.ranks, run.ranks_from = "option";
      return;
    }
    if (hints_.rank_lines > 0) {
      run.ranks = hints_.rank_lines, run.ranks_from = "rank lines";
      return;
    }
    const int elt = nccl_type_size(last.type);
    const bool gathered = run.op == CollectiveOp::AllGather || run.op == CollectiveOp::ReduceScatter || run.op == CollectiveOp::AllToAll;
    // Gather-type tables print size = ranks x count x element size.
    if (gathered && elt > 0 && last.count > 0 && last.size.count % (last.count * elt) == 0) {
      run.ranks = static_cast<int>(last.size.count / (last.count * elt)), run.ranks_from = "size/count";
      return;
    }
    // busbw = algbw x 2(n-1)/n (all-reduce) or (n-1)/n: solve for n on the fastest row.
    const NcclTestsRow* best = &rows_.front();
    for (const auto& r : rows_) {
      if (r.out_of_place.algbw_gbps > best->out_of_place.algbw_gbps) best = &r;
    }
    const double a = best->out_of_place.algbw_gbps, b = best->out_of_place.busbw_gbps;
    if (a >= 1.0 && busbw_factor(run.op, 4) != 1.0) {
      const double f = b / a;
      const double n = run.op == CollectiveOp::AllReduce ? 2.0 / (2.0 - f) : 1.0 / (1.0 - f);
      const int rounded = static_cast<int>(std::lround(n));
      if (rounded >= 2 && std::abs(a * busbw_factor(run.op, rounded) - b) <= 0.011 + 0.005 * b) {
        run.ranks = rounded, run.ranks_from = "busbw/algbw";
        return;
      }
    }
    if (hints_.threads_x_gpus) {
      run.ranks = *hints_.threads_x_gpus, run.ranks_from = "nThread x nGpus";
      return;
    }
    fail(run.first_line, "no rank count", "rank lines, nThread/nGpus, or a size/count or busbw/algbw that implies it (or pass --ranks)");
  }

  std::string source_;
  NcclTestsImportOptions opt_;
  std::optional<CollectiveOp> started_op_, perf_op_;
  std::string perf_name_;
  int perf_line_ = 0;
  RunHints next_, hints_;
  std::vector<NcclTestsRow> rows_;
  std::vector<std::array<double, 2>> raw_times_;  // per row: out-of-place, in-place times as printed
  std::optional<double> avg_;
  int first_line_ = 0;
  std::vector<NcclTestsRun> runs_;
};

}  // namespace

std::vector<NcclTestsRun> parse_nccl_tests_log(const std::string& text, const std::string& source,
                                               const NcclTestsImportOptions& options) {
  LogParser p(source, options);
  std::istringstream in(text);
  int no = 0;
  for (std::string line; std::getline(in, line);) p.line(line, ++no);
  auto runs = p.finish();
  if (runs.empty()) throw ConfigError(source, "", "no data rows", "nccl-tests output (a table of size, count, type, time, algbw, busbw rows)");
  return runs;
}

std::vector<NcclTestsRun> import_nccl_tests_log(const std::string& path, const NcclTestsImportOptions& options) {
  return parse_nccl_tests_log(read_input_file(path), path, options);
}

}  // namespace collsim
