#include "spec/depends_on.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "schema/fields.h"
#include "spec/rules.h"
#include "spec/suggest.h"

namespace dlp::internal {
namespace {

namespace fields = schema::dependency;

}  // namespace

std::vector<JobDependency> DecodeDependsOn(const nlohmann::json& node, const std::string& path,
                                           bool rules, SpecReader& r) {
  std::vector<JobDependency> out;
  if (!node.is_array()) {
    r.Report(path,
             absl::StrCat("expected a list such as [{job: prep, condition: succeeded}], got ",
                          r.Describe(node)));
    return out;
  }
  if (!r.Check(path, CheckDependencyCount(node.size()))) return out;
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < node.size(); ++i) {
    const nlohmann::json& item = node[i];
    const std::string item_path = absl::StrCat(path, "[", i, "]");
    if (!r.CheckObject(item, item_path, "a map with job and condition", schema::kDependency)) {
      continue;
    }
    JobDependency dependency;
    const std::string job_path = JoinPath(item_path, fields::kJob.name);
    if (SpecReader::Child(item, fields::kJob) == nullptr) {
      if (rules) {
        r.Required(item, item_path, fields::kJob, fields::kFieldNames,
                   "required; a job id or name");
        continue;
      }
    } else {
      std::optional<std::string> name = r.String(item, item_path, fields::kJob);
      if (!name || (rules && !r.Check(job_path, CheckDependencyJob(*name)))) continue;
      dependency.job = *name;
    }
    if (SpecReader::Child(item, fields::kCondition) != nullptr) {
      const std::string condition_path = JoinPath(item_path, fields::kCondition.name);
      std::optional<std::string> text = r.String(item, item_path, fields::kCondition);
      if (!text) continue;
      std::optional<DependencyCondition> condition = ParseDependencyCondition(*text);
      if (!condition) {  // the schema's names; one the code lacks fails spec_schema_test
        r.Report(condition_path,
                 absl::StrCat("unknown condition \"", *text, "\" (expected one of: ",
                              JoinNames(fields::kConditionValues), ")"));
        continue;
      }
      dependency.condition = *condition;
    }
    if (rules) {
      auto [seen, inserted] = first_line.emplace(dependency.job, r.Line(job_path));
      if (!inserted) {
        r.Report(job_path, absl::StrCat("job ", dependency.job, " is listed twice; first on line ",
                                        seen->second));
        continue;
      }
    }
    out.push_back(std::move(dependency));
  }
  return out;
}

}  // namespace dlp::internal
