#include "sweep/spec_decoder.h"

#include <cmath>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/strings/string_view_compat.h"
#include "dlp/status.h"
#include "spec/document.h"
#include "spec/field_names.h"
#include "spec/reader.h"
#include "spec/suggest.h"
#include "sweep/placeholders.h"

namespace dlp::internal {
namespace {

// The schema's tables of a sweep spec's objects (schema/fields.h).
namespace sweepf = schema::sweep_spec;
namespace objectivef = schema::sweep_spec_objective;
namespace searchf = schema::sweep_spec_search;
namespace paramf = schema::sweep_parameter;

// The document's spec: SweepSpec's fields but metadata's (as a job's).
constexpr auto kSpecFields = Reshaped<std::size(sweepf::kFieldNames) - std::size(kMetadataFields)>(
    sweepf::kFieldNames, kMetadataFields);
// A parameter: SweepParameter's fields but its name, its key in spec.parameters.
constexpr absl::string_view kSweepParameterKey[] = {"name"};
constexpr auto kParameterFields =
    Reshaped<std::size(paramf::kFieldNames) - 1>(paramf::kFieldNames, kSweepParameterKey);
// The schema gives these as strings; the names are the decoder's.
constexpr absl::string_view kAlgorithms[] = {"grid", "random", "asha"};
constexpr absl::string_view kTypes[] = {"int", "float", "logfloat", "categorical"};

class SweepDecoder {
 public:
  SweepDecoder(const DecodeOptions& options, Diagnostics& diagnostics)
      : options_(options), diagnostics_(diagnostics), r_(diagnostics) {}

  SweepSpec Decode(const YAML::Node& root) {
    SweepSpec spec;
    if (!r_.Document(root, "a sweep", kSweepKind)) return spec;
    Metadata(root, spec);
    if (const YAML::Node body =
            r_.DocumentSpec(root, "required; a sweep needs spec.template", kSpecFields);
        body.IsDefined()) {
      Body(body, spec);
    }
    return spec;
  }

 private:
  void Metadata(const YAML::Node& root, SweepSpec& spec) {
    const YAML::Node meta = YamlReader::Child(root, "metadata");
    if (YamlReader::Present(meta) && r_.CheckMap(meta, "metadata", "a map", kMetadataFields)) {
      if (YAML::Node n = YamlReader::Child(meta, sweepf::kName); YamlReader::Present(n)) {
        if (auto v = r_.String(n, "metadata.name")) {
          spec.name = *v;
          if (options_.name.empty()) r_.Check(n, "metadata.name", CheckSweepName(*v));
        }
      }
      if (YAML::Node n = YamlReader::Child(meta, sweepf::kLabels); YamlReader::Present(n)) {
        if (auto v = r_.StringMap(n, "metadata.labels", CheckLabelKey, CheckLabelValue);
            v && r_.Check(n, "metadata.labels", CheckLabelCount(v->size() + 2))) {
          spec.labels = *v;
        }
      }
    }
    if (!options_.name.empty()) {
      spec.name = options_.name;
      if (Problem p = CheckSweepName(spec.name)) diagnostics_.AddPlain("--name: " + *p);
    } else if (spec.name.empty()) {
      r_.Required(YamlReader::Present(meta) ? meta : root,
                  YamlReader::Present(meta) ? "metadata" : "", sweepf::kName.name, kMetadataFields,
                  "required; a sweep needs a name (or pass --name)");
    }
  }

  std::optional<double> Number(const YAML::Node& node, absl::string_view path) {
    double value = 0;
    if (node.IsScalar() && absl::SimpleAtod(node.Scalar(), &value) && std::isfinite(value)) {
      return value;
    }
    r_.Report(node, path, absl::StrCat("expected a number, got ", Describe(node)));
    return std::nullopt;
  }

  // An integer field in [lo, hi]; `into` keeps its value when absent.
  void IntField(const YAML::Node& map, absl::string_view path, schema::IntField field, int lo,
                int hi, int& into) {
    if (std::optional<int64_t> v = r_.Int(map, path, field)) {
      if (*v < lo || *v > hi) {
        r_.Report(YamlReader::Child(map, field.field), JoinPath(path, field.field.name),
                  absl::StrCat(*v, " is out of range; expected ", lo, " to ", hi));
      } else {
        into = static_cast<int>(*v);
      }
    }
  }

