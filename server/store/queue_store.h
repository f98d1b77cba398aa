// Queues and which tenants may use them, in dlpd's SQLite file (tables
// `queues` and `queue_tenants`, migrations.cc). The scheduler reads an
// in-memory catalog, replaced on every change, so that a scheduling round
// costs no SQLite access and a change takes effect at the next round.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dlp/queue.h"
#include "server/scheduler/queue_config.h"
#include "server/store/sqlite.h"

namespace dlp::server {

// The public form and the scheduler's form of a queue's quotas.
ResourceVector ToResourceVector(const QueueResources& resources);
QueueResources ToQueueResources(const ResourceVector& resources);
QueueConfig ToQueueConfig(const Queue& queue);
Queue ToQueue(const QueueConfig& config);

// Every queue and grant as of one change: immutable once published.
struct QueueCatalog {
  uint64_t generation = 0;                               // raised by every change
  std::vector<QueueConfig> queues;                       // by name
  std::map<std::string, std::set<std::string>> allowed;  // tenant -> queues

  const QueueConfig* Find(absl::string_view name) const;
  // "nlp, vision": the names, for messages.
  std::string Names() const;
};

// What applying a file's queues changed.
struct QueueApplyResult {
  int created = 0, updated = 0, unchanged = 0;
};

class QueueStore {
 public:
  // Opens its own connection to the database at `path` and runs pending
  // migrations (the same ones as JobStore::Open).
  static absl::StatusOr<std::unique_ptr<QueueStore>> Open(const std::string& path);

  // InvalidArgument for a bad name, weight, range or limit; AlreadyExists.
  absl::StatusOr<QueueConfig> Create(const QueueConfig& queue);
  // Replaces the queue's settings (its grants stay). NotFound; InvalidArgument.
  absl::StatusOr<QueueConfig> Update(const QueueConfig& queue);
  // Removes the queue and its grants. NotFound. The caller refuses while
  // jobs are active in it.
  absl::Status Delete(const std::string& name);
  // Creates or replaces each of `queues` in one commit (dlpd --config: the
  // file wins for the queues it names; others are left as they are).
  absl::StatusOr<QueueApplyResult> Apply(const std::vector<QueueConfig>& queues);

  // The queues `tenant` may use become exactly `queues`. NotFound naming an
  // unknown queue.
  absl::Status SetTenantQueues(const std::string& tenant, const std::vector<std::string>& queues);
  // Forgets the tenant's grants (its deletion).
  absl::Status RemoveTenant(const std::string& tenant);

  // The current catalog: cheap, no SQLite access.
  std::shared_ptr<const QueueCatalog> Catalog() const;

 private:
  explicit QueueStore(Database db) : db_(std::move(db)) {}
  // Reloads the catalog from the database. Caller holds db_mu_.
  absl::Status Refresh();
  absl::Status WriteLocked(const QueueConfig& queue, bool insert);

  std::mutex db_mu_;  // serialises use of db_
  Database db_;
  uint64_t generation_ = 0;        // guarded by db_mu_
  mutable std::mutex catalog_mu_;  // guards the pointer, not what it points to
  std::shared_ptr<const QueueCatalog> catalog_;
};

}  // namespace dlp::server
