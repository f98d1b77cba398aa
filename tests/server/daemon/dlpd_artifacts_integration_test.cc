// A real dlpd: a job writes into $DLP_OUTPUT_DIR; GET /v1/jobs/ID/artifacts
// lists it with digests and serves each file, and refuses every way out of
// the folder (.., encoded .., absolute paths, a symbolic link to
// /etc/passwd). The model registry copies a file into the blob store (the
// same content kept once), records the job's final metrics, labels and the
// workdir's commit, numbers versions and moves aliases.
#include <gtest/gtest.h>

#include <filesystem>

#include "contract/sha256.h"
#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

constexpr char kWrite[] =
    "printf weights > \"$DLP_OUTPUT_DIR/model.ckpt\"; mkdir \"$DLP_OUTPUT_DIR/epochs\"; "
    "echo one > \"$DLP_OUTPUT_DIR/epochs/1.json\"; ln -s /etc/passwd \"$DLP_OUTPUT_DIR/passwd\"; "
    "echo 'DLP_METRIC accuracy=0.5 step=1'; echo 'DLP_METRIC accuracy=0.875 step=2'";

class DlpdArtifactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DLP_RUN();
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"));
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    client_ = dlpd_->Client();
  }

  // Runs the job that writes the output folder; returns its id.
  std::string RunWriter() {
    JobSpec spec = ShellJob("writer", kWrite, 1, "100");
    spec.workdir = dir_.Join("repo/train");
    std::filesystem::create_directories(spec.workdir);
    dir_.WriteFile("repo/.git/HEAD", std::string(40, 'c') + "\n");
    spec.labels = {{"dlp.dev/sweep", "3"}, {"dlp.dev/trial", "2"}};
    const std::string id = SubmitJson(*client_, spec).value("id", "");
    EXPECT_EQ(WaitJob(*client_, id).value("state", ""), "Succeeded");
    return id;
  }

  int Status(const std::string& path) {
    auto res = client_->Get(path.c_str());
    return res ? res->status : 0;
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(DlpdArtifactsTest, ListsAndServesTheOutputFolderOnly) {
  const std::string id = RunWriter();
  const std::string base = "/v1/jobs/" + id + "/artifacts";
  int status = 0;
  nlohmann::json list = GetJson(*client_, base, &status);
  ASSERT_EQ(status, 200) << list.dump();
  ASSERT_EQ(list["artifacts"].size(), 2u) << list.dump();  // the link is not listed
  EXPECT_EQ(list["artifacts"][0]["path"], "epochs/1.json");
  EXPECT_EQ(list["artifacts"][1]["path"], "model.ckpt");
  EXPECT_EQ(list["artifacts"][1]["size"], 7);
  EXPECT_EQ(list["artifacts"][1]["sha256"], contract::Sha256Hex("weights"));
  nlohmann::json one = GetJson(*client_, base + "?path=epochs", &status);
  ASSERT_EQ(one["artifacts"].size(), 1u) << one.dump();

  auto file = client_->Get((base + "/model.ckpt").c_str());
  ASSERT_TRUE(file);
  EXPECT_EQ(file->status, 200);
  EXPECT_EQ(file->body, "weights");
  EXPECT_EQ(file->get_header_value("Content-Length"), "7");
  EXPECT_EQ(client_->Get((base + "/epochs/1.json").c_str())->body, "one\n");

  EXPECT_EQ(Status(base + "/passwd"), 404);
  EXPECT_EQ(Status(base + "/epochs"), 404);
  EXPECT_EQ(Status(base + "/missing"), 404);
  for (const std::string& escape :
       {base + "/../../../dlpd.token", base + "/epochs/../../logs/worker-0.log",
        base + "/%2e%2e/%2e%2e/dlpd.token", base + "//etc/passwd", base + "?path=../logs"}) {
    auto res = client_->Get(escape.c_str());
    ASSERT_TRUE(res) << escape;
    EXPECT_NE(res->status, 200) << escape << ": " << res->body;
    EXPECT_EQ(res->body.find(dlpd_->token()), std::string::npos) << escape;
    EXPECT_EQ(res->body.find("root:"), std::string::npos) << escape;
  }
  EXPECT_EQ(Status("/v1/jobs/999/artifacts"), 404);
  EXPECT_EQ(Status("/v1/jobs/999/artifacts/model.ckpt"), 404);
}

TEST_F(DlpdArtifactsTest, AModelsMetricsAreRankZeros) {
  // worker-1 reports a worse loss (its log is read after worker-0's); only
  // worker-1 reports `skew`.
  JobSpec spec = ShellJob(
      "ranks",
      "if [ \"$DLP_REPLICA\" = worker-0 ]; then echo 'DLP_METRIC loss=0.25 step=9'; echo x > "
      "\"$DLP_OUTPUT_DIR/model.ckpt\"; else echo 'DLP_METRIC loss=9 step=9'; "
      "echo 'DLP_METRIC skew=2 step=9'; fi",
      2, "100");
  const std::string id = SubmitJson(*client_, spec).value("id", "");
  ASSERT_EQ(WaitJob(*client_, id).value("state", ""), "Succeeded");
  int status = 0;
  const nlohmann::json model = PostJson(
      *client_, "/v1/models", {{"name", "ranked"}, {"job", id}, {"path", "model.ckpt"}}, &status);
  ASSERT_EQ(status, 201) << model.dump();
  EXPECT_EQ(model["metrics"]["loss"], 0.25) << model.dump();
  EXPECT_EQ(model["metrics"]["skew"], 2) << model.dump();
}

TEST_F(DlpdArtifactsTest, RegistersVersionsDeduplicatedWithTheirProvenance) {
  const std::string id = RunWriter();
  int status = 0;
  const nlohmann::json reg = {
      {"name", "fmnist"}, {"job", id}, {"path", "model.ckpt"}, {"alias", "staging"}};
  nlohmann::json v1 = PostJson(*client_, "/v1/models", reg, &status);
  ASSERT_EQ(status, 201) << v1.dump();
  EXPECT_EQ(v1["name"], "fmnist");
  EXPECT_EQ(v1["version"], 1);
  EXPECT_EQ(v1["file"], "model.ckpt");
  EXPECT_EQ(v1["sha256"], contract::Sha256Hex("weights"));
  EXPECT_EQ(v1["aliases"], nlohmann::json({"staging"}));
  EXPECT_EQ(v1["job"], id);
  EXPECT_EQ(v1["metrics"]["accuracy"], 0.875);  // the last value
  EXPECT_EQ(v1["labels"]["dlp.dev/trial"], "2");
  EXPECT_EQ(v1["gitCommit"], std::string(40, 'c'));
  EXPECT_EQ(v1["registeredBy"], "");
  EXPECT_EQ(v1["jobSpec"]["name"], "writer");

  nlohmann::json v2 = PostJson(*client_, "/v1/models",
                               {{"name", "fmnist"}, {"job", id}, {"path", "model.ckpt"}}, &status);
  ASSERT_EQ(status, 201) << v2.dump();
  EXPECT_EQ(v2["version"], 2);
  // One blob for the two versions.
  int blobs = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(dir_.Join("state/blobs/sha256"))) {
    blobs += e.is_regular_file();
  }
  EXPECT_EQ(blobs, 1);

  EXPECT_EQ(GetJson(*client_, "/v1/models/fmnist%40staging")["version"], 1);
  EXPECT_EQ(GetJson(*client_, "/v1/models/fmnist")["version"], 2);
  nlohmann::json moved = PostJson(*client_, "/v1/models/fmnist/aliases",
                                  {{"alias", "staging"}, {"version", 2}}, &status);
  ASSERT_EQ(status, 200) << moved.dump();
  EXPECT_EQ(GetJson(*client_, "/v1/models/fmnist%40staging")["version"], 2);
  EXPECT_EQ(client_->Get("/v1/models/fmnist:1/file")->body, "weights");
  EXPECT_EQ(GetJson(*client_, "/v1/models")["models"].size(), 2u);

  // The job's file changing later does not change a registered version.
  std::filesystem::remove(dir_.Join("state/jobs/" + id + "/output/model.ckpt"));
  EXPECT_EQ(client_->Get("/v1/models/fmnist:2/file")->body, "weights");

  PostJson(*client_, "/v1/models", {{"name", "../x"}, {"job", id}, {"path", "model.ckpt"}},
           &status);
  EXPECT_EQ(status, 400);
  PostJson(*client_, "/v1/models", {{"name", "m"}, {"job", id}, {"path", "passwd"}}, &status);
  EXPECT_EQ(status, 404);
  PostJson(*client_, "/v1/models", {{"name", "m"}, {"job", id}, {"path", "../dlpd.token"}},
           &status);
  EXPECT_EQ(status, 400);
  PostJson(*client_, "/v1/models", {{"name", "m"}, {"job", "999"}, {"path", "model.ckpt"}},
           &status);
  EXPECT_EQ(status, 404);
  EXPECT_EQ(Status("/v1/models/fmnist:3"), 404);
  EXPECT_EQ(Status("/v1/models/fmnist%40prod/file"), 404);
  PostJson(*client_, "/v1/models/fmnist/aliases", {{"alias", "prod"}, {"version", 9}}, &status);
  EXPECT_EQ(status, 404);
}

}  // namespace
}  // namespace dlp::testing
