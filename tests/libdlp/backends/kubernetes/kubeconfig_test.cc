// kubeconfig files read from disk: merging as kubectl does, every credential
// form, paths relative to their file, and the refusals.
#include "backends/kubernetes/kubeconfig.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp::internal::k8s {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// base64("PEM-CA"), base64("PEM-CERT"), base64("PEM-KEY").
constexpr char kCaData[] = "UEVNLUNB";
constexpr char kCertData[] = "UEVNLUNFUlQ=";
constexpr char kKeyData[] = "UEVNLUtFWQ==";

class KubeConfigTest : public ::testing::Test {
 protected:
  dlp::testing::TempDir dir_;
};

TEST_F(KubeConfigTest, CurrentContextWithTokenAndCaData) {
  const std::string file = dir_.WriteFile("config", std::string(R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: big
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: )") + kCaData + R"(
users:
- name: alice
  user:
    token: abc.def
contexts:
- name: prod
  context: {cluster: big, user: alice, namespace: ml}
)");
  absl::StatusOr<ClusterAccess> access = LoadKubeConfig({file}, "");
  ASSERT_TRUE(access.ok()) << access.status();
  EXPECT_EQ(access->context, "prod");
  EXPECT_EQ(access->server, "https://10.0.0.1:6443");
  EXPECT_EQ(access->name_space, "ml");
  EXPECT_EQ(access->ca_pem, "PEM-CA");
  EXPECT_EQ(access->token, "abc.def");
  EXPECT_FALSE(access->insecure_skip_tls_verify);
}

TEST_F(KubeConfigTest, ClientCertificatesAsDataOrFilesRelativeToTheirKubeconfig) {
  const std::string file = dir_.WriteFile("kube/config", std::string(R"(
current-context: a
clusters:
- {name: c, cluster: {server: "https://h:6443", certificate-authority: certs/ca.pem}}
- {name: insecure, cluster: {server: "https://h:6443", insecure-skip-tls-verify: true}}
users:
- {name: files, user: {client-certificate: certs/me.crt, client-key: /abs/me.key}}
- name: data
  user: {client-certificate-data: )") + kCertData +
                                                             ", client-key-data: " + kKeyData + R"(}
contexts:
- {name: a, context: {cluster: c, user: files}}
- {name: b, context: {cluster: insecure, user: data}}
)");
  absl::StatusOr<ClusterAccess> a = LoadKubeConfig({file}, "");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->ca_file, dir_.Join("kube/certs/ca.pem"));
  EXPECT_EQ(a->client_cert_file, dir_.Join("kube/certs/me.crt"));
  EXPECT_EQ(a->client_key_file, "/abs/me.key");
  EXPECT_EQ(a->name_space, "");

  absl::StatusOr<ClusterAccess> b = LoadKubeConfig({file}, "b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->insecure_skip_tls_verify);
  EXPECT_EQ(b->client_cert_pem, "PEM-CERT");
  EXPECT_EQ(b->client_key_pem, "PEM-KEY");
}

TEST_F(KubeConfigTest, TokenFileIsRead) {
  dir_.WriteFile("token", "  sa-token\n");
  const std::string file = dir_.WriteFile("config", R"(
current-context: x
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)");
  absl::StatusOr<ClusterAccess> access = LoadKubeConfig({file}, "");
  ASSERT_TRUE(access.ok()) << access.status();
  EXPECT_EQ(access->token, "sa-token");
}

// kubectl's rule: the first file to set a name (or current-context) wins;
// later files only add what is new; missing files are skipped.
TEST_F(KubeConfigTest, SeveralFilesMergeAsKubectlDoes) {
  const std::string first = dir_.WriteFile("one", R"(
current-context: dev
clusters: [{name: shared, cluster: {server: "https://first:6443"}}]
contexts: [{name: dev, context: {cluster: shared, user: u, namespace: first-ns}}]
)");
  const std::string second = dir_.WriteFile("two", R"(
current-context: prod
clusters:
- {name: shared, cluster: {server: "https://second:6443"}}
- {name: other, cluster: {server: "https://other:6443"}}
users: [{name: u, user: {token: from-two}}]
contexts:
- {name: dev, context: {cluster: other, user: u}}
- {name: prod, context: {cluster: other, user: u, namespace: prod-ns}}
)");
  setenv("KUBECONFIG", (first + ":" + dir_.Join("missing") + ":" + second).c_str(), 1);
  std::vector<std::string> files = KubeConfigFiles("");
  unsetenv("KUBECONFIG");
  EXPECT_THAT(files, ElementsAre(first, dir_.Join("missing"), second));

  absl::StatusOr<ClusterAccess> dev = LoadKubeConfig(files, "");
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_EQ(dev->context, "dev");  // first file's current-context
  EXPECT_EQ(dev->server, "https://first:6443");
  EXPECT_EQ(dev->name_space, "first-ns");
  EXPECT_EQ(dev->token, "from-two");  // only the second file has the user

  absl::StatusOr<ClusterAccess> prod = LoadKubeConfig(files, "prod");
  ASSERT_TRUE(prod.ok()) << prod.status();
  EXPECT_EQ(prod->server, "https://other:6443");
  EXPECT_EQ(prod->name_space, "prod-ns");
}

TEST_F(KubeConfigTest, TheContextFieldBeatsTheEnvironment) {
  setenv("KUBECONFIG", "/from/env", 1);
  EXPECT_THAT(KubeConfigFiles("/a:/b"), ElementsAre("/a", "/b"));
  EXPECT_THAT(KubeConfigFiles(""), ElementsAre("/from/env"));
  unsetenv("KUBECONFIG");
  setenv("HOME", dir_.path().c_str(), 1);
  EXPECT_THAT(KubeConfigFiles(""), ElementsAre(dir_.Join(".kube/config")));
}

TEST_F(KubeConfigTest, ExecPluginsAreRefusedByName) {
  const std::string file = dir_.WriteFile("config", R"(
current-context: eks
clusters: [{name: c, cluster: {server: "https://eks:443"}}]
users:
- name: aws
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws, args: [eks, get-token]}
contexts: [{name: eks, context: {cluster: c, user: aws}}]
)");
  absl::StatusOr<ClusterAccess> access = LoadKubeConfig({file}, "");
  EXPECT_EQ(access.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(access.status().message(), HasSubstr("exec plugin (aws)"));
  EXPECT_THAT(access.status().message(), HasSubstr("tokenFile"));
}

TEST_F(KubeConfigTest, ErrorsNameWhatIsMissing) {
  const std::string file = dir_.WriteFile("config", R"(
clusters: [{name: c, cluster: {server: "https://h"}}]
contexts: [{name: x, context: {cluster: nope}}]
)");
  EXPECT_THAT(LoadKubeConfig({file}, "").status().message(), HasSubstr("no current-context"));
  EXPECT_THAT(LoadKubeConfig({file}, "y").status().message(), HasSubstr("no context 'y'"));
  EXPECT_THAT(LoadKubeConfig({file}, "x").status().message(), HasSubstr("cluster 'nope'"));
  EXPECT_EQ(LoadKubeConfig({dir_.Join("none")}, "").status().code(), absl::StatusCode::kNotFound);
  const std::string bad = dir_.WriteFile("bad", "clusters: [\n");
  EXPECT_THAT(LoadKubeConfig({bad}, "").status().message(), HasSubstr(bad + ":"));
  const std::string bad64 = dir_.WriteFile("bad64", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://h", certificate-authority-data: "!!"}}]
contexts: [{name: x, context: {cluster: c}}]
)");
  EXPECT_THAT(LoadKubeConfig({bad64}, "").status().message(),
              HasSubstr("certificate-authority-data is not valid base64"));
}

}  // namespace
}  // namespace dlp::internal::k8s