  // One of `names` at `field`; nullopt when absent or unknown (reported).
  std::optional<std::string> Choice(const YAML::Node& map, absl::string_view path,
                                    schema::StringField field,
                                    std::span<const absl::string_view> names) {
    const YAML::Node n = YamlReader::Child(map, field.field);
    if (!YamlReader::Present(n)) return std::nullopt;
    const std::string at = JoinPath(path, field.field.name);
    std::optional<std::string> v = r_.String(n, at);
    if (!v) return std::nullopt;
    for (absl::string_view name : names) {
      if (name == *v) return v;
    }
    r_.Report(n, at, UnknownName(field.field.name, *v, names));
    return std::nullopt;
  }

  void Body(const YAML::Node& body, SweepSpec& spec) {
    Objective(body, spec);
    Search(body, spec);
    IntField(body, "spec", sweepf::kMaxTrials, 1, kMaxSweepTrials, spec.max_trials);
    IntField(body, "spec", sweepf::kParallelism, 1, kMaxSweepParallelism, spec.parallelism);
    Parameters(body, spec);
    const YAML::Node tmpl = YamlReader::Child(body, sweepf::kTemplate);
    if (!YamlReader::Present(tmpl)) {
      r_.Required(body, "spec", sweepf::kTemplate.name, kSpecFields,
                  "required; the job each trial runs (a job spec's `spec`)");
    } else {
      Template(tmpl, spec);
    }
    if (diagnostics_.empty()) {
      if (Problem p = CheckTrials(spec)) r_.Report(body, "spec", *p);
    }
  }

  void Objective(const YAML::Node& body, SweepSpec& spec) {
    const YAML::Node n = YamlReader::Child(body, sweepf::kObjective);
    if (!YamlReader::Present(n)) {
      r_.Required(body, "spec", sweepf::kObjective.name, kSpecFields,
                  "required; e.g. objective: {metric: test_accuracy, goal: maximize}");
      return;
    }
    if (!r_.CheckMap(n, "spec.objective", "a map with metric and goal", objectivef::kFieldNames)) {
      return;
    }
    if (YAML::Node m = YamlReader::Child(n, objectivef::kMetric); YamlReader::Present(m)) {
      if (auto v = r_.String(n, "spec.objective", objectivef::kMetric)) {
        if (Problem p = CheckParameterName(*v)) {
          r_.Report(m, "spec.objective.metric", absl::StrCat("a metric name: ", *p));
        }
        spec.objective.metric = *v;
      }
    } else {
      r_.Required(n, "spec.objective", objectivef::kMetric.name, objectivef::kFieldNames,
                  "required; the DLP_METRIC name the trials report");
    }
    if (auto goal = Choice(n, "spec.objective", objectivef::kGoal, objectivef::kGoal.values)) {
      spec.objective.maximize = *goal == "maximize";
    }
  }

  void Search(const YAML::Node& body, SweepSpec& spec) {
    const YAML::Node n = YamlReader::Child(body, sweepf::kSearch);
    if (!YamlReader::Present(n)) {
      r_.Required(body, "spec", sweepf::kSearch.name, kSpecFields,
                  "required; e.g. search: {algorithm: random, seed: 7}");
      return;
    }
    if (!r_.CheckMap(n, "spec.search", "a map", searchf::kFieldNames)) return;
    SearchSpec& s = spec.search;
    if (auto a = Choice(n, "spec.search", searchf::kAlgorithm, kAlgorithms)) {
      s.algorithm = *a == "grid"     ? SearchAlgorithm::kGrid
                    : *a == "random" ? SearchAlgorithm::kRandom
                                     : SearchAlgorithm::kAsha;
    } else if (!YamlReader::Present(YamlReader::Child(n, searchf::kAlgorithm))) {
      r_.Required(n, "spec.search", searchf::kAlgorithm.name, searchf::kFieldNames,
                  "required; one of grid, random, asha");
    }
    int seed = 0;
    IntField(n, "spec.search", searchf::kSeed, 0, INT32_MAX, seed);
    s.seed = static_cast<uint64_t>(seed);
    const bool asha = s.algorithm == SearchAlgorithm::kAsha;
    for (const schema::Field* field :
         {&searchf::kResource, &searchf::kMin, &searchf::kMax, &searchf::kReductionFactor}) {
      const YAML::Node f = YamlReader::Child(n, *field);
      if (!asha && YamlReader::Present(f)) {
        r_.Report(f, JoinPath("spec.search", field->name), "only asha has this field");
      }
    }
    if (!asha) return;
    if (auto v = r_.String(n, "spec.search", searchf::kResource)) s.resource = *v;
    IntField(n, "spec.search", searchf::kMin, 1, kMaxAshaResource, s.min_resource);
    if (!YamlReader::Present(YamlReader::Child(n, searchf::kMax))) {
      r_.Required(n, "spec.search", searchf::kMax.name, searchf::kFieldNames,
                  "required for asha; the resource a trial runs to (e.g. max: 8 epochs)");
    }
    IntField(n, "spec.search", searchf::kMax, 1, kMaxAshaResource, s.max_resource);
    IntField(n, "spec.search", searchf::kReductionFactor, 2, kMaxReductionFactor,
             s.reduction_factor);
    r_.Check(n, "spec.search", CheckSearch(s));
  }

