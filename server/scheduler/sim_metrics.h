// What the simulator measures over a run (simulator.h): utilisation per
// resource, job completion times, decision latency, and fairness.
//
// Fairness, per window of virtual time: a tenant's dominant share is the
// largest fraction of the machine's cpu, memory or gpu its running jobs hold.
// Its fair share is what weighted DRF would give it of what all tenants hold
// together: water-filling by weight (DRF's progressive filling), where each
// tenant wants no more than its demand: what it holds plus what its waiting
// jobs ask for. (So a tenant that holds much while another waits is above its
// fair share, by as much as the other asks for; a tenant that asks for less
// than its share cannot be under it; with nobody waiting every share is
// fair.) Both are integrated over the window; the deviation is |actual -
// fair| in percentage points of the machine, and Jain's index is taken over
// actual/fair of the tenants with a fair share (1: perfectly fair). The
// largest deviation is also kept over the windows that end by the last
// arrival alone: the steady state, as utilisation is measured.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "server/scheduler/simulator.h"

namespace dlp::server {

class SimMetrics {
 public:
  // The run starts at `origin`; utilisation is measured until `last_arrival`
  // (the steady state, before the machine drains), or to the end when all
  // jobs arrive at once.
  SimMetrics(const SimConfig& config, absl::Time origin, absl::Time last_arrival);

  // The machine held its present state from `from` to `to`.
  void Advance(absl::Time from, absl::Time to);
  // A tenant's job took (+1) or released (-1) `demand`.
  void Hold(const std::string& tenant, const ResourceVector& demand, int sign);
  // A tenant's job asking for `demand` began (+1) or stopped (-1) waiting.
  void Waiting(const std::string& tenant, const ResourceVector& demand, int sign);
  void Completed(absl::Duration completion_time) {
    jct_s_.push_back(absl::ToDoubleSeconds(completion_time));
  }
  void Decided(absl::Duration wall, absl::Duration cpu, int pending) {
    latency_.push_back({absl::ToDoubleMicroseconds(wall), pending});
    cpu_us_.push_back(absl::ToDoubleMicroseconds(cpu));
  }
  // Fills the measures of `result`; the run ended at `end`.
  void Finish(absl::Time end, SimResult& result);

 private:
  struct ResourceIntegral {
    double cpu = 0, memory = 0, gpu = 0;
    void Add(const ResourceVector& used, double seconds);
  };
  struct Tenant {
    ResourceVector used;
    int waiting = 0;
    ResourceVector wanted;  // what its waiting jobs ask for
    int weight = 1;
    double actual = 0;  // share-seconds in the current window
    double fair = 0;
    double total_actual = 0;  // share-seconds over the run
    double total_fair = 0;
    double max_deviation_pct = 0;
    double max_steady_deviation_pct = 0;
  };
  double DominantShare(const ResourceVector& used) const;
  // Each tenant's dominant share now, and its weighted DRF share of the total.
  void FairShares(std::map<std::string, double>& share, std::map<std::string, double>& fair) const;
  // Closes the window that ends at `end` and lasted `seconds`.
  void CloseWindow(absl::Time end, double seconds);

  const SimConfig& config_;
  absl::Time origin_;
  absl::Time last_arrival_;
  int64_t window_index_ = 0;
  std::map<std::string, Tenant> tenants_;
  ResourceVector used_;
  // Integrals of use: until the last arrival, and over the whole run.
  ResourceIntegral steady_, whole_;
  double jain_sum_ = 0;
  int windows_ = 0;
  double max_deviation_pct_ = 0;
  double max_steady_deviation_pct_ = 0;
  std::vector<double> jct_s_;
  std::vector<std::pair<double, int>> latency_;  // wall microseconds, pending jobs
  std::vector<double> cpu_us_;
};

}  // namespace dlp::server
