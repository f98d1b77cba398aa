// Shared setup for the tests against the real control plane that
// `scripts/services.sh start kubernetes` runs (etcd, kube-apiserver, the
// controllers, KWOK's fake nodes, JobSet, Kueue). Its env file ($DLP_K8S_ENV,
// else $DLP_K8S_DIR/env as start.sh wrote it, else /tmp/dlp-k8s/env) names
// the admin kubeconfig and kubectl; without it, or when the API server does
// not answer, the tests skip, saying why.
// A developer's own KUBECONFIG is never used: these tests create cluster-wide
// objects (ClusterQueues) that have no place on a real cluster.
//
// Each test gets a namespace of its own, deleted at the end, and the real
// build/bin/dlp with a context on it. KWOK ends every pod about two seconds
// after it runs, with the exit code of its label dlp-test/exit (default 0).
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/time/clock.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/env_file.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {

class KubeCluster {
 public:
  // `flavour`: the context's (jobset, job); `queue`: a Kueue LocalQueue that
  // the test makes with UseQueue, or "" for none.
  explicit KubeCluster(const std::string& flavour)
      : env_(ReadEnvFile("DLP_K8S_ENV", DefaultEnvFile())), flavour_(flavour) {
    if (env_.count("KUBECONFIG") == 0 || env_.count("DLP_K8S_KUBECTL") == 0) {
      const char* named = getenv("DLP_K8S_ENV");
      skip_reason_ = absl::StrCat(
          "no Kubernetes test cluster (run `scripts/services.sh start kubernetes`; no ",
          named != nullptr ? named : DefaultEnvFile(), ")");
      return;
    }
    RunResult ready = Kubectl({"get", "--raw", "/readyz"});
    if (ready.exit_code != 0) {
      skip_reason_ = "the Kubernetes test cluster does not answer: " + ready.err;
      return;
    }
    namespace_ = absl::StrCat("dlp-t-", flavour, "-", getpid(), "-", counter_++, "-",
                              absl::ToUnixMillis(absl::Now()) % 100000);
    RunResult made = Kubectl({"create", "namespace", namespace_});
    if (made.exit_code != 0) {
      skip_reason_ = "cannot create a namespace in the test cluster: " + made.err;
      return;
    }
    WriteConfig("");
  }
  ~KubeCluster() {
    if (namespace_.empty()) return;
    Kubectl({"delete", "namespace", namespace_, "--wait=false"});
    if (!cluster_queue_.empty()) {
      Kubectl({"delete", "clusterqueue", cluster_queue_, "--wait=false"});
    }
  }

  // Where start.sh wrote the env file: $DLP_K8S_DIR/env, as for the scripts.
  static std::string DefaultEnvFile() {
    const char* dir = getenv("DLP_K8S_DIR");
    return absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp/dlp-k8s", "/env");
  }

  const std::string& skip_reason() const { return skip_reason_; }
  const std::string& ns() const { return namespace_; }
  const std::string& flavour() const { return flavour_; }
  const TempDir& dir() const { return dir_; }
  std::string Kubeconfig() const { return env_.at("KUBECONFIG"); }
  // A line of the cluster's env file; "" when it has none (an older start.sh).
  std::string EnvValue(const std::string& key) const {
    auto it = env_.find(key);
    return it == env_.end() ? "" : it->second;
  }

  // The workload's resource as kubectl names it.
  std::string WorkloadResource() const {
    return flavour_ == "job" ? "jobs.batch" : "jobsets.jobset.x-k8s.io";
  }

  RunResult Kubectl(const std::vector<std::string>& args, const std::string& stdin_data = "") const {
    std::vector<std::string> argv = {env_.at("DLP_K8S_KUBECTL"), "--kubeconfig",
                                     env_.at("KUBECONFIG")};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.stdin_data = stdin_data;
    options.timeout = absl::Seconds(60);
    return Run(argv, options);
  }
  // `kubectl get ... -o json` in the test's namespace; null when it fails.
  nlohmann::json Get(const std::vector<std::string>& what) const {
    std::vector<std::string> args = {"get", "-n", namespace_, "-o", "json"};
    args.insert(args.end(), what.begin(), what.end());
    RunResult r = Kubectl(args);
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  void Apply(const std::string& yaml) const {
    RunResult r = Kubectl({"apply", "-n", namespace_, "-f", "-"}, yaml);
    ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << yaml;
  }

  // A ClusterQueue of this test with `cpu` CPUs and `gpus` GPUs in one flavour,
  // and a LocalQueue `lq` in the namespace that the context then submits to.
  // `within_queue`: its preemption.withinClusterQueue (Never, LowerPriority).
  void UseQueue(int cpu, int gpus, const std::string& within_queue = "Never") {
    cluster_queue_ = namespace_;
    Apply(absl::StrCat(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: dlp-test-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: )", cluster_queue_, R"(}
spec:
  namespaceSelector:
    matchLabels: {kubernetes.io/metadata.name: )", namespace_, R"(}
  preemption: {withinClusterQueue: )", within_queue, R"(}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: dlp-test-flavor
      resources:
      - {name: cpu, nominalQuota: )", cpu, R"(}
      - {name: memory, nominalQuota: 64Gi}
      - {name: nvidia.com/gpu, nominalQuota: )", gpus, R"(}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq}
spec: {clusterQueue: )", cluster_queue_, "}\n"));
    WriteConfig("lq");
  }

  // The dlp config: one kubernetes context on this namespace.
  void WriteConfig(const std::string& queue, const std::string& kubeconfig = "",
                   const std::string& name_space = "") const {
    std::string context = absl::StrCat(
        "current-context: k8s\ncontexts:\n  - name: k8s\n    backend: kubernetes\n",
        "    kubeconfig: ", kubeconfig.empty() ? Kubeconfig() : kubeconfig, "\n",
        "    namespace: ", name_space.empty() ? namespace_ : name_space, "\n    flavour: ", flavour_, "\n    image: dlp:test\n");
    if (!queue.empty()) absl::StrAppend(&context, "    queue: ", queue, "\n");
    dir_.WriteFile("config.yaml", context);
  }

  RunResult Dlp(const std::vector<std::string>& args,
                absl::Duration timeout = absl::Seconds(120)) const {
    return Run(DlpArgv(args), DlpOptions(timeout));
  }
  std::unique_ptr<Background> DlpInBackground(const std::vector<std::string>& args) const {
    return std::make_unique<Background>(DlpArgv(args), DlpOptions(absl::InfiniteDuration()));
  }

  // Lets the pods of job `id` that the label dlp-test/hold keeps running
  // (kwok-stages.yaml) end, with the exit code of their dlp-test/exit.
  void Release(const std::string& id) const {
    RunResult r = Kubectl({"label", "pods", "-n", namespace_, "-l", "dlp.dev/job-id=" + id,
                           "dlp-test/hold-"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // A one-role job of `count` workers; `labels` its metadata.labels
  // (dlp-test/exit: "N" ends its pods with code N, dlp-test/hold keeps them
  // running until Release), `resources` the role's, `more` other spec fields.
  std::string WriteJob(const std::string& name, int count,
                       const std::map<std::string, std::string>& labels = {},
                       const nlohmann::json& resources = {{"cpu", "1"}},
                       const nlohmann::json& more = nlohmann::json::object()) const {
    nlohmann::json job = {
        {"apiVersion", "dlp/v1"},
        {"kind", "Job"},
        {"metadata", {{"name", name}, {"labels", labels}}},
        {"spec",
         {{"workdir", "/workspace"},
          {"replicas",
           {{"worker",
             {{"count", count}, {"command", {"python3", "train.py"}}, {"resources", resources}}}}}}}};
    job["spec"].update(more);
    return dir_.WriteFile(name + ".yaml", job.dump(2));
  }

  // Submits (with `more` arguments) and returns the id; "" on failure.
  std::string Submit(const std::string& file, const std::vector<std::string>& more = {}) const {
    std::vector<std::string> args = {"submit", "-q", file};
    args.insert(args.end(), more.begin(), more.end());
    RunResult r = Dlp(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
    return lines.empty() ? "" : std::string(absl::StripAsciiWhitespace(lines.front()));
  }

  nlohmann::json Status(const std::string& id) const {
    RunResult r = Dlp({"status", id, "-o", "json"});
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

 private:
  std::vector<std::string> DlpArgv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  RunOptions DlpOptions(absl::Duration timeout) const {
    RunOptions options;
    options.env = {{"DLP_CONFIG", dir_.Join("config.yaml")}, {"NO_COLOR", "1"}};
    options.unset_env = {"DLP_CONTEXT", "KUBECONFIG"};
    options.cwd = dir_.path();
    options.timeout = timeout;
    return options;
  }

  static inline int counter_ = 0;
  std::map<std::string, std::string> env_;
  std::string flavour_;
  std::string skip_reason_;
  std::string namespace_;
  std::string cluster_queue_;
  TempDir dir_;
};

#define DLP_SKIP_WITHOUT_KUBERNETES(cluster)                                         \
  do {                                                                               \
    if (!(cluster).skip_reason().empty()) GTEST_SKIP() << (cluster).skip_reason();   \
  } while (0)

}  // namespace dlp::testing
