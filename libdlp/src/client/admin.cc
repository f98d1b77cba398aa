// Client's tenant, token and queue calls: a dlpd owner's administration
// (TenantAdmin, QueueAdmin) and the queues' standing (Scheduler).
#include "client/capability.h"
#include "dlp/client.h"
#include "dlp/status.h"

namespace dlp {

using internal::Offered;

absl::StatusOr<Tenant> Client::CreateTenant(std::string_view name, std::string_view unix_user,
                                            const std::vector<std::string>& queues) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->CreateTenant(Tenant{std::string(name), std::string(unix_user), {}, queues});
}

absl::StatusOr<Tenant> Client::SetTenantQueues(std::string_view tenant,
                                               const std::vector<std::string>& queues) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->SetTenantQueues(tenant, queues);
}

absl::StatusOr<Tenant> Client::SetTenantDiskQuota(std::string_view tenant,
                                                  std::optional<int64_t> bytes) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->SetTenantDiskQuota(tenant, bytes);
}

absl::StatusOr<std::vector<Tenant>> Client::ListTenants() {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->ListTenants();
}

absl::StatusOr<int> Client::DeleteTenant(std::string_view name) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->DeleteTenant(name);
}

absl::StatusOr<NewToken> Client::CreateToken(std::string_view tenant,
                                             std::optional<absl::Time> expires) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->CreateToken(tenant, expires);
}

absl::StatusOr<std::vector<TokenInfo>> Client::ListTokens(std::string_view tenant) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->ListTokens(tenant);
}

absl::StatusOr<TokenInfo> Client::RevokeToken(int64_t id) {
  DLP_ASSIGN_OR_RETURN(TenantAdmin * admin, Offered(*backend_, backend_->tenant_admin()));
  return admin->RevokeToken(id);
}

absl::StatusOr<Queue> Client::CreateQueue(const Queue& queue) {
  DLP_ASSIGN_OR_RETURN(QueueAdmin * admin, Offered(*backend_, backend_->queue_admin()));
  return admin->CreateQueue(queue);
}

absl::StatusOr<Queue> Client::UpdateQueue(const Queue& queue) {
  DLP_ASSIGN_OR_RETURN(QueueAdmin * admin, Offered(*backend_, backend_->queue_admin()));
  return admin->UpdateQueue(queue);
}

absl::StatusOr<Queue> Client::DeleteQueue(std::string_view name) {
  DLP_ASSIGN_OR_RETURN(QueueAdmin * admin, Offered(*backend_, backend_->queue_admin()));
  return admin->DeleteQueue(name);
}

absl::StatusOr<std::vector<Queue>> Client::ListQueues() {
  DLP_ASSIGN_OR_RETURN(QueueAdmin * admin, Offered(*backend_, backend_->queue_admin()));
  return admin->ListQueues();
}

absl::StatusOr<std::vector<QueueUsage>> Client::QueueUsages() {
  DLP_ASSIGN_OR_RETURN(Scheduler * scheduler, Offered(*backend_, backend_->scheduler()));
  return scheduler->QueueUsages();
}

absl::StatusOr<QueueUsage> Client::GetQueueUsage(std::string_view name) {
  DLP_ASSIGN_OR_RETURN(Scheduler * scheduler, Offered(*backend_, backend_->scheduler()));
  return scheduler->GetQueueUsage(name);
}

}  // namespace dlp
