// Quoting words for a POSIX shell: for everything dlp writes into a script,
// passes through ssh, or prints as a command line.
#pragma once

#include <string>
#include <vector>

namespace dlp::contract {

// Always single quotes, with ' written as '\''. Nothing inside is expanded,
// whatever it holds ($(), backticks, newlines, ;).
std::string ShellQuote(const std::string& word);

// The word as is when it holds only characters a shell leaves alone, else ShellQuote.
std::string ShellQuoteIfNeeded(const std::string& word);

// The words joined by spaces, each ShellQuoteIfNeeded.
std::string ShellCommandLine(const std::vector<std::string>& words);

}  // namespace dlp::contract
