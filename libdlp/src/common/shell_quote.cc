#include "common/shell_quote.h"

namespace dlp::internal {

std::string ShellQuote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::string ShellQuoteIfNeeded(const std::string& word) {
  constexpr const char* kSafe =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+";
  if (!word.empty() && word.find_first_not_of(kSafe) == std::string::npos) return word;
  return ShellQuote(word);
}

}  // namespace dlp::internal
