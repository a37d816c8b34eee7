// The algorithm registry: every algorithm is one AlgorithmInfo, defined in its own file
// under sim/algo, and the registry lists them. The last test lists every place in sim/
// that knows an algorithm's name as a string literal: only the algorithm's own file may.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/algo/phased_schedule.hpp"
#include "sim/algo/registry.hpp"

namespace collsim {
namespace {

constexpr std::array<CollectiveOp, 6> kOps{CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                                          CollectiveOp::AllGather,  CollectiveOp::Broadcast,
                                          CollectiveOp::Reduce,     CollectiveOp::AllToAll};

// The contents of every string literal of a C++ source (comments, character literals and
// digit separators skipped; raw strings read up to their delimiter).
std::vector<std::string> string_literals(const std::string& src) {
  std::vector<std::string> out;
  std::size_t i = 0;
  const std::size_t n = src.size();
  while (i < n) {
    const char ch = src[i];
    if (src.compare(i, 2, "//") == 0) {
      i = src.find('\n', i);
      if (i == std::string::npos) break;
    } else if (src.compare(i, 2, "/*") == 0) {
      i = src.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (ch == 'R' && i + 1 < n && src[i + 1] == '"' && (i == 0 || !std::isalnum(static_cast<unsigned char>(src[i - 1])))) {
      const std::size_t open = src.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + src.substr(i + 2, open - (i + 2)) + "\"";
      const std::size_t end = src.find(close, open);
      if (end == std::string::npos) break;
      out.push_back(src.substr(open + 1, end - (open + 1)));
      i = end + close.size();
    } else if (ch == '"' || (ch == '\'' && (i == 0 || !std::isalnum(static_cast<unsigned char>(src[i - 1]))))) {
      std::string text;
      for (++i; i < n && src[i] != ch; ++i) {
        if (src[i] == '\\') ++i;
        text += src[i];
      }
      if (ch == '"') out.push_back(text);
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// Literals equal to an algorithm's name that belong to another vocabulary, each with why:
// {file under sim/, literal}.
const std::set<std::pair<std::string, std::string>> kOtherVocabularies{
    // "ps" is picoseconds in the unit table.
    {"core/unit_parse.cpp", "ps"},
    // NCCL's tuning-table rows (NcclRow: tree, ring, collnet, nvls, pat, nvls_tree, collnet_chain), also the keys of a
    // calibration file's per-row tables; which row an algorithm is priced by comes from its
    // AlgorithmInfo (nccl_row).
    {"coll/protocol.hpp", "tree"},
    {"coll/protocol.hpp", "ring"},
    {"coll/protocol.hpp", "nvls"},
    {"coll/protocol.hpp", "pat"},
    {"coll/protocol.hpp", "nvls_tree"},
    {"coll/protocol.hpp", "collnet_chain"},
    {"coll/protocol_model.cpp", "tree"},
    {"coll/protocol_model.cpp", "ring"},
    {"coll/protocol_model.cpp", "nvls"},
    {"coll/protocol_model.cpp", "pat"},
    {"coll/protocol_model.cpp", "nvls_tree"},
    {"coll/protocol_model.cpp", "collnet_chain"},
    // NCCL_ALGO's names (lower-cased), mapped to collsim's algorithms through their
    // AlgorithmInfo's NCCL counterpart.
    {"coll/nccl_env.cpp", "tree"},
    {"coll/nccl_env.cpp", "ring"},
    {"coll/nccl_env.cpp", "nvls"},
    {"coll/nccl_env.cpp", "pat"},
    // NCCL's channel-graph pattern (NCCL_TOPO_PATTERN_RING) and the report's key for the
    // searched rings: NCCL's channels, not the ring algorithm.
    {"coll/nccl/channel_search.cpp", "ring"},
    {"report/nccl_graph_report.cpp", "ring"},
};

}  // namespace

TEST_CASE("string_literals reads literals, not comments or characters", "[registry]") {
  const std::string src = "f(\"x\"); // \"y\"\n/* \"z\" */ c = '\"'; n = 1'000; R\"d(w\"v)d\" \"e\\\"f\"";
  CHECK(string_literals(src) == std::vector<std::string>{"x", "w\"v", "e\"f"});
}

TEST_CASE("every registered algorithm is described once and builds its own schedule", "[registry][algo]") {
  std::set<std::string_view> names;
  REQUIRE(algorithms().size() == algorithm_names().size());
  for (const AlgorithmInfo* a : algorithms()) {
    INFO(a->name);
    CHECK(names.insert(a->name).second);
    CHECK(find_algorithm(a->name) == a);
    CHECK(!a->description.empty());
    CHECK(a->description.find('\n') == std::string_view::npos);
    REQUIRE(a->build != nullptr);
    REQUIRE(!a->ops.empty());
    // The schedule carries the registered name, for every op the info claims (4 ranks,
    // 2 hosts of 2 so hier_ring runs).
    for (CollectiveOp op : kOps) {
      CHECK(supports(a->name, op) == a->implements(op));
      if (!a->implements(op)) continue;
      AlgorithmOptions opt;
      opt.host_of_rank = {0, 0, 1, 1};
      CHECK(build_schedule(a->name, Collective{op, 4, 0, Bytes{4096}}, opt).algorithm() == a->name);
    }
  }
  CHECK(find_algorithm("RING") == nullptr);
  CHECK(find_algorithm(default_algorithm()) == algorithms().front());
}

TEST_CASE("the registry's per-algorithm facts", "[registry][algo]") {
  // What collsim's callers used to decide by name, now asked of the info.
  CHECK(default_algorithm() == "ring");
  CHECK(nccl_counterpart("ring") == NcclAlgorithm::Ring);
  CHECK(nccl_counterpart("tree") == NcclAlgorithm::Tree);
  CHECK(nccl_counterpart("nvls") == NcclAlgorithm::Nvls);
  CHECK(nccl_counterpart("sharp") == NcclAlgorithm::CollNet);
  CHECK(nccl_counterpart("nvls_tree") == NcclAlgorithm::NvlsTree);
  CHECK(nccl_counterpart("collnet_direct") == NcclAlgorithm::CollNet);
  CHECK(nccl_counterpart("collnet_chain") == NcclAlgorithm::CollNetChain);
  CHECK(nccl_counterpart("direct") == NcclAlgorithm::PointToPoint);
  for (const char* what_if : {"bintree", "ps", "ps_sharded", "hier_ring", "rhd", "rd", "no-such"}) {
    CHECK(nccl_counterpart(what_if) == NcclAlgorithm::None);
  }
  for (const AlgorithmInfo* a : algorithms()) {
    INFO(a->name);
    CHECK(needs_even_hosts(a->name) ==
          (a->name == "hier_ring" || a->name == "nvls_tree" || a->name == "collnet_direct" || a->name == "collnet_chain"));
    CHECK((a->phased != nullptr) == (a->name == "ring" || a->name == "hier_ring"));
  }
  // The phased form carries the registered name too.
  const Collective c{CollectiveOp::AllReduce, 4, 0, Bytes{4096}};
  AlgorithmOptions opt;
  opt.host_of_rank = {0, 0, 1, 1};
  for (const char* algo : {"ring", "hier_ring"}) {
    const auto phased = phased_schedule(algo, c, opt);
    REQUIRE(phased);
    CHECK(phased->algorithm == algo);
  }
  CHECK(!phased_schedule("tree", c, opt));
}

TEST_CASE("only an algorithm's own file under sim/algo names it", "[registry][algo]") {
  // Every string literal in sim/ that equals a registered name, by file. Adding an
  // algorithm touches its own file and the registry's list; any other code asks the
  // AlgorithmInfo (find_algorithm, supports, nccl_counterpart, default_algorithm, ...).
  const std::filesystem::path sim = std::filesystem::path(COLLSIM_SOURCE_DIR) / "sim";
  std::map<std::string, std::set<std::string>> files_naming;  // name -> files under sim/
  std::vector<std::string> sources;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(sim)) {
    const auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".cpp" || ext == ".hpp")) sources.push_back(entry.path().string());
  }
  std::sort(sources.begin(), sources.end());
  REQUIRE(sources.size() > 100);
  const std::vector<std::string> names = algorithm_names();
  for (const auto& path : sources) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string rel = std::filesystem::relative(path, sim).generic_string();
    for (const auto& literal : string_literals(text.str())) {
      if (std::find(names.begin(), names.end(), literal) == names.end()) continue;
      if (kOtherVocabularies.count({rel, literal}) != 0) continue;
      files_naming[literal].insert(rel);
    }
  }
  for (const auto& name : names) {
    const auto& files = files_naming[name];
    INFO(fmt::format("\"{}\" appears in: {}", name, fmt::join(files, ", ")));
    REQUIRE(files.size() == 1);
    const std::string& own = *files.begin();
    CHECK(own.starts_with("algo/"));
    CHECK(own.ends_with(".cpp"));
    CHECK(own != "algo/registry.cpp");
  }
}

}  // namespace collsim
