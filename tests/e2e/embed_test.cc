// The installed library works for others: `cmake --install` the build tree into a
// temporary prefix, build examples/embed against it with find_package(dlp), run
// it against a real dlpd (the installed one, over HTTP and over HTTPS), and link a
// C program using dlp/comm.h through pkg-config.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "dlp/local_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

std::string Describe(const RunResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\nstdout:\n" + result.out +
         "\nstderr:\n" + result.err;
}

// One install and one build of the example, shared by the tests of this file.
class EmbedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    prefix_ = dir_->Join("prefix");
    RunResult install =
        dlp::testing::Run({"cmake", "--install", DLP_BUILD_DIR, "--prefix", prefix_}, {.timeout = absl::Seconds(120)});
    install_error_ = install.exit_code == 0 ? "" : "cmake --install failed: " + Describe(install);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
#ifdef DLP_TEST_SANITIZED
    // The installed archives carry the sanitizers' instrumentation, which a
    // plain consumer cannot link; the unsanitized build runs these tests.
    GTEST_SKIP() << "a sanitized build installs instrumented libraries";
#endif
    ASSERT_EQ(install_error_, "");
  }

  // $PREFIX/lib or $PREFIX/lib/<multiarch>, whichever the install used.
  static std::string LibDir() {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(prefix_)) {
      if (entry.path().filename() == "libdlp.a") return entry.path().parent_path().string();
    }
    return prefix_ + "/lib";
  }

  // The example, built once against the prefix with find_package(dlp); sets
  // example_error_ when it cannot be built.
  static std::string Example() {
    const std::string build = dir_->Join("embed-build");
    const std::string program = build + "/embed";
    if (!example_error_.empty() || std::filesystem::exists(program)) return program;
    std::vector<std::string> configure = {"cmake", "-S",
                                          std::string(DLP_SOURCE_DIR) + "/examples/embed", "-B",
                                          build, "-DCMAKE_PREFIX_PATH=" + prefix_,
                                          "-DCMAKE_BUILD_TYPE=Release"};
    if (std::system("command -v ccache >/dev/null 2>&1") == 0) {
      configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
    }
    RunResult configured = dlp::testing::Run(configure, {.timeout = absl::Seconds(120)});
    if (configured.exit_code != 0) {
      example_error_ = "configure: " + Describe(configured);
      return program;
    }
    RunResult built = dlp::testing::Run({"cmake", "--build", build}, {.timeout = absl::Seconds(300)});
    if (built.exit_code != 0) example_error_ = "build: " + Describe(built);
    return program;
  }

  static TempDir* dir_;
  static std::string prefix_;
  static std::string install_error_;
  static std::string example_error_;
};

TempDir* EmbedTest::dir_ = nullptr;
std::string EmbedTest::prefix_;
std::string EmbedTest::install_error_;
std::string EmbedTest::example_error_;

TEST_F(EmbedTest, ExampleBuildsWithFindPackageAndRunsJobs) {
  const std::string embed = Example();
  ASSERT_EQ(example_error_, "");

  const std::string spec = dir_->WriteFile("job.yaml", R"(apiVersion: dlp/v1
kind: Job
metadata: {name: embedded}
spec:
  replicas:
    worker:
      count: 2
      command: [sh, -c, 'echo hello from $DLP_REPLICA; echo DLP_METRIC loss=0.5 step=3']
      resources: {cpu: 100m}
)");
  const std::string failing = dir_->WriteFile("fail.yaml", R"(apiVersion: dlp/v1
kind: Job
metadata: {name: embedded-fail}
spec:
  replicas:
    worker: {count: 1, command: [sh, -c, 'echo bye; exit 7'], resources: {cpu: 100m}}
)");
  // The local context (no config file), a fresh state folder, the installed dlpd.
  RunOptions options;
  options.env = {{"XDG_STATE_HOME", dir_->Join("state")},
                 {"DLP_CONFIG", dir_->Join("no-config.yaml")},
                 {"DLP_DLPD", prefix_ + "/bin/dlpd"}};
  options.unset_env = {"DLP_CONTEXT"};
  options.timeout = absl::Seconds(60);
  RunResult ok = dlp::testing::Run({embed, spec}, options);
  RunResult failed = dlp::testing::Run({embed, failing}, options);
  LocalServerOptions server;
  server.state_dir = dir_->Join("state") + "/dlp";
  EXPECT_TRUE(StopLocalServer(server).ok());

  EXPECT_EQ(ok.exit_code, 0) << Describe(ok);
  EXPECT_THAT(ok.out, HasSubstr("[worker-0] hello from worker-0"));
  EXPECT_THAT(ok.out, HasSubstr("[worker-1] hello from worker-1"));
  EXPECT_THAT(ok.out, HasSubstr("Succeeded"));
  // Metric lines are left out of the followed logs and read as metrics.
  EXPECT_THAT(ok.out, ::testing::Not(HasSubstr("] DLP_METRIC")));
  EXPECT_THAT(ok.out, HasSubstr("metric worker-0 loss=0.5 step=3\n"));
  EXPECT_THAT(ok.out, HasSubstr("metric worker-1 loss=0.5 step=3\n"));
  EXPECT_EQ(failed.exit_code, 1) << Describe(failed);  // a failed job is never 0
  EXPECT_THAT(failed.out, HasSubstr("[worker-0] bye"));
}