  void Parameters(const YAML::Node& body, SweepSpec& spec) {
    const YAML::Node n = YamlReader::Child(body, sweepf::kParameters);
    if (!YamlReader::Present(n)) {
      r_.Required(body, "spec", sweepf::kParameters.name, kSpecFields,
                  "required; e.g. parameters: {lr: {type: logfloat, min: 0.001, max: 0.3}}");
      return;
    }
    if (!n.IsMap()) {
      r_.Report(n, "spec.parameters",
                absl::StrCat("expected a map of parameter names, got ", Describe(n)));
      return;
    }
    if (n.size() > static_cast<size_t>(kMaxSweepParameters)) {
      r_.Report(n, "spec.parameters",
                absl::StrCat(n.size(), " parameters; at most ", kMaxSweepParameters));
      return;
    }
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      if (!key.IsScalar()) {
        r_.Report(key, "spec.parameters", "expected a parameter name as key");
        continue;
      }
      const std::string path = JoinPath("spec.parameters", key.Scalar());
      if (!r_.Check(key, path, CheckParameterName(key.Scalar()))) continue;
      if (!seen.insert(key.Scalar()).second) {
        r_.Report(key, path, "duplicate key");
        continue;
      }
      if (auto p = Parameter(value, path)) {
        p->name = key.Scalar();
        spec.parameters.push_back(std::move(*p));
      }
    }
    if (spec.parameters.empty() && seen.empty()) {
      r_.Report(n, "spec.parameters", "needs at least one parameter");
    }
  }

  std::optional<ParameterSpec> Parameter(const YAML::Node& n, const std::string& path) {
    if (!r_.CheckMap(n, path, "a map with type and min/max or values", kParameterFields)) {
      return std::nullopt;
    }
    ParameterSpec p;
    if (auto t = Choice(n, path, paramf::kType, kTypes)) {
      p.type = *t == "int"        ? ParamType::kInt
               : *t == "float"    ? ParamType::kFloat
               : *t == "logfloat" ? ParamType::kLogFloat
                                  : ParamType::kCategorical;
    } else {
      if (!YamlReader::Present(YamlReader::Child(n, paramf::kType))) {
        r_.Required(n, path, paramf::kType.name, kParameterFields,
                    "required; one of int, float, logfloat, categorical");
      }
      return std::nullopt;
    }
    const bool categorical = p.type == ParamType::kCategorical;
    for (const schema::Field* field : {&paramf::kMin, &paramf::kMax, &paramf::kSteps}) {
      const YAML::Node f = YamlReader::Child(n, *field);
      const bool steps = field == &paramf::kSteps;
      if (!YamlReader::Present(f)) {
        if (!categorical && !steps) r_.Required(n, path, field->name, kParameterFields, "required");
        continue;
      }
      if (categorical || (steps && p.type == ParamType::kInt)) {
        r_.Report(
            f, JoinPath(path, field->name),
            absl::StrCat("not a field of a ", std::string(ParamTypeName(p.type)), " parameter"));
        continue;
      }
      if (steps) {
        IntField(n, path, paramf::kSteps, 1, kMaxGridSteps, p.steps);
      } else if (auto v = Number(f, JoinPath(path, field->name))) {
        (field == &paramf::kMin ? p.min : p.max) = *v;
      }
    }
    const YAML::Node values = YamlReader::Child(n, paramf::kValues);
    const std::string values_path = JoinPath(path, paramf::kValues.name);
    if (YamlReader::Present(values) && !categorical) {
      r_.Report(values, values_path, "only a categorical parameter has values");
    } else if (categorical) {
      if (!YamlReader::Present(values)) {
        r_.Required(n, path, paramf::kValues.name, kParameterFields,
                    "required; e.g. values: [128, 256]");
        return std::nullopt;
      }
      if (values.IsSequence() && values.size() > static_cast<size_t>(kMaxCategoricalValues)) {
        r_.Report(values, values_path,
                  absl::StrCat(values.size(), " values; at most ", kMaxCategoricalValues));
        return std::nullopt;
      }
      if (auto v = r_.StringList(values, values_path)) p.values = *v;
    }
    if (!diagnostics_.empty()) return p;
    r_.Check(n, path, CheckParameter(p));
    return p;
  }

