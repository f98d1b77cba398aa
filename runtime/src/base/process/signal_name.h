// A signal's name for messages: "SIGKILL"; "signal 70" for a number without one.
#pragma once

#include <string>

namespace dlp::base {

std::string SignalName(int signo);

}  // namespace dlp::base
