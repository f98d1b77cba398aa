// kubeconfig files as kubectl reads them: clusters, users and contexts by name,
// `current-context`, and $KUBECONFIG's list of files merged (the first file to
// set a name or current-context wins). Relative paths resolve against the file
// that names them. Exec and auth-provider credential plugins are refused: dlp
// does not run programs named in a kubeconfig.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::internal::k8s {

// What a client needs to reach one cluster as one user.
struct ClusterAccess {
  std::string context;     // the kubeconfig context used
  std::string server;      // "https://10.0.0.1:6443"
  std::string name_space;  // the context's namespace; empty when it sets none
  std::string ca_file;     // certificate-authority
  std::string ca_pem;      // certificate-authority-data, decoded
  bool insecure_skip_tls_verify = false;
  std::string client_cert_file, client_cert_pem;
  std::string client_key_file, client_key_pem;
  std::string token;  // token, or the contents of tokenFile
};

// The files to read: `paths` (a context's `kubeconfig` field, ':'-separated),
// else $KUBECONFIG, else ~/.kube/config. "~/" is expanded; empty entries dropped.
std::vector<std::string> KubeConfigFiles(std::string_view paths);

// Reads and merges `files` (a missing file is skipped, as kubectl does, unless
// none exists) and resolves `context` (empty: current-context). Errors:
// NotFound for no file or an unknown context/cluster/user, InvalidArgument
// naming the file for malformed YAML or base64, FailedPrecondition for an exec
// or auth-provider user.
absl::StatusOr<ClusterAccess> LoadKubeConfig(const std::vector<std::string>& files,
                                             std::string_view context);

}  // namespace dlp::internal::k8s
