// The web UI's sign-in state, kept in memory (a restart signs everyone out):
// one-time sign-in codes that `dlp ui` asks for with its bearer token, and the
// sessions a browser holds as a cookie once it exchanged a code or a token.
// Only SHA-256 hashes of codes and session ids are kept, as for tokens. Each
// session remembers the hash of the token it came from, so that revoking that
// token ends its sessions too (the caller checks, see Authenticator).
// Thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::server {

struct UiSessionOptions {
  absl::Duration code_ttl = absl::Seconds(60);
  absl::Duration session_ttl = absl::Hours(12);
  size_t max_codes_per_tenant = 16;     // beyond: the oldest code is dropped
  size_t max_sessions_per_tenant = 32;  // beyond: the oldest session ends
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

// Who a code or a session signs in as: the tenant ("" for the owner) and the
// SHA-256 of the bearer token that made it.
struct UiIdentity {
  std::string tenant;
  std::string token_hash;
};

struct UiSession {
  UiIdentity identity;
  std::string csrf;  // sent back in X-CSRF-Token on every state-changing request
  absl::Time expires;
};

// A new session: the cookie's value (the only copy of the id) and its state.
struct NewUiSession {
  std::string id;
  UiSession session;
};

class UiSessions {
 public:
  explicit UiSessions(UiSessionOptions options = {});

  const UiSessionOptions& options() const { return options_; }

  // A fresh single-use code (128 bits or more of getrandom(2)) for `who`.
  absl::StatusOr<std::string> CreateCode(const UiIdentity& who);
  // Uses up `code`: the identity it was made for, or nullopt when the code is
  // unknown, already used or expired.
  std::optional<UiIdentity> RedeemCode(const std::string& code);

  // Starts a session for `who`.
  absl::StatusOr<NewUiSession> CreateSession(const UiIdentity& who);
  // The live session with cookie value `id`, or nullopt.
  std::optional<UiSession> Find(const std::string& id);
  // Ends the session (no-op for an unknown id).
  void End(const std::string& id);

 private:
  struct Code {
    UiIdentity identity;
    absl::Time expires;
    absl::Time created;
  };
  void ExpireLocked(absl::Time now);

  const UiSessionOptions options_;
  std::mutex mu_;
  std::map<std::string, Code> codes_;  // by hash of the code
  struct Entry {
    UiSession session;
    absl::Time created;
  };
  std::map<std::string, Entry> sessions_;  // by hash of the id
};

}  // namespace dlp::server
