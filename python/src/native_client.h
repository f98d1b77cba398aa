// The C++ side of the Python package: dlp::Client's calls as the Python layer
// (python/dlp/) wants them, objects in their JSON form (docs/api.md), the one
// wire form the API, `-o json` and the Python package share. Every failure
// throws StatusError (status_error.h); nothing here knows Python.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlp/client.h"

namespace dlp::python {

// A spec to submit: a file (diagnostics name it), or a document's text with
// the name its diagnostics use.
struct SpecSource {
  std::string path;                 // the file, or the name shown for `text`
  std::optional<std::string> text;  // set: parse this instead of reading `path`
  std::vector<std::string> overrides;
  std::string name;  // non-empty: replaces metadata.name
};

// What Submit made: a job's or a sweep's JSON document.
struct Submitted {
  std::string kind;  // "Job" or "Sweep"
  std::string json;
};

// One metric point; time in seconds since the epoch.
struct MetricRow {
  std::string replica, name;
  int64_t step = 0;
  double value = 0;
  double time = 0;
};

// One log line; time in seconds since the epoch.
struct LogRow {
  std::string replica, stream, text;
  double time = 0;
};

struct LogRequest {
  std::string replica;
  bool follow = false;
  int64_t tail = -1;
  bool metrics = true;
};

// Polled while waiting; true ends the wait with Cancelled (Ctrl-C).
using StopCheck = std::function<bool()>;

// Thread-safe as dlp::Client is.
class NativeClient {
 public:
  NativeClient(const std::string& context, const std::string& config);

  std::string ContextName() const;

  Submitted Submit(const SpecSource& source);
  std::string Get(const std::string& id);
  std::string List(const std::string& state, const std::map<std::string, std::string>& labels,
                   const std::string& queue, int limit);
  std::string Cancel(const std::string& id);
  std::string Delete(const std::string& id, bool force);
  // timeout_seconds < 0: no timeout (DeadlineExceeded when it passes).
  std::string Wait(const std::string& id, double timeout_seconds, const StopCheck& stop);
  // `sink` returns false to stop early.
  void Logs(const std::string& id, const LogRequest& request,
            const std::function<bool(const LogRow&)>& sink);
  std::vector<MetricRow> Metrics(const std::string& id, const std::string& name,
                                 const std::string& replica);

  std::string GetSweep(const std::string& id);
  std::string ListSweeps();
  std::string CancelSweep(const std::string& id);
  std::string DeleteSweep(const std::string& id, bool force);
  // Until the sweep has nothing left to do (see Wait for the timeout).
  std::string WaitSweep(const std::string& id, double timeout_seconds, const StopCheck& stop);

  std::string RegisterModel(const std::string& name, const std::string& job,
                            const std::string& path, const std::string& alias);
  std::string GetModel(const std::string& ref);
  std::string ListModels();
  std::string DownloadModel(const std::string& ref, const std::string& dir);

 private:
  std::unique_ptr<Client> client_;
};

}  // namespace dlp::python
