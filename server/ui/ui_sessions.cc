#include "server/ui/ui_sessions.h"

#include <utility>

#include "dlp/status.h"
#include "server/auth/auth.h"

namespace dlp::server {
namespace {

// Drops the oldest entry of `tenant` when it has `bound` or more.
template <typename Map, typename IdentityOf>
void DropOldest(Map& map, const std::string& tenant, size_t bound, IdentityOf identity_of) {
  size_t count = 0;
  auto oldest = map.end();
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (identity_of(it->second).tenant != tenant) continue;
    ++count;
    if (oldest == map.end() || it->second.created < oldest->second.created) oldest = it;
  }
  if (count >= bound && oldest != map.end()) map.erase(oldest);
}

}  // namespace

UiSessions::UiSessions(UiSessionOptions options) : options_(std::move(options)) {}

void UiSessions::ExpireLocked(absl::Time now) {
  std::erase_if(codes_, [now](const auto& entry) { return entry.second.expires <= now; });
  std::erase_if(sessions_,
                [now](const auto& entry) { return entry.second.session.expires <= now; });
}

absl::StatusOr<std::string> UiSessions::CreateCode(const UiIdentity& who) {
  DLP_ASSIGN_OR_RETURN(std::string code, NewSecretToken());
  const absl::Time now = options_.clock();
  std::lock_guard<std::mutex> lock(mu_);
  ExpireLocked(now);
  DropOldest(codes_, who.tenant, options_.max_codes_per_tenant,
             [](const Code& c) -> const UiIdentity& { return c.identity; });
  codes_[HashToken(code)] = {who, now + options_.code_ttl, now};
  return code;
}

std::optional<UiIdentity> UiSessions::RedeemCode(const std::string& code) {
  const absl::Time now = options_.clock();
  std::lock_guard<std::mutex> lock(mu_);
  ExpireLocked(now);
  auto it = codes_.find(HashToken(code));
  if (it == codes_.end()) return std::nullopt;
  UiIdentity identity = std::move(it->second.identity);
  codes_.erase(it);
  return identity;
}

absl::StatusOr<NewUiSession> UiSessions::CreateSession(const UiIdentity& who) {
  DLP_ASSIGN_OR_RETURN(std::string id, NewSecretToken());
  DLP_ASSIGN_OR_RETURN(std::string csrf, NewSecretToken());
  const absl::Time now = options_.clock();
  NewUiSession out{std::move(id), {who, std::move(csrf), now + options_.session_ttl}};
  std::lock_guard<std::mutex> lock(mu_);
  ExpireLocked(now);
  DropOldest(sessions_, who.tenant, options_.max_sessions_per_tenant,
             [](const Entry& e) -> const UiIdentity& { return e.session.identity; });
  sessions_[HashToken(out.id)] = {out.session, now};
  return out;
}

std::optional<UiSession> UiSessions::Find(const std::string& id) {
  if (id.empty()) return std::nullopt;
  const absl::Time now = options_.clock();
  const std::string hash = HashToken(id);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(hash);
  if (it == sessions_.end()) return std::nullopt;
  if (it->second.session.expires <= now) {
    sessions_.erase(it);
    return std::nullopt;
  }
  return it->second.session;
}

void UiSessions::End(const std::string& id) {
  const std::string hash = HashToken(id);
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.erase(hash);
}

}  // namespace dlp::server
