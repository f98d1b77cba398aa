// Hyperparameter sweeps (`kind: Sweep`, docs/experiments.md): a job template,
// the parameters to search, the search algorithm (grid, random, asha) and the
// objective. Each trial is an ordinary job whose command and env have the
// trial's `${params.NAME}` (and, for asha, `${resource}`) substituted.
// Plain value types; not thread-safe to mutate.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/job.h"
#include "dlp/spec.h"

namespace dlp {

enum class ParamType { kInt, kFloat, kLogFloat, kCategorical };
std::string_view ParamTypeName(ParamType type);  // "int", "float", "logfloat", "categorical"

struct ParameterSpec {
  std::string name;
  ParamType type = ParamType::kFloat;
  double min = 0, max = 0;          // int, float, logfloat (inclusive)
  int steps = 0;                    // grid over float/logfloat: points from min to max
  std::vector<std::string> values;  // categorical, as written
  friend bool operator==(const ParameterSpec&, const ParameterSpec&) = default;
};

enum class SearchAlgorithm { kGrid, kRandom, kAsha };
std::string_view SearchAlgorithmName(SearchAlgorithm algorithm);  // "grid", "random", "asha"

struct SearchSpec {
  SearchAlgorithm algorithm = SearchAlgorithm::kRandom;
  uint64_t seed = 0;
  // asha: the resource trials report their objective at (the `step=` of the
  // objective's DLP_METRIC lines counts it), its rungs min·η^k up to max.
  std::string resource = "epoch";
  int min_resource = 1;
  int max_resource = 1;
  int reduction_factor = 3;
  friend bool operator==(const SearchSpec&, const SearchSpec&) = default;
};

struct ObjectiveSpec {
  std::string metric;
  bool maximize = true;
  friend bool operator==(const ObjectiveSpec&, const ObjectiveSpec&) = default;
};

struct SweepSpec {
  std::string name;
  std::map<std::string, std::string> labels;
  ObjectiveSpec objective;
  SearchSpec search;
  int max_trials = 0;  // 0 (grid only): every point of the grid
  int parallelism = 1;
  std::vector<ParameterSpec> parameters;  // in file order
  JobSpec job;  // spec.template, placeholders not substituted; job.name = name
  friend bool operator==(const SweepSpec&, const SweepSpec&) = default;
};

// The limits of a sweep (docs/limits.md).
inline constexpr int kMaxSweepTrials = 10000;
inline constexpr int kMaxSweepParallelism = 1000;
inline constexpr int kMaxSweepParameters = 64;
inline constexpr int kMaxCategoricalValues = 1000;
inline constexpr int kMaxGridSteps = 1000;
inline constexpr int kMaxAshaResource = 100000;
inline constexpr int kMaxReductionFactor = 100;
inline constexpr int kMaxSweepNameBytes = 57;  // NAME-10000 is a job name (63)

// Parses a `kind: Sweep` document; errors as ParseJobSpec's
// ("sweep.yaml:12:9: spec.template.replicas.worker.command[3]: unknown
// parameter 'lrr' in ${params.lrr}; parameters: lr, hidden").
absl::StatusOr<SweepSpec> ParseSweepSpec(std::string_view yaml, std::string_view filename,
                                         const SpecOptions& options = {});
absl::StatusOr<SweepSpec> LoadSweepSpec(const std::string& path, const SpecOptions& options = {});
// (ReadSpecFile in dlp/spec.h reads a spec file; SpecKind in dlp/pipeline.h
// tells a sweep's document from a job's or a pipeline's.)
// The rules ParseSweepSpec applies, on a spec built in code or received over
// the API. InvalidArgument listing every problem.
absl::Status ValidateSweepSpec(const SweepSpec& spec);

// A trial's parameter values, by name, as substituted (numbers formatted).
using TrialParams = std::map<std::string, std::string>;
// Trial `number`'s job of sweep `sweep_id`: the template with `params` (and,
// for asha, the max resource) substituted into every replica's command and
// env, named NAME-NUMBER, with the sweep's labels and kSweepLabel/kTrialLabel.
// InvalidArgument when the result is not a valid job spec.
absl::StatusOr<JobSpec> TrialJobSpec(const SweepSpec& sweep, const std::string& sweep_id,
                                     int number, const TrialParams& params);
// Trial `number`'s values (1-based) as the sweep draws them: the grid's point
// number-1, or the seeded draw for random and asha (`dlp render` shows trial 1).
TrialParams TrialValues(const SweepSpec& sweep, int number);

// A trial: Pending (recorded, its job not yet submitted), then its job's
// state; a trial ASHA stops ends Cancelled with its reason.
enum class TrialState { kPending, kQueued, kRunning, kSucceeded, kFailed, kCancelled };
std::string_view TrialStateName(TrialState state);  // "Pending", "Queued", ... (the JSON's)
std::optional<TrialState> ParseTrialState(std::string_view name);
TrialState TrialStateOf(JobState state);  // a trial's once its job is submitted

// A sweep: Running, then Succeeded (every trial ended), Cancelled, or Failed
// (no trial could be started).
enum class SweepState { kRunning, kSucceeded, kCancelled, kFailed };
std::string_view SweepStateName(SweepState state);  // "Running", ... (the JSON's)
std::optional<SweepState> ParseSweepState(std::string_view name);

struct SweepTrial {
  int number = 0;   // 1-based
  std::string job;  // the job's id; empty while Pending
  TrialParams params;
  TrialState state = TrialState::kPending;
  std::string reason;
  // The trial's objective: its job's last reported value, unless the engine
  // stopped it first (then its value at the rung it was stopped at).
  std::optional<double> objective;
  int64_t resource = 0;  // the resource of that value (its step)
  // asha: the objective at each rung the trial reached.
  std::map<int64_t, double> rungs;
  bool stop_requested = false;  // the engine stopped it; its job is being cancelled
  // asha: the rung (resource) the engine stopped the trial at; 0 when it did
  // not, or when the job ended on its own before the stop reached it.
  int64_t stopped_at = 0;
};


struct Sweep {
  std::string id;
  std::string tenant;
  SweepState state = SweepState::kRunning;
  std::string reason;
  SweepSpec spec;
  std::vector<SweepTrial> trials;
  std::optional<absl::Time> created, finished;
};

// The index in sweep.trials of the best trial with an objective; nullopt if none.
std::optional<size_t> BestTrial(const Sweep& sweep);
// Why a trial stands where it does on the leaderboard: "finished" (its job
// ran to its end), "stopped at rung K (epoch R)", its state while active, or
// the state and reason of another end.
std::string TrialOutcome(const Sweep& sweep, const SweepTrial& trial);

// The wire form of the dlpd API (docs/api.md, "Sweeps"): every field, the
// trials' values as the strings substituted.
std::string SweepSpecToJson(const SweepSpec& spec);
absl::StatusOr<SweepSpec> SweepSpecFromJson(std::string_view json);
std::string SweepToJson(const Sweep& sweep);
absl::StatusOr<Sweep> SweepFromJson(std::string_view json);
std::string SweepsToJson(const std::vector<Sweep>& sweeps);  // {"sweeps":[...]}
absl::StatusOr<std::vector<Sweep>> SweepsFromJson(std::string_view json);
// `dlp sweep status -o json`, exactly {"id","state","objective":{"metric","goal"},
// "best":{trial}|null,"trials":[{"job","params":{...},"objective","resource",
// "state","reason","outcome"}]}; values of int/float/logfloat parameters are numbers.
std::string SweepStatusJson(const Sweep& sweep, int indent = 2);

// ---- Running sweeps (client/sweeps.cc) ----
// Where the client's backend is a dlpd (local, remote), dlpd runs the sweep
// and goes on after restarts. Elsewhere (Slurm) a sweep is "foreground": its
// id starts with "local-", its state is DefaultStateDir()/sweeps/ID.json, and
// FollowSweep drives it from the calling process. Errors are the backend's;
// NotFound for an unknown sweep or another tenant's.

class Client;

struct SweepFollowOptions {
  absl::Duration poll_interval = absl::Seconds(1);
  // Called after every round with the sweep as it is then.
  std::function<void(const Sweep&)> on_update;
  // Polled every round: true ends the follow with Cancelled (a dlpd's sweep
  // goes on; a foreground one waits to be followed again).
  std::function<bool()> cancelled;
};

// Validates the spec (InvalidArgument) and submits it; `foreground`: drive
// it from this process even where dlpd could run it.
absl::StatusOr<Sweep> SubmitSweep(const Client& client, const SweepSpec& spec,
                                  bool foreground = false);
absl::StatusOr<Sweep> GetSweep(const Client& client, std::string_view id);
// dlpd's sweeps of the caller's tenant, then the foreground ones.
absl::StatusOr<std::vector<Sweep>> ListSweeps(const Client& client);
// Stops the sweep's active trials and starts no more.
absl::StatusOr<Sweep> CancelSweep(const Client& client, std::string_view id);
// Deletes the sweep and its trials' jobs (their records and files, as
// Client::Delete); returns it as it was. FailedPrecondition while it is
// active, unless `force`: it is cancelled first and deleted once its trials
// have ended. Registered models stay. A foreground sweep's trials are
// deleted through the backend (left where it keeps its own history), then
// its state file.
absl::StatusOr<Sweep> DeleteSweep(const Client& client, std::string_view id, bool force = false);
// Until the sweep has nothing left to do: a dlpd's is polled; a foreground
// one is stepped here and saved after every step, so following it again
// after Ctrl-C or a crash goes on where it was (no trial lost or run twice).
absl::StatusOr<Sweep> FollowSweep(const Client& client, std::string_view id,
                                  const SweepFollowOptions& options);

// Labels every trial job carries.
inline constexpr std::string_view kSweepLabel = "dlp.dev/sweep";
inline constexpr std::string_view kTrialLabel = "dlp.dev/trial";

}  // namespace dlp
