// dlpd's sweeps: the API's operations on them, and a loop that steps every
// active sweep (dlp/sweep_driver.h) against the job controller, whose jobs its
// trials are: they go through the queues, priorities and tenants as any job.
// State lives in the SweepStore, so a restarted dlpd goes on with every sweep
// where it was. Tenants see only their own sweeps (another's is NotFound),
// as with jobs. Thread-safe: every public method may be called from any thread.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/sweep.h"
#include "dlp/sweep_driver.h"
#include "server/controller/controller.h"
#include "server/store/sweep_store.h"

namespace dlp::server {

class SweepController {
 public:
  SweepController(SweepStore& store, Controller& jobs,
                  absl::Duration poll_interval = absl::Milliseconds(200));
  ~SweepController();  // stops the loop; trials keep running

  // Loads the active sweeps and starts the loop.
  absl::Status Start();
  void Shutdown();

  // InvalidArgument for an invalid spec (ValidateSweepSpec).
  absl::StatusOr<Sweep> Submit(SweepSpec spec, const std::string& tenant);
  absl::StatusOr<Sweep> Get(const std::string& id, const std::string& tenant);
  absl::StatusOr<std::vector<Sweep>> List(const std::string& tenant);
  // Stops its active trials and starts no more; a finished sweep is returned
  // unchanged.
  absl::StatusOr<Sweep> Cancel(const std::string& id, const std::string& tenant);
  // Deletes the sweep and its trials' jobs (Controller::DeleteGroup); returns
  // it as it was. FailedPrecondition while it is active, unless `force`: then
  // it is cancelled first and deleted once its trials have ended (within
  // kForcedDeleteWait, else FailedPrecondition and nothing deleted).
  absl::StatusOr<Sweep> Delete(const std::string& id, const std::string& tenant, bool force);

 private:
  class Host;
  void Loop();
  // The tenant a request names, as sweeps store it.
  static std::string Stored(const std::string& tenant);

  SweepStore& store_;
  Controller& jobs_;
  absl::Duration poll_interval_;
  std::unique_ptr<Host> host_;
  std::unique_ptr<SweepSaver> saver_;
  std::unique_ptr<SweepDriver> driver_;

  std::mutex mu_;  // guards everything below, and the driver
  std::condition_variable wake_;
  std::condition_variable stepped_;  // after each round of the loop
  std::map<std::string, Sweep> active_;  // by id
  bool stopping_ = false;
  bool work_ = false;
  std::thread loop_;
};

}  // namespace dlp::server
