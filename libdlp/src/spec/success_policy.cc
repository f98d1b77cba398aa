#include "spec/success_policy.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "schema/fields.h"
#include "spec/rules.h"

namespace dlp::internal {

SuccessPolicy DecodeSuccessPolicy(const nlohmann::json& node, const std::string& path,
                                  const std::vector<ReplicaSpec>& replicas, bool rules,
                                  SpecReader& r) {
  SuccessPolicy policy;
  namespace fields = schema::job_spec_success_policy;
  if (!r.CheckObject(node, path, "a map with roles, e.g. {roles: [chief]}",
                     schema::kJobSpecSuccessPolicy)) {
    return policy;
  }
  const nlohmann::json* roles = SpecReader::Child(node, fields::kRoles);
  const std::string roles_path = JoinPath(path, fields::kRoles.name);
  if (roles == nullptr) {
    if (rules) {
      r.Required(node, path, fields::kRoles, fields::kFieldNames, "required; e.g. roles: [chief]");
    }
    return policy;
  }
  if (!roles->is_array()) {
    r.Report(roles_path,
             absl::StrCat("expected a list of roles, e.g. [chief], got ", r.Describe(*roles)));
    return policy;
  }
  std::optional<std::vector<std::string>> names = r.StringList(*roles, roles_path);
  if (!names || !r.Check(roles_path, CheckSuccessRoleCount(names->size()))) return policy;
  if (!rules) {
    policy.roles = *names;
    return policy;
  }
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string item_path = absl::StrCat(roles_path, "[", i, "]");
    const std::string& role = (*names)[i];
    if (!r.Check(item_path, CheckSuccessRole(role, replicas))) continue;
    auto [seen, inserted] = first_line.emplace(role, r.Line(item_path));
    if (!inserted) {
      r.Report(item_path,
               absl::StrCat("role ", role, " is listed twice; first on line ", seen->second));
      continue;
    }
    policy.roles.push_back(role);
  }
  return policy;
}

}  // namespace dlp::internal
