#include "server/store/queue_store.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "dlp/queue_config.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {
namespace {

// Quotas are stored in their text form ("cpu=8,memory=64Gi,gpu=4"): exact,
// and readable with the sqlite3 shell. NULL: no limit.
std::optional<std::string> LimitText(const std::optional<ResourceVector>& limit) {
  if (!limit) return std::nullopt;
  return FormatQueueResources(ToQueueResources(*limit));
}

absl::StatusOr<ResourceVector> ReadResources(const std::string& text, const std::string& queue) {
  if (text.empty()) return ResourceVector{};
  absl::StatusOr<QueueResources> r = ParseQueueResources(text);
  if (!r.ok()) {
    return absl::DataLossError(
        absl::StrCat("queue ", queue, ": stored quota \"", text, "\": ", r.status().message()));
  }
  return ToResourceVector(*r);
}

absl::Status Validate(const QueueConfig& q) {
  DLP_RETURN_IF_ERROR(ValidateQueueName(q.name));
  if (!q.cohort.empty()) {
    if (absl::Status valid = ValidateQueueName(q.cohort); !valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("cohort: ", valid.message()));
    }
  }
  if (q.weight < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight: expected a positive integer, got ", q.weight));
  }
  if (q.min_priority > q.max_priority) {
    return absl::InvalidArgumentError(absl::StrCat("priority range: the minimum ", q.min_priority,
                                                   " is above the maximum ", q.max_priority));
  }
  return absl::OkStatus();
}

std::optional<int64_t> Bound(int value, int unbounded) {
  if (value == unbounded) return std::nullopt;
  return value;
}

}  // namespace

ResourceVector ToResourceVector(const QueueResources& r) {
  ResourceVector out;
  out.cpu_millis = r.cpu_millis;
  out.memory_bytes = r.memory_bytes;
  out.gpu_millis = r.gpu_millis;
  out.gpu_flavours = r.gpu_flavours;
  return out;
}

QueueResources ToQueueResources(const ResourceVector& r) {
  QueueResources out;
  out.cpu_millis = r.cpu_millis;
  out.memory_bytes = r.memory_bytes;
  out.gpu_millis = r.gpu_millis;
  for (const auto& [flavour, millis] : r.gpu_flavours) {
    if (millis != 0) out.gpu_flavours[flavour] = millis;
  }
  return out;
}

QueueConfig ToQueueConfig(const Queue& q) {
  QueueConfig out;
  out.name = q.name;
  out.cohort = q.cohort;
  out.nominal = ToResourceVector(q.nominal);
  if (q.borrowing_limit) out.borrowing_limit = ToResourceVector(*q.borrowing_limit);
  if (q.lending_limit) out.lending_limit = ToResourceVector(*q.lending_limit);
  out.weight = q.weight;
  out.min_priority = q.min_priority;
  out.max_priority = q.max_priority;
  return out;
}

Queue ToQueue(const QueueConfig& c) {
  Queue out;
  out.name = c.name;
  out.cohort = c.cohort;
  out.nominal = ToQueueResources(c.nominal);
  if (c.borrowing_limit) out.borrowing_limit = ToQueueResources(*c.borrowing_limit);
  if (c.lending_limit) out.lending_limit = ToQueueResources(*c.lending_limit);
  out.weight = c.weight;
  out.min_priority = c.min_priority;
  out.max_priority = c.max_priority;
  return out;
}

const QueueConfig* QueueCatalog::Find(absl::string_view name) const {
  for (const QueueConfig& q : queues) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

std::string QueueCatalog::Names() const {
  std::vector<std::string> names;
  for (const QueueConfig& q : queues) names.push_back(q.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<std::unique_ptr<QueueStore>> QueueStore::Open(const std::string& path) {
  DLP_ASSIGN_OR_RETURN(Database db, OpenStore(path));
  std::unique_ptr<QueueStore> store(new QueueStore(std::move(db)));
  std::lock_guard<std::mutex> lock(store->db_mu_);
  DLP_RETURN_IF_ERROR(store->Refresh());
  return store;
}

absl::Status QueueStore::Refresh() {
  auto catalog = std::make_shared<QueueCatalog>();
  catalog->generation = ++generation_;
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare("SELECT name, cohort, nominal, borrowing_limit, lending_limit, "
                                   "weight, min_priority, max_priority FROM queues ORDER BY name"));
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    QueueConfig q;
    q.name = s.Text(0);
    q.cohort = s.Text(1);
    DLP_ASSIGN_OR_RETURN(q.nominal, ReadResources(s.Text(2), q.name));
    if (s.OptionalInt(3).has_value()) {  // NULL: no limit
      DLP_ASSIGN_OR_RETURN(q.borrowing_limit, ReadResources(s.Text(3), q.name));
    }
    if (s.OptionalInt(4).has_value()) {
      DLP_ASSIGN_OR_RETURN(q.lending_limit, ReadResources(s.Text(4), q.name));
    }
    q.weight = static_cast<int>(s.Int(5));
    q.min_priority = static_cast<int>(s.OptionalInt(6).value_or(INT_MIN));
    q.max_priority = static_cast<int>(s.OptionalInt(7).value_or(INT_MAX));
    catalog->queues.push_back(std::move(q));
  }
  DLP_ASSIGN_OR_RETURN(Statement g, db_.Prepare("SELECT tenant, queue FROM queue_tenants"));
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, g.Step());
    if (!row) break;
    catalog->allowed[g.Text(0)].insert(g.Text(1));
  }
  std::lock_guard<std::mutex> lock(catalog_mu_);
  catalog_ = std::move(catalog);
  return absl::OkStatus();
}

