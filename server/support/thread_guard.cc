#include "server/support/thread_guard.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "server/support/log.h"

namespace dlp::server {

bool RunGuarded(absl::string_view what, const std::function<void()>& body) {
  try {
    body();
    return true;
  } catch (const std::exception& e) {
    Log(absl::StrCat("error: ", what, ": unexpected exception: ", e.what()));
  } catch (...) {
    Log(absl::StrCat("error: ", what, ": unexpected exception of an unknown type"));
  }
  return false;
}

std::thread GuardedThread(std::string what, std::function<void()> body) {
  return std::thread([what = std::move(what), body = std::move(body)] { RunGuarded(what, body); });
}

}  // namespace dlp::server
