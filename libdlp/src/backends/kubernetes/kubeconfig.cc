#include "backends/kubernetes/kubeconfig.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "config/paths.h"
#include "dlp/status.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal::k8s {
namespace {

// A named entry (cluster, user or context) and the file that defined it.
struct Entry {
  YAML::Node body;
  std::string file;
};

struct Merged {
  std::string current_context;
  std::map<std::string, Entry> clusters, users, contexts;
};

// Adds a file's `list` (clusters/users/contexts) under `key` (cluster/user/context);
// names already defined by an earlier file keep their first definition.
void MergeList(const YAML::Node& doc, const char* list, const char* key, const std::string& file,
               std::map<std::string, Entry>& into) {
  const YAML::Node items = doc[list];
  if (!items || !items.IsSequence()) return;
  for (const YAML::Node& item : items) {
    if (!item.IsMap() || !item["name"]) continue;
    into.emplace(item["name"].as<std::string>(), Entry{item[key], file});
  }
}

std::string Scalar(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return "";
  const YAML::Node value = node[key];
  return value && value.IsScalar() ? value.as<std::string>() : "";
}

// kubectl resolves a relative path against the folder of the file naming it.
std::string Resolve(const std::string& path, const std::string& file) {
  if (path.empty()) return path;
  std::string expanded = ExpandUser(path);
  if (expanded.front() == '/') return expanded;
  return (std::filesystem::path(file).parent_path() / expanded).string();
}

absl::StatusOr<std::string> Decode(const YAML::Node& node, const char* key, const std::string& file,
                                   const std::string& where) {
  const std::string encoded = Scalar(node, key);
  if (encoded.empty()) return encoded;
  std::string decoded;
  std::string compact;
  for (char c : encoded) {
    if (!absl::ascii_isspace(static_cast<unsigned char>(c))) compact.push_back(c);
  }
  if (!absl::Base64Unescape(compact, &decoded)) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": ", where, ".", key, " is not valid base64"));
  }
  return decoded;
}

absl::Status ReadInto(const std::string& file, Merged& merged) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", e.mark.line + 1, ":", e.mark.column + 1, ": ", e.msg));
  }
  if (!doc || doc.IsNull()) return absl::OkStatus();  // an empty file sets nothing
  if (!doc.IsMap()) return absl::InvalidArgumentError(absl::StrCat(file, ": not a kubeconfig"));
  try {
    if (merged.current_context.empty()) merged.current_context = Scalar(doc, "current-context");
    MergeList(doc, "clusters", "cluster", file, merged.clusters);
    MergeList(doc, "users", "user", file, merged.users);
    MergeList(doc, "contexts", "context", file, merged.contexts);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(file, ":", e.mark.line + 1, ": ", e.msg));
  }
  return absl::OkStatus();
}

absl::Status FillCluster(const Entry& cluster, const std::string& name, ClusterAccess& access) {
  const std::string where = absl::StrCat("clusters[", name, "]");
  access.server = Scalar(cluster.body, "server");
  if (access.server.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(cluster.file, ": ", where, " has no server"));
  }
  while (access.server.size() > 1 && access.server.back() == '/') access.server.pop_back();
  access.ca_file = Resolve(Scalar(cluster.body, "certificate-authority"), cluster.file);
  DLP_ASSIGN_OR_RETURN(access.ca_pem,
                       Decode(cluster.body, "certificate-authority-data", cluster.file, where));
  access.insecure_skip_tls_verify = Scalar(cluster.body, "insecure-skip-tls-verify") == "true";
  return absl::OkStatus();
}

