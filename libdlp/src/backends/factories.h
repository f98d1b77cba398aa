// The factory of each backend built into libdlp; registry.cc maps names to them.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "dlp/backend.h"
#include "dlp/config.h"

namespace dlp::internal {

// Context fields: state-dir, dlpd (path of the daemon), autostart (default true).
absl::StatusOr<std::unique_ptr<Backend>> CreateLocalBackend(const Context& context);
// Context fields: server (required), token-file or token, ca-file,
// insecure-skip-tls-verify.
absl::StatusOr<std::unique_ptr<Backend>> CreateRemoteBackend(const Context& context);
// Context fields: partition, account, qos, workdir, dlp-run, user; rest-url and
// token-file select slurmrestd instead of the command-line tools.
absl::StatusOr<std::unique_ptr<Backend>> CreateSlurmBackend(const Context& context);
// Context fields: kubeconfig, context, namespace, flavour (jobset, job, trainjob,
// volcano), queue, image, gpu-resource, gpu-type-label, training-runtime (docs/kubernetes.md).
absl::StatusOr<std::unique_ptr<Backend>> CreateKubernetesBackend(const Context& context);

}  // namespace dlp::internal
