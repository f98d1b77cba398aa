#include "contract/shell_quote.h"

namespace dlp::contract {

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

std::string ShellCommandLine(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out.push_back(' ');
    out += ShellQuoteIfNeeded(w);
  }
  return out;
}

}  // namespace dlp::contract
