// Reads of the job spec and the sweep spec that must not compile
// (tests/CMakeLists.txt runs the compiler on each case and expects its
// error): the decoders read a member only through the schema's field tables
// (schema/fields.h), as the type the schema gives it, so code and schema
// cannot drift apart.
#include "spec/spec_reader.h"

namespace dlp::internal {

void Misuse(SpecReader& r, const nlohmann::json& value, YamlReader& y, const YAML::Node& node) {
#if DLP_MISUSE == 1  // a field the schema lacks
  r.String(value, "", schema::job_spec::kColour);
#elif DLP_MISUSE == 2  // a field read as another type than the schema's
  r.Int(value, "", schema::job_spec::kQueue);
#elif DLP_MISUSE == 3  // a member named by hand
  SpecReader::Child(value, "queue");
#elif DLP_MISUSE == 4  // a sweep field the schema lacks (the sweep decoder reads YAML)
  YamlReader::Child(node, schema::sweep_spec_search::kBudget);
#elif DLP_MISUSE == 5  // a sweep field read as another type than the schema's
  y.Int(node, "spec.objective", schema::sweep_spec_objective::kMetric);
#else  // the same reads as the schema has them compile
  r.String(value, "", schema::job_spec::kQueue);
  r.Int(value, "", schema::job_spec::kActiveDeadlineSeconds);
  SpecReader::Child(value, schema::job_spec::kQueue);
  YamlReader::Child(node, schema::sweep_spec_search::kSeed);
  y.Int(node, "spec.search", schema::sweep_spec_search::kSeed);
  y.String(node, "spec.objective", schema::sweep_spec_objective::kMetric);
#endif
}

}  // namespace dlp::internal
