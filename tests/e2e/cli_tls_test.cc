// The dlp program loads OpenSSL only to talk to an https:// server: a submit on
// the local backend maps no TLS library, a remote https:// context loads
// libdlp_https.so from the library folder beside the program, and a program
// copied without it says what is missing. The dynamic loader itself reports what
// it maps (LD_DEBUG=files).
#include <filesystem>

#include "cli_harness.h"
#include "dlp_build_config.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kModule[] = "libdlp_https.so";

TEST(CliTls, LocalSubmitLoadsNoTlsLibrary) {
  CliEnv env;
  // dlpd serves HTTPS and links OpenSSL; start it apart, so only dlp is watched.
  ASSERT_EQ(env.Dlp({"server", "start"}).exit_code, 0);
  const std::string spec = env.WriteJob("plain", "true");
  RunOptions options = env.Options();
  options.env["LD_DEBUG"] = "files";
  RunResult submitted = dlp::testing::Run({BinPath("dlp"), "submit", "-q", spec}, options);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_THAT(submitted.err, HasSubstr("libc.so"));  // LD_DEBUG reported
  EXPECT_THAT(submitted.err, Not(HasSubstr("libssl")));
  EXPECT_THAT(submitted.err, Not(HasSubstr("libcrypto")));
  EXPECT_THAT(submitted.err, Not(HasSubstr("httplib")));
  EXPECT_THAT(submitted.err, Not(HasSubstr(kModule)));
}

// A dlpd serving HTTPS with a self-signed certificate, and a config whose
// current context is a remote one that trusts it.
class CliHttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string cert = dir_.Join("cert.pem");
    const std::string key = dir_.Join("key.pem");
    RunResult made = dlp::testing::Run(
        {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert});
    if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a certificate: " << made.err;
    const std::string state = dir_.Join("dlpd");
    dlpd_ = std::make_unique<Background>(
        std::vector<std::string>{BinPath("dlpd"), "--state-dir", state, "--listen", "127.0.0.1:0",
                                 "--tls-cert", cert, "--tls-key", key});
    ASSERT_TRUE(Eventually(
        [&] {
          return !ReadFileOrEmpty(state + "/dlpd.addr").empty() &&
                 !ReadFileOrEmpty(state + "/dlpd.token").empty();
        },
        absl::Seconds(10)))
        << dlpd_->OutputSoFar();
    const std::string address(absl::StripAsciiWhitespace(ReadFileOrEmpty(state + "/dlpd.addr")));
    config_ = dir_.WriteFile(
        "config.yaml",
        absl::StrCat("current-context: team\ncontexts:\n  - name: team\n",
                     "    backend: remote\n    server: https://", address, "\n",
                     "    token-file: ", state, "/dlpd.token\n", "    ca-file: ", cert, "\n"));
  }

  RunResult DlpAt(const std::string& program, const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {program};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"DLP_CONFIG", config_}, {"LD_DEBUG", "files"}};
    options.unset_env = {"DLP_CONTEXT", "LD_LIBRARY_PATH"};
    options.timeout = absl::Seconds(60);
    return dlp::testing::Run(argv, options);
  }

  TempDir dir_;
  std::string config_;
  std::unique_ptr<Background> dlpd_;
};

TEST_F(CliHttpsTest, RemoteContextLoadsTheModule) {
  RunResult listed = DlpAt(BinPath("dlp"), {"list", "-o", "json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.err, HasSubstr(kModule));
  EXPECT_THAT(listed.err, HasSubstr("libssl"));
}

// An installed layout elsewhere: PREFIX/bin/dlp finds PREFIX/LIBDIR/libdlp_https.so.
TEST_F(CliHttpsTest, ProgramFindsTheModuleBesideItOrSaysItIsMissing) {
  if (fs::exists(fs::path(DLP_INSTALL_FULL_LIBDIR) / kModule)) {
    GTEST_SKIP() << "dlp is installed in " << DLP_INSTALL_FULL_LIBDIR
                 << ", which dlp also searches";
  }
  const fs::path prefix = dir_.Join("prefix");
  fs::create_directories(prefix / "bin");
  fs::copy_file(BinPath("dlp"), prefix / "bin/dlp");
  RunResult missing = DlpAt((prefix / "bin/dlp").string(), {"list"});
  EXPECT_EQ(missing.exit_code, 4) << missing.err;  // backend unreachable
  EXPECT_THAT(missing.err, HasSubstr("TLS module"));
  EXPECT_THAT(missing.err, HasSubstr(kModule));

  const fs::path libdir = prefix / DLP_INSTALL_LIBDIR;
  fs::create_directories(libdir);
  fs::copy_file(fs::path(DLP_BUILD_DIR) / DLP_INSTALL_LIBDIR / kModule, libdir / kModule);
  RunResult found = DlpAt((prefix / "bin/dlp").string(), {"list"});
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_THAT(found.err, HasSubstr((libdir / kModule).string()));
}

}  // namespace
}  // namespace dlp::testing
