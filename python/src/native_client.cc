#include "native_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dlp/artifacts.h"
#include "dlp/codec.h"
#include "dlp/pipeline.h"
#include "dlp/spec.h"
#include "dlp/sweep.h"
#include "status_error.h"

namespace dlp::python {
namespace {

absl::Duration TimeoutOf(double seconds) {
  return seconds < 0 ? absl::InfiniteDuration() : absl::Seconds(seconds);
}

double UnixSeconds(absl::Time time) { return absl::ToDoubleSeconds(time - absl::UnixEpoch()); }

}  // namespace

NativeClient::NativeClient(const std::string& context, const std::string& config) {
  ClientOptions options;
  options.context = context;
  options.config_path = config;
  client_ = ValueOrThrow(Client::Create(options));
}

std::string NativeClient::ContextName() const { return client_->context().name; }

Submitted NativeClient::Submit(const SpecSource& source) {
  const std::string text =
      source.text ? *source.text : ValueOrThrow(ReadSpecFile(source.path));
  const std::string kind = ValueOrThrow(SpecKind(text, source.path));
  SpecOptions options;
  options.overrides = source.overrides;
  options.name = source.name;
  if (kind == "Sweep") {
    SweepSpec spec = ValueOrThrow(ParseSweepSpec(text, source.path, options));
    return {kind, SweepToJson(ValueOrThrow(SubmitSweep(*client_, spec)))};
  }
  if (kind != "Job") {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        source.path, ": a ", kind, " cannot be submitted from Python; use `dlp submit`")));
  }
  JobSpec spec = ValueOrThrow(ParseJobSpec(text, source.path, options));
  return {kind, JobToJson(ValueOrThrow(client_->Submit(spec)))};
}

std::string NativeClient::Get(const std::string& id) {
  return JobToJson(ValueOrThrow(client_->Get(id)));
}

std::string NativeClient::List(const std::string& state,
                               const std::map<std::string, std::string>& labels,
                               const std::string& queue, int limit) {
  ListFilter filter;
  if (!state.empty()) {
    filter.state = ParseJobState(state);
    if (!filter.state) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
          "unknown state '", state, "': expected Queued, Running, Succeeded, Failed or Cancelled")));
    }
  }
  filter.labels = labels;
  filter.queue = queue;
  filter.limit = limit;
  return JobsToJson(ValueOrThrow(client_->List(filter)));
}

std::string NativeClient::Cancel(const std::string& id) {
  return JobToJson(ValueOrThrow(client_->Cancel(id)));
}

std::string NativeClient::Delete(const std::string& id, bool force) {
  return JobToJson(ValueOrThrow(client_->Delete(id, force)));
}

std::string NativeClient::Wait(const std::string& id, double timeout_seconds,
                               const StopCheck& stop) {
  WaitOptions options;
  options.timeout = TimeoutOf(timeout_seconds);
  options.cancelled = stop;
  return JobToJson(ValueOrThrow(client_->Wait(id, options)));
}

void NativeClient::Logs(const std::string& id, const LogRequest& request,
                        const std::function<bool(const LogRow&)>& sink) {
  LogOptions options;
  options.replica = request.replica;
  options.follow = request.follow;
  options.tail = request.tail;
  options.metrics = request.metrics;
  ThrowIfError(client_->Logs(id, options, [&](const LogLine& line) {
    return sink({line.replica, line.stream, line.text, UnixSeconds(line.time)});
  }));
}

std::vector<MetricRow> NativeClient::Metrics(const std::string& id, const std::string& name,
                                             const std::string& replica) {
  std::vector<MetricRow> rows;
  for (const MetricPoint& p : ValueOrThrow(client_->Metrics(id, {name, replica}))) {
    rows.push_back({p.replica, p.name, p.step, p.value, UnixSeconds(p.time)});
  }
  return rows;
}

std::string NativeClient::GetSweep(const std::string& id) {
  return SweepToJson(ValueOrThrow(dlp::GetSweep(*client_, id)));
}

std::string NativeClient::ListSweeps() {
  return SweepsToJson(ValueOrThrow(dlp::ListSweeps(*client_)));
}

std::string NativeClient::CancelSweep(const std::string& id) {
  return SweepToJson(ValueOrThrow(dlp::CancelSweep(*client_, id)));
}

std::string NativeClient::DeleteSweep(const std::string& id, bool force) {
  return SweepToJson(ValueOrThrow(dlp::DeleteSweep(*client_, id, force)));
}

std::string NativeClient::WaitSweep(const std::string& id, double timeout_seconds,
                                    const StopCheck& stop) {
  const absl::Time deadline = absl::Now() + TimeoutOf(timeout_seconds);
  bool timed_out = false;
  SweepFollowOptions options;
  options.cancelled = [&] {
    timed_out = absl::Now() >= deadline;
    return timed_out || (stop && stop());
  };
  absl::StatusOr<Sweep> sweep = FollowSweep(*client_, id, options);
  if (timed_out && absl::IsCancelled(sweep.status())) {
    ThrowIfError(absl::DeadlineExceededError(
        absl::StrCat("timed out waiting for sweep ", id, ": still Running")));
  }
  return SweepToJson(ValueOrThrow(std::move(sweep)));
}

std::string NativeClient::RegisterModel(const std::string& name, const std::string& job,
                                        const std::string& path, const std::string& alias) {
  return ModelVersionToJson(ValueOrThrow(client_->RegisterModel({name, job, path, alias})));
}

std::string NativeClient::GetModel(const std::string& ref) {
  return ModelVersionToJson(ValueOrThrow(client_->GetModel(ref)));
}

std::string NativeClient::ListModels() {
  return ModelVersionsToJson(ValueOrThrow(client_->ListModels()));
}

std::string NativeClient::DownloadModel(const std::string& ref, const std::string& dir) {
  return ModelVersionToJson(ValueOrThrow(client_->DownloadModel(ref, dir)));
}

}  // namespace dlp::python
