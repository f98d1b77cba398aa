// Model versions in the SQLite store: numbering per (tenant, name), aliases
// that move, references by version and alias, tenants kept apart, and all of
// it surviving a reopen.
#include "server/store/model_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ModelVersion Model(const std::string& name, const std::string& sha) {
  ModelVersion m;
  m.name = name;
  m.file = "model.ckpt";
  m.size = 7;
  m.sha256 = sha;
  m.job = "12";
  m.job_spec = R"({"name":"train"})";
  m.metrics = {{"accuracy", 0.88}, {"loss", 0.31}};
  m.labels = {{"dlp.dev/sweep", "3"}, {"dlp.dev/trial", "5"}};
  m.git_commit = std::string(40, 'a');
  return m;
}

class ModelStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    store_.reset();
    auto store = ModelStore::Open(dir_.Join("dlpd.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }
  testing::TempDir dir_;
  std::unique_ptr<ModelStore> store_;
};

TEST_F(ModelStoreTest, VersionsAliasesAndReferences) {
  auto v1 = store_->Add("alice", Model("fmnist", "s1"), "staging");
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->version, 1);
  EXPECT_THAT(v1->aliases, ElementsAre("staging"));
  auto v2 = store_->Add("alice", Model("fmnist", "s2"), "");
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->version, 2);
  // Numbering is per tenant and name.
  EXPECT_EQ(store_->Add("bob", Model("fmnist", "s1"), "")->version, 1);
  EXPECT_EQ(store_->Add("alice", Model("other", "s1"), "")->version, 1);

  Reopen();
  EXPECT_EQ(store_->Find("alice", {"fmnist", std::nullopt, ""})->version, 2);  // latest
  auto staging = store_->Find("alice", {"fmnist", std::nullopt, "staging"});
  ASSERT_TRUE(staging.ok()) << staging.status();
  EXPECT_EQ(staging->version, 1);
  EXPECT_EQ(staging->sha256, "s1");
  EXPECT_EQ(staging->metrics.at("accuracy"), 0.88);
  EXPECT_EQ(staging->labels.at("dlp.dev/trial"), "5");
  EXPECT_EQ(staging->git_commit, std::string(40, 'a'));
  EXPECT_EQ(staging->job_spec, R"({"name":"train"})");

  auto moved = store_->SetAlias("alice", "fmnist", "staging", 2);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_THAT(moved->aliases, ElementsAre("staging"));
  EXPECT_EQ(store_->Find("alice", {"fmnist", std::nullopt, "staging"})->version, 2);
  EXPECT_TRUE(store_->Find("alice", {"fmnist", 1, ""})->aliases.empty());

  EXPECT_TRUE(absl::IsNotFound(store_->SetAlias("alice", "fmnist", "prod", 9).status()));
  EXPECT_TRUE(absl::IsNotFound(store_->Find("alice", {"fmnist", 3, ""}).status()));
  EXPECT_TRUE(absl::IsNotFound(store_->Find("alice", {"fmnist", std::nullopt, "prod"}).status()));
  EXPECT_TRUE(absl::IsNotFound(store_->Find("carol", {"fmnist", std::nullopt, ""}).status()));

  auto alices = store_->List(std::string("alice"));
  ASSERT_TRUE(alices.ok());
  EXPECT_EQ(alices->size(), 3u);
  EXPECT_EQ(store_->List(std::nullopt)->size(), 4u);
}

TEST(ModelRefs, ParseAndValidate) {
  auto plain = ParseModelRef("fmnist");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->name, "fmnist");
  EXPECT_FALSE(plain->version);
  EXPECT_EQ(ParseModelRef("fmnist:3")->version, 3);
  EXPECT_EQ(ParseModelRef("fmnist@staging")->alias, "staging");
  for (const char* bad :
       {"", "fmnist:0", "fmnist:x", "fmnist@", "../x", "a/b", ".hidden", "fmnist@a/b"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseModelRef(bad).status())) << bad;
  }
  EXPECT_THAT(ValidateModelName(std::string(64, 'a')).message(), HasSubstr("1-63"));
  EXPECT_TRUE(ValidateModelName(std::string(63, 'a')).ok());
}

}  // namespace
}  // namespace dlp::server
