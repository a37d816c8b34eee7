#include "sim/report/table_model.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/version.hpp"

namespace collsim {

std::string format_value(const Json& value, const std::string& format) {
  switch (value.type()) {
    case Json::value_t::number_integer: return fmt::format(fmt::runtime(format), value.get<std::int64_t>());
    case Json::value_t::number_unsigned: return fmt::format(fmt::runtime(format), value.get<std::uint64_t>());
    case Json::value_t::number_float: return fmt::format(fmt::runtime(format), value.get<double>());
    case Json::value_t::boolean: return fmt::format(fmt::runtime(format), value.get<bool>());
    case Json::value_t::string: return fmt::format(fmt::runtime(format), value.get_ref<const std::string&>());
    default: return {};
  }
}

void write_text_lines(std::ostream& out, TextLayout layout, const std::vector<std::vector<std::string>>& lines) {
  for (std::size_t i = 0; i < layout.width.size(); ++i) {
    if (layout.width[i] != kFitWidth) continue;
    std::size_t w = 0;
    for (const auto& line : lines) {
      if (i < line.size()) w = std::max(w, line[i].size());
    }
    layout.width[i] = static_cast<int>(w);
  }
  for (std::size_t n = 0; n < lines.size(); ++n) {
    std::string text;
    for (std::size_t i = 0; i < lines[n].size(); ++i) {
      if (i > 0) text.append(static_cast<std::size_t>(layout.gap[i]), ' ');
      const std::string& cell = lines[n][i];
      text += layout.align[i] == Align::Left ? fmt::format("{:<{}}", cell, layout.width[i])
                                             : fmt::format("{:>{}}", cell, layout.width[i]);
    }
    if (n < layout.header_lines && layout.style.mark != 0 && !text.empty()) text.front() = layout.style.mark;
    if (layout.style.trim) text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  }
}

void write_field_lines(std::ostream& out, const std::vector<Field>& fields) {
  for (const Field& f : fields) {
    if (!f.label.empty()) out << fmt::format("{:<24}", f.label) << format_value(f.value, f.text_format) << "\n";
  }
}

void add_fields(Json& doc, const std::vector<Field>& fields) {
  for (const Field& f : fields) doc[f.key] = f.value;
}

Json report_document(std::initializer_list<std::pair<const char*, Json>> members) {
  Json doc;
  doc[kVersionKey] = version_string();
  for (const auto& [key, value] : members) doc[key] = value;
  return doc;
}

void write_report(std::ostream& out, OutputFormat format, const ReportViews& views) {
  if (format == OutputFormat::Json) {
    out << views.json().dump(2) << "\n";
  } else if (format == OutputFormat::Csv && views.csv) {
    views.csv(out);
  } else {
    views.table(out);
  }
}

}  // namespace collsim