std::shared_ptr<const QueueCatalog> QueueStore::Catalog() const {
  std::lock_guard<std::mutex> lock(catalog_mu_);
  return catalog_;
}

absl::Status QueueStore::WriteLocked(const QueueConfig& q, bool insert) {
  const int64_t now = absl::ToUnixMicros(absl::Now());
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare(insert ? "INSERT INTO queues (cohort, nominal, borrowing_limit, lending_limit, "
                           "weight, min_priority, max_priority, updated_us, name, created_us) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                         : "UPDATE queues SET cohort=?, nominal=?, borrowing_limit=?, "
                           "lending_limit=?, weight=?, min_priority=?, max_priority=?, "
                           "updated_us=? WHERE name=?"));
  s.Bind(1, q.cohort)
      .Bind(2, FormatQueueResources(ToQueueResources(q.nominal)))
      .Bind(5, int64_t{q.weight})
      .Bind(6, Bound(q.min_priority, INT_MIN))
      .Bind(7, Bound(q.max_priority, INT_MAX))
      .Bind(8, now)
      .Bind(9, q.name);
  // An empty limit is stored as "" (a limit of nothing), apart from NULL (none).
  if (auto b = LimitText(q.borrowing_limit))
    s.Bind(3, *b);
  else
    s.BindNull(3);
  if (auto l = LimitText(q.lending_limit))
    s.Bind(4, *l);
  else
    s.BindNull(4);
  if (insert) s.Bind(10, now);
  return s.Run();
}

absl::StatusOr<QueueConfig> QueueStore::Create(const QueueConfig& queue) {
  DLP_RETURN_IF_ERROR(Validate(queue));
  std::lock_guard<std::mutex> lock(db_mu_);
  if (Catalog()->Find(queue.name) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("queue \"", queue.name, "\" already exists"));
  }
  DLP_RETURN_IF_ERROR(WriteLocked(queue, /*insert=*/true));
  DLP_RETURN_IF_ERROR(Refresh());
  return queue;
}

absl::StatusOr<QueueConfig> QueueStore::Update(const QueueConfig& queue) {
  DLP_RETURN_IF_ERROR(Validate(queue));
  std::lock_guard<std::mutex> lock(db_mu_);
  if (Catalog()->Find(queue.name) == nullptr) {
    return absl::NotFoundError(absl::StrCat("no queue \"", queue.name, "\""));
  }
  DLP_RETURN_IF_ERROR(WriteLocked(queue, /*insert=*/false));
  DLP_RETURN_IF_ERROR(Refresh());
  return queue;
}

absl::Status QueueStore::Delete(const std::string& name) {
  std::lock_guard<std::mutex> lock(db_mu_);
  if (Catalog()->Find(name) == nullptr) {
    return absl::NotFoundError(absl::StrCat("no queue \"", name, "\""));
  }
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  for (const char* sql :
       {"DELETE FROM queue_tenants WHERE queue=?", "DELETE FROM queues WHERE name=?"}) {
    DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(sql));
    s.Bind(1, name);
    DLP_RETURN_IF_ERROR(s.Run());
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  return Refresh();
}

absl::StatusOr<QueueApplyResult> QueueStore::Apply(const std::vector<QueueConfig>& queues) {
  for (const QueueConfig& q : queues) {
    absl::Status valid = Validate(q);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("queue ", q.name, ": ", valid.message()));
    }
  }
  std::lock_guard<std::mutex> lock(db_mu_);
  std::shared_ptr<const QueueCatalog> before = Catalog();
  QueueApplyResult result;
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  for (const QueueConfig& q : queues) {
    const QueueConfig* stored = before->Find(q.name);
    if (stored != nullptr && *stored == q) {
      ++result.unchanged;
      continue;
    }
    DLP_RETURN_IF_ERROR(WriteLocked(q, /*insert=*/stored == nullptr));
    ++(stored == nullptr ? result.created : result.updated);
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  DLP_RETURN_IF_ERROR(Refresh());
  return result;
}

absl::Status QueueStore::SetTenantQueues(const std::string& tenant,
                                         const std::vector<std::string>& queues) {
  std::lock_guard<std::mutex> lock(db_mu_);
  std::shared_ptr<const QueueCatalog> catalog = Catalog();
  for (const std::string& q : queues) {
    if (catalog->Find(q) == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "no queue \"", q, "\"",
          catalog->queues.empty() ? "; this dlpd has no queues"
                                  : absl::StrCat("; its queues are ", catalog->Names())));
    }
  }
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(Statement clear, db_.Prepare("DELETE FROM queue_tenants WHERE tenant=?"));
  clear.Bind(1, tenant);
  DLP_RETURN_IF_ERROR(clear.Run());
  DLP_ASSIGN_OR_RETURN(Statement add, db_.Prepare("INSERT OR IGNORE INTO queue_tenants "
                                                  "(queue, tenant) VALUES (?, ?)"));
  for (const std::string& q : queues) {
    add.Reset().Bind(1, q).Bind(2, tenant);
    DLP_RETURN_IF_ERROR(add.Run());
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  return Refresh();
}

absl::Status QueueStore::RemoveTenant(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare("DELETE FROM queue_tenants WHERE tenant=?"));
  s.Bind(1, tenant);
  DLP_RETURN_IF_ERROR(s.Run());
  return Refresh();
}

}  // namespace dlp::server
