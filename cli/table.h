// Column-aligned tables: a bold header on a terminal, plain space-aligned
// columns on a pipe (easy to cut/awk).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace dlp::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}

  // Cells may contain ANSI color codes; they do not count towards the width.
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }

  // `bold_header`: decorate the header (on a terminal only).
  void Print(std::FILE* out, bool bold_header) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of `text`, skipping ANSI escape sequences and UTF-8 continuation bytes.
size_t VisibleWidth(const std::string& text);

}  // namespace dlp::cli