  void Template(const YAML::Node& tmpl, SweepSpec& spec) {
    // The template is a job spec's `spec`: decoded by the job decoder inside a
    // job document made for it, its problems reported under spec.template.
    YAML::Node job(YAML::NodeType::Map);
    job["apiVersion"] = std::string(kApiVersion);
    job["kind"] = std::string(kKind);
    job["spec"] = tmpl;
    DecodeOptions options = options_;
    options.name = spec.name.empty() ? "sweep" : spec.name;
    diagnostics_.set_path_prefix("spec", "spec.template");
    spec.job = DecodeJobSpec(job, options, diagnostics_);
    diagnostics_.set_path_prefix("", "");
    spec.job.name = spec.name;
    Placeholders(tmpl, spec);
  }

  // Every command argument and env value of the template, with positions.
  void Placeholders(const YAML::Node& tmpl, const SweepSpec& spec) {
    auto env = [&](const YAML::Node& map, const std::string& path) {
      if (!map.IsMap()) return;
      for (auto it = map.begin(); it != map.end(); ++it) {
        const YAML::Node key = it->first;
        const YAML::Node value = it->second;
        if (key.IsScalar() && value.IsScalar()) {
          r_.Check(value, JoinPath(path, key.Scalar()), CheckPlaceholders(value.Scalar(), spec));
        }
      }
    };
    env(YamlReader::Child(tmpl, kSharedEnv[0]), "spec.template.env");
    const YAML::Node replicas = YamlReader::Child(tmpl, schema::job_spec::kReplicas);
    if (!replicas.IsMap()) return;
    for (auto it = replicas.begin(); it != replicas.end(); ++it) {
      const YAML::Node role = it->first;
      const YAML::Node replica = it->second;
      if (!role.IsScalar() || !replica.IsMap()) continue;
      const std::string path = JoinPath("spec.template.replicas", role.Scalar());
      const YAML::Node command = YamlReader::Child(replica, schema::replica_spec::kCommand);
      if (command.IsSequence()) {
        for (size_t i = 0; i < command.size(); ++i) {
          if (!command[i].IsScalar()) continue;
          r_.Check(command[i], absl::StrCat(path, ".command[", i, "]"),
                   CheckPlaceholders(command[i].Scalar(), spec));
        }
      }
      env(YamlReader::Child(replica, schema::replica_spec::kEnv), path + ".env");
    }
  }

  const DecodeOptions& options_;
  Diagnostics& diagnostics_;
  YamlReader r_;
};

absl::StatusOr<SweepSpec> Parse(absl::string_view yaml, absl::string_view filename,
                                const SpecOptions& options) {
  Diagnostics diagnostics(ShownSpecName(filename));
  std::optional<YAML::Node> root =
      LoadSpecDocument(yaml, options.overrides, "a sweep", diagnostics);
  if (!root) return diagnostics.ToStatus();
  DecodeOptions decode{.name = options.name, .base_dir = SpecBaseDir(filename)};
  SweepSpec spec = DecodeSweepSpec(*root, decode, diagnostics);
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  return spec;
}

}  // namespace

SweepSpec DecodeSweepSpec(const YAML::Node& root, const DecodeOptions& options,
                          Diagnostics& diagnostics) {
  return SweepDecoder(options, diagnostics).Decode(root);
}

}  // namespace dlp::internal

namespace dlp {

absl::StatusOr<SweepSpec> ParseSweepSpec(std::string_view yaml, std::string_view filename,
                                         const SpecOptions& options) {
  try {
    return internal::Parse(base::ToAbsl(yaml), base::ToAbsl(filename), options);
  } catch (const std::exception& e) {  // yaml-cpp throws on unexpected node shapes
    return absl::InvalidArgumentError(
        absl::StrCat(internal::ShownSpecName(base::ToAbsl(filename)), ": ", e.what()));
  }
}

absl::StatusOr<SweepSpec> LoadSweepSpec(const std::string& path, const SpecOptions& options) {
  DLP_ASSIGN_OR_RETURN(std::string text, ReadSpecFile(path));
  return ParseSweepSpec(text, path, options);
}

}  // namespace dlp