// An embedding program reaches an https:// server: libdlp opens the installed TLS
// module, found through the RUNPATH that find_package(dlp) gave the program.
TEST_F(EmbedTest, ExampleReachesAnHttpsServer) {
  const std::string embed = Example();
  ASSERT_EQ(example_error_, "");
  const std::string cert = dir_->Join("cert.pem");
  const std::string key = dir_->Join("key.pem");
  RunResult made = dlp::testing::Run(
      {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
       "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert});
  if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a certificate: " << made.err;
  const std::string state = dir_->Join("tls-state");
  Background dlpd({prefix_ + "/bin/dlpd", "--state-dir", state, "--listen", "127.0.0.1:0",
                   "--tls-cert", cert, "--tls-key", key});
  ASSERT_TRUE(Eventually([&] {
    return !ReadFileOrEmpty(state + "/dlpd.addr").empty() &&
           !ReadFileOrEmpty(state + "/dlpd.token").empty();
  }, absl::Seconds(10)))
      << dlpd.OutputSoFar();
  std::string address = ReadFileOrEmpty(state + "/dlpd.addr");
  while (!address.empty() && address.back() == '\n') address.pop_back();
  const std::string config = dir_->WriteFile(
      "tls-config.yaml", "current-context: team\ncontexts:\n  - name: team\n"
                         "    backend: remote\n    server: https://" + address + "\n"
                         "    token-file: " + state + "/dlpd.token\n    ca-file: " + cert + "\n");
  const std::string spec = dir_->WriteFile("tls-job.yaml", R"(apiVersion: dlp/v1
kind: Job
metadata: {name: embedded-tls}
spec:
  replicas:
    worker: {count: 1, command: [sh, -c, 'echo hello over tls'], resources: {cpu: 100m}}
)");
  RunOptions options;
  options.env = {{"DLP_CONFIG", config}};
  options.unset_env = {"DLP_CONTEXT", "LD_LIBRARY_PATH"};
  options.timeout = absl::Seconds(60);
  RunResult ran = dlp::testing::Run({embed, spec}, options);
  EXPECT_EQ(ran.exit_code, 0) << Describe(ran);
  EXPECT_THAT(ran.out, HasSubstr("[worker-0] hello over tls"));
  EXPECT_THAT(ran.out, HasSubstr("Succeeded"));
}

TEST_F(EmbedTest, CProgramLinksTheCollectivesThroughPkgConfig) {
  const std::string archive = LibDir() + "/libdlp_runtime.a";
  RunResult symbols = dlp::testing::Run({"sh", "-c", "nm -g --defined-only " + archive + " | grep -q ' T dlp_allreduce$'"});
  if (symbols.exit_code != 0) {
    GTEST_SKIP() << "dlp_runtime does not define the dlp/comm.h functions yet";
  }
  const std::string source = dir_->WriteFile("comm.c", R"(#include <stdio.h>
#include <dlp/comm.h>
int main(void) {
  dlp_comm* comm = NULL;
  if (dlp_comm_init_from_env(&comm) != 0) {
    printf("init failed: %s\n", dlp_last_error());
    return 3;
  }
  float x = 1.0f;
  dlp_allreduce(comm, &x, &x, 1, DLP_FLOAT32, DLP_SUM);
  dlp_barrier(comm);
  dlp_comm_destroy(comm);
  return 0;
}
)");
  const std::string binary = dir_->Join("comm");
  RunOptions options;
  options.env = {{"PKG_CONFIG_PATH", LibDir() + "/pkgconfig"}};
  RunResult built = dlp::testing::Run({"sh", "-c", "cc -std=c99 -o " + binary + " " + source +
                                         " $(pkg-config --cflags --libs dlp)"},
                        options);
  ASSERT_EQ(built.exit_code, 0) << Describe(built);
  // Without dlp-run's environment it cannot join, and says so.
  RunResult ran = dlp::testing::Run({binary}, {.unset_env = {"RANK", "WORLD_SIZE", "DLP_STORE_ADDR"}});
  EXPECT_EQ(ran.exit_code, 3) << Describe(ran);
  EXPECT_THAT(ran.out, HasSubstr("init failed: "));
}

}  // namespace
}  // namespace dlp::testing
