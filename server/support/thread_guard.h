// No exception ends dlpd: every thread dlpd starts runs its body through
// RunGuarded, which logs what escaped instead of letting std::terminate run.
// Loops guard each round, so that one failed round does not stop the loop.
// Thread-safe.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"

namespace dlp::server {

// Runs `body`; an exception escaping it is logged as "`what`: ..." and
// swallowed. Returns false when `body` threw.
bool RunGuarded(absl::string_view what, const std::function<void()>& body);

// A thread whose whole body runs under RunGuarded.
std::thread GuardedThread(std::string what, std::function<void()> body);

}  // namespace dlp::server
