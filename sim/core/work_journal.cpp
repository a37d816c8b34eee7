#include "sim/core/work_journal.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

constexpr int kJournalFormat = 1;

// A header field as the message shows it: a string as it is, anything else (a damaged or
// foreign journal's number, array, ...) as brief JSON text, "?" when absent.
std::string header_field(const nlohmann::json& header, const char* key) {
  const auto it = header.find(key);
  if (it == header.end()) return "?";
  return it->is_string() ? it->get<std::string>() : brief(*it);
}

std::string describe_header(const nlohmann::json& header) {
  return fmt::format("command \"{}\", fingerprint {}, {} items", header_field(header, "command"),
                     header_field(header, "fingerprint"), header_field(header, "items"));
}

}  // namespace

std::string work_journal_header(const WorkOptions& options, std::size_t items) {
  return nlohmann::json{{"collsim_journal", kJournalFormat},
                        {"command", options.command},
                        {"fingerprint", options.fingerprint},
                        {"items", items}}
      .dump();
}

JournalContent read_work_journal(const std::string& text, const std::string& path, const std::string& header,
                                 const std::vector<WorkItem>& items) {
  JournalContent out;
  out.finished.resize(items.size());
  const std::size_t newline = text.rfind('\n');
  // No whole first line: the run that made it was killed before it wrote its header.
  if (newline == std::string::npos) return out;
  out.whole_bytes = newline + 1;
  out.has_header = true;
  std::istringstream lines(text.substr(0, out.whole_bytes));
  std::string line;
  std::size_t number = 0;
  const nlohmann::json expected = nlohmann::json::parse(header);
  while (std::getline(lines, line)) {
    ++number;
    const std::string where = fmt::format("line {}", number);
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      throw ConfigError(path, where, line.substr(0, 80), "a JSON line written by collsim's journal (the file is damaged)");
    }
    if (number == 1) {
      if (!j.is_object() || !j.contains("collsim_journal")) {
        throw ConfigError(path, where, line.substr(0, 80), "a collsim journal's first line ({\"collsim_journal\": 1, ...})");
      }
      if (j != expected) {
        throw ConfigError("--journal", "", path,
                          fmt::format("a journal of this run ({}); it records {}: the inputs, options or collsim "
                                      "changed, so use another --journal or remove it",
                                      describe_header(expected), describe_header(j)));
      }
      continue;
    }
    const bool shaped = j.is_object() && j.contains("item") && j["item"].is_number_unsigned() && j.contains("key") &&
                        j["key"].is_string() && j.contains("result");
    if (!shaped || j["item"].get<std::size_t>() >= items.size() ||
        j["key"].get<std::string>() != items[j["item"].get<std::size_t>()].key) {
      throw ConfigError(path, where, line.substr(0, 80),
                        "a finished item {\"item\": index, \"key\": its key, \"result\": ...} of this batch");
    }
    auto& slot = out.finished[j["item"].get<std::size_t>()];
    if (!slot) slot = j["result"];
  }
  return out;
}

WorkJournal::WorkJournal(const WorkOptions& options, const std::vector<WorkItem>& items)
    : path_(options.journal), header_(work_journal_header(options, items.size())), finished_(items.size()) {
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
    JournalContent read = read_work_journal(content, path_, header_, items);
    fresh = !read.has_header;
    finished_ = std::move(read.finished);
    // A cut-off last line (the run was killed while writing it) is dropped before appending.
    if (!fresh && read.whole_bytes < content.size()) fs::resize_file(path_, read.whole_bytes);
  }
  if (fresh) write_file_atomically(path_, header_ + "\n", "--journal");
  file_ = std::make_unique<RecordFile>(path_, "--journal");
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
