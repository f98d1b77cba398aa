// A tenant's replica that asks for no memory gets the default, written into
// its spec; one that asks keeps what it asked for.
#include "server/executor/tenant_defaults.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

JobSpec TwoRoles(int64_t worker_memory) {
  JobSpec spec;
  spec.replicas.push_back({.role = "chief", .count = 1, .command = {"a"}});
  spec.replicas.push_back({.role = "worker", .count = 4, .command = {"b"}});
  spec.replicas[1].resources.memory_bytes = worker_memory;
  return spec;
}

TEST(TenantDefaultsTest, AReplicaWithoutMemoryGetsTheDefault) {
  JobSpec spec = TwoRoles(int64_t{8} << 30);
  ApplyTenantDefaults(kDefaultTenantReplicaMemory, spec);
  EXPECT_EQ(spec.replicas[0].resources.memory_bytes, int64_t{4} << 30);
  EXPECT_EQ(spec.replicas[1].resources.memory_bytes, int64_t{8} << 30);
}

TEST(TenantDefaultsTest, ZeroLeavesTheSpecAsItIs) {
  JobSpec spec = TwoRoles(0);
  ApplyTenantDefaults(0, spec);
  EXPECT_EQ(spec.replicas[0].resources.memory_bytes, 0);
  EXPECT_EQ(spec.replicas[1].resources.memory_bytes, 0);
}

}  // namespace
}  // namespace dlp::server
