#include "table.h"

#include <algorithm>
#include <cctype>

namespace dlp::cli {

size_t VisibleWidth(const std::string& text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {  // CSI ... letter
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++width;
  }
  return width;
}

void Table::Print(std::FILE* out, bool bold_header) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], VisibleWidth(row[i]));
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  auto print_row = [&](const std::vector<std::string>& row, bool header) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const bool last = i + 1 == widths.size();
      line += cell;
      if (!last) line.append(widths[i] - VisibleWidth(cell) + 3, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (header && bold_header) line = "\033[1m" + line + "\033[0m";
    std::fprintf(out, "%s\n", line.c_str());
  };
  print_row(header_, true);
  for (const auto& row : rows_) print_row(row, false);
}

}  // namespace dlp::cli