absl::Status FillUser(const Entry& user, const std::string& name, ClusterAccess& access) {
  const std::string where = absl::StrCat("users[", name, "]");
  if (user.body && user.body.IsMap() && user.body["exec"]) {
    return absl::FailedPreconditionError(absl::StrCat(
        user.file, ": user '", name, "' gets its credentials from an exec plugin (",
        Scalar(user.body["exec"], "command"),
        "), which dlp does not run: give the user a token, tokenFile or client certificate "
        "(e.g. `kubectl create token SERVICE-ACCOUNT`)"));
  }
  if (user.body && user.body.IsMap() && user.body["auth-provider"]) {
    return absl::FailedPreconditionError(absl::StrCat(
        user.file, ": user '", name,
        "' uses an auth-provider plugin, which dlp does not support: give the user a token, "
        "tokenFile or client certificate"));
  }
  access.client_cert_file = Resolve(Scalar(user.body, "client-certificate"), user.file);
  DLP_ASSIGN_OR_RETURN(access.client_cert_pem,
                       Decode(user.body, "client-certificate-data", user.file, where));
  access.client_key_file = Resolve(Scalar(user.body, "client-key"), user.file);
  DLP_ASSIGN_OR_RETURN(access.client_key_pem,
                       Decode(user.body, "client-key-data", user.file, where));
  access.token = Scalar(user.body, "token");
  if (const std::string file = Resolve(Scalar(user.body, "tokenFile"), user.file);
      access.token.empty() && !file.empty()) {
    absl::StatusOr<std::string> token = ReadFile(file);
    if (!token.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(user.file, ": ", where, ".tokenFile: ", token.status().message()));
    }
    access.token = std::string(absl::StripAsciiWhitespace(*token));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> KubeConfigFiles(std::string_view paths) {
  std::string list(paths);
  if (list.empty()) {
    const char* env = std::getenv("KUBECONFIG");
    list = env != nullptr && *env != '\0' ? env : "~/.kube/config";
  }
  std::vector<std::string> files;
  for (absl::string_view part : absl::StrSplit(list, ':', absl::SkipWhitespace())) {
    files.push_back(ExpandUser(std::string(absl::StripAsciiWhitespace(part))));
  }
  return files;
}

absl::StatusOr<ClusterAccess> LoadKubeConfig(const std::vector<std::string>& files,
                                             std::string_view context) {
  Merged merged;
  int read = 0;
  for (const std::string& file : files) {
    if (!std::filesystem::exists(file)) continue;  // kubectl skips missing files too
    DLP_RETURN_IF_ERROR(ReadInto(file, merged));
    ++read;
  }
  if (read == 0) {
    return absl::NotFoundError(absl::StrCat("no kubeconfig file found (looked for ",
                                            absl::StrJoin(files, ", "),
                                            "); set the context's kubeconfig field"));
  }
  ClusterAccess access;
  access.context = context.empty() ? merged.current_context : std::string(context);
  if (access.context.empty()) {
    return absl::NotFoundError(absl::StrCat("the kubeconfig (", absl::StrJoin(files, ":"),
                                            ") has no current-context; set the dlp context's "
                                            "`context` field"));
  }
  auto ctx = merged.contexts.find(access.context);
  if (ctx == merged.contexts.end()) {
    return absl::NotFoundError(absl::StrCat("the kubeconfig (", absl::StrJoin(files, ":"),
                                            ") has no context '", access.context, "'"));
  }
  const std::string cluster_name = Scalar(ctx->second.body, "cluster");
  const std::string user_name = Scalar(ctx->second.body, "user");
  access.name_space = Scalar(ctx->second.body, "namespace");
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    return absl::NotFoundError(absl::StrCat("kubeconfig context '", access.context,
                                            "' names cluster '", cluster_name,
                                            "', which no kubeconfig file defines"));
  }
  DLP_RETURN_IF_ERROR(FillCluster(cluster->second, cluster_name, access));
  if (!user_name.empty()) {
    auto user = merged.users.find(user_name);
    if (user == merged.users.end()) {
      return absl::NotFoundError(absl::StrCat("kubeconfig context '", access.context,
                                              "' names user '", user_name,
                                              "', which no kubeconfig file defines"));
    }
    DLP_RETURN_IF_ERROR(FillUser(user->second, user_name, access));
  }
  return access;
}

}  // namespace dlp::internal::k8s
