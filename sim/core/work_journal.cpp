#include "sim/core/work_journal.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

constexpr int kJournalFormat = 1;

std::string describe(const nlohmann::json& header) {
  return fmt::format("command \"{}\", fingerprint {}, {} items", header.value("command", "?"),
                     header.value("fingerprint", "?"), header.value("items", 0));
}

}  // namespace

WorkJournal::WorkJournal(const WorkOptions& options, const std::vector<WorkItem>& items)
    : path_(options.journal), finished_(items.size()) {
  header_ = nlohmann::json{{"collsim_journal", kJournalFormat},
                           {"command", options.command},
                           {"fingerprint", options.fingerprint},
                           {"items", items.size()}}
                .dump();
  for (const auto& item : items) keys_.push_back(item.key);
  std::error_code ec;
  if (fs::is_directory(path_, ec)) throw ConfigError("--journal", "", path_, "a file path (this is a directory)");
  const bool exists = fs::exists(path_, ec);
  if (exists && !options.resume) {
    throw ConfigError("--journal", "", path_,
                      "a file that does not exist yet (it holds an earlier run's journal: add --resume to continue that "
                      "run, or remove the file)");
  }
  bool fresh = !exists;
  if (exists) {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw ConfigError("--journal", "", path_, "a readable journal file");
    const std::string content = text.str();
    // No whole first line: the run that made it was killed before it wrote its header.
    fresh = content.find('\n') == std::string::npos;
    if (!fresh) read_existing(content, items);
  }
  if (fresh) write_file_atomically(path_, header_ + "\n", "--journal");
  file_ = std::make_unique<RecordFile>(path_, "--journal");
}

void WorkJournal::read_existing(const std::string& text, const std::vector<WorkItem>& items) {
  const std::size_t whole = text.rfind('\n') + 1;  // bytes of whole lines
  std::istringstream lines(text.substr(0, whole));
  std::string line;
  std::size_t number = 0;
  const nlohmann::json expected = nlohmann::json::parse(header_);
  while (std::getline(lines, line)) {
    ++number;
    const std::string where = fmt::format("line {}", number);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw ConfigError(path_, where, line.substr(0, 80), "a JSON line written by collsim's journal (the file is damaged)");
    }
    if (number == 1) {
      if (!j.is_object() || !j.contains("collsim_journal")) {
        throw ConfigError(path_, where, line.substr(0, 80), "a collsim journal's first line ({\"collsim_journal\": 1, ...})");
      }
      if (j != expected) {
        throw ConfigError("--journal", "", path_,
                          fmt::format("a journal of this run ({}); it records {}: the inputs, options or collsim "
                                      "changed, so use another --journal or remove it",
                                      describe(expected), describe(j)));
      }
      continue;
    }
    const bool shaped = j.is_object() && j.contains("item") && j["item"].is_number_unsigned() && j.contains("key") &&
                        j["key"].is_string() && j.contains("result");
    if (!shaped || j["item"].get<std::size_t>() >= items.size() ||
        j["key"].get<std::string>() != items[j["item"].get<std::size_t>()].key) {
      throw ConfigError(path_, where, line.substr(0, 80),
                        "a finished item {\"item\": index, \"key\": its key, \"result\": ...} of this batch");
    }
    auto& slot = finished_[j["item"].get<std::size_t>()];
    if (!slot) slot = std::move(j["result"]);
  }
  // A cut-off last line (the run was killed while writing it) is dropped before appending.
  if (whole < text.size()) fs::resize_file(path_, whole);
}

void WorkJournal::append(std::size_t item, const nlohmann::json& result, double seconds) {
  const std::string line =
      nlohmann::json{{"item", item}, {"key", keys_.at(item)}, {"seconds", seconds}, {"result", result}}.dump() + "\n";
  const std::lock_guard<std::mutex> lock(mutex_);
  file_->append(line);
}

WorkStart start_work(const std::vector<WorkItem>& items, const WorkOptions& options) {
  WorkStart start;
  if (!options.journal.empty()) start.journal = std::make_unique<WorkJournal>(options, items);
  start.results.resize(items.size());
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (start.journal && start.journal->finished()[i]) {
      start.results[i] = *start.journal->finished()[i];
    } else {
      pending.push_back(i);
    }
  }
  start.stats = WorkStats{items.size() - pending.size(), pending.size()};
  start.order = work_order(items, std::move(pending));
  return start;
}

}  // namespace collsim
