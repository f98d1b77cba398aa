// The profile summary: per-rank step statistics, the communication share,
// allreduce bandwidth, the straggler and throughput per restart.
//
// A step is a span of category "step"; phases are "phase" spans inside it and
// communication is "comm" spans inside it (collectives, whose duration
// includes waiting for the slowest rank): on the step's thread it is time the
// step waited; on another thread it ran beside the step's compute.
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dlp/profile.h"
#include "profile/trace_events.h"

namespace dlp {
namespace {

using internal::RankTrace;
using internal::TraceEvent;

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

double Median(std::vector<double> v) { return Percentile(std::move(v), 0.5); }

struct RankAccum {
  std::string host;
  double offset_us = 0;
  std::vector<double> step_ms;
  double comm_ms = 0;
  double overlapped_comm_ms = 0;
  std::map<std::string, double> phase_ms;
};

bool Inside(const TraceEvent& inner, const TraceEvent& outer) {
  return inner.ts >= outer.ts && inner.ts < outer.ts + outer.dur;
}

// Adds one file's steps to `acc`; returns the restart segment of this file.
// Steps are those that start inside the window; their phases and collectives
// are counted whole.
RestartSegment Accumulate(const RankTrace& t, const internal::FileWindow& window,
                          RankAccum& acc) {
  std::vector<const TraceEvent*> steps, inner;
  for (const TraceEvent& e : t.events) {
    if (e.ph != "X") continue;
    if (e.cat == "step") {
      if (window.Contains(e.ts)) steps.push_back(&e);
    } else if (e.cat == "comm" || e.cat == "phase") {
      inner.push_back(&e);
    }
  }
  RestartSegment seg;
  seg.restart = t.restart;
  double samples = 0;
  size_t j = 0;  // both lists are sorted by start time
  for (const TraceEvent* s : steps) {
    while (j < inner.size() && inner[j]->ts < s->ts) ++j;
    double comm = 0;
    for (size_t k = j; k < inner.size() && Inside(*inner[k], *s); ++k) {
      if (inner[k]->cat == "comm" && inner[k]->tid != s->tid) {
        acc.overlapped_comm_ms += inner[k]->dur / 1e3;
      } else if (inner[k]->cat == "comm") {
        comm += inner[k]->dur;
      } else {
        acc.phase_ms[inner[k]->name] += inner[k]->dur / 1e3;
      }
    }
    acc.step_ms.push_back(s->dur / 1e3);
    acc.comm_ms += comm / 1e3;
    if (s->args.is_object()) samples += s->args.value("samples", 0.0);
  }
  seg.steps = static_cast<int>(steps.size());
  if (!steps.empty()) {
    seg.seconds = (steps.back()->ts + steps.back()->dur - steps.front()->ts) / 1e6;
    if (seg.seconds > 0) {
      seg.steps_per_s = seg.steps / seg.seconds;
      seg.samples_per_s = samples / seg.seconds;
    }
  }
  return seg;
}

std::string PhaseWords(const std::string& phase) {
  if (phase == "data") return "data loading";
  if (phase == "optimizer") return "optimizer step";
  return phase;
}

}  // namespace

std::string Straggler::Describe() const {
  std::string out = absl::StrFormat(
      "rank %d is %.2f× the median step time (excluding collective waits)", rank, ratio);
  if (!phase.empty()) absl::StrAppend(&out, ": ", PhaseWords(phase));
  return out;
}

absl::StatusOr<Profile> SummarizeTraces(const std::vector<TraceFile>& files,
                                        const ProfileOptions& options) {
  std::vector<RankTrace> traces = internal::ParseTraceFiles(files);
  std::map<int, RankAccum> ranks;
  std::map<int, RestartSegment> restarts;  // per restart: the lowest rank's segment
  std::map<int, double> restart_samples;
  // Per collective: the bus bandwidths, sizes and durations of its spans.
  struct Spans {
    std::vector<double> busbw, bytes, ms;
  };
  std::map<std::string, Spans> collectives;
  size_t events = 0;
  for (const RankTrace& t : traces) {
    events += t.events.size();
    const internal::FileWindow window = internal::WindowOf(options, t.file);
    RankAccum& acc = ranks[t.rank];
    if (!t.host.empty()) acc.host = t.host;
    acc.offset_us = t.offset_us;
    RestartSegment seg = Accumulate(t, window, acc);
    restart_samples[t.restart] += seg.samples_per_s;
    if (!restarts.count(t.restart)) restarts[t.restart] = seg;
    for (const TraceEvent& e : t.events) {
      if (e.ph != "X" || e.cat != "comm" || !window.Contains(e.ts) || !e.args.is_object() ||
          !e.args.contains("busbw_GBps")) {
        continue;
      }
      Spans& spans = collectives[e.name];
      spans.busbw.push_back(e.args.value("busbw_GBps", 0.0));
      spans.bytes.push_back(e.args.value("bytes", 0.0));
      spans.ms.push_back(e.dur / 1000);
    }
  }
  if (events == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no trace events in ", files.size(),
                     " trace file(s); was the job run with tracing on (DLP_TRACE_DIR)?"));
  }
  Profile p;
  p.ranks = static_cast<int>(ranks.size());
  double step_total = 0, comm_total = 0, overlapped_total = 0;
  for (auto& [rank, acc] : ranks) {
    RankProfile r;
    r.rank = rank;
    r.host = acc.host;
    r.clock_offset_us = acc.offset_us;
    r.steps = static_cast<int>(acc.step_ms.size());
    if (r.steps > 0) {
      double sum = 0;
      for (double s : acc.step_ms) sum += s;
      r.step_p50_ms = Percentile(acc.step_ms, 0.5);
      r.step_p95_ms = Percentile(acc.step_ms, 0.95);
      r.step_max_ms = *std::max_element(acc.step_ms.begin(), acc.step_ms.end());
      r.comm_ms = acc.comm_ms / r.steps;
      r.work_ms = (sum - acc.comm_ms) / r.steps;
      for (auto& [name, ms] : acc.phase_ms) r.phases.push_back({name, ms / r.steps});
      step_total += sum;
      comm_total += acc.comm_ms;
      overlapped_total += acc.overlapped_comm_ms;
    }
    p.per_rank.push_back(std::move(r));
  }
  if (step_total > 0) {
    p.comm_share = comm_total / step_total;
    p.compute_share = 1 - p.comm_share;
    p.overlapped_comm_share = overlapped_total / step_total;
  }
  for (auto& [op, spans] : collectives) {
    p.collectives.push_back({op, static_cast<int>(spans.busbw.size()),
                             static_cast<int64_t>(Median(spans.bytes)), Median(spans.busbw),
                             Median(spans.ms)});
    if (op == "allreduce") {
      p.allreduce_count = p.collectives.back().count;
      p.allreduce_bytes = p.collectives.back().bytes;
      p.allreduce_busbw_GBps = p.collectives.back().busbw_GBps;
    }
  }
  for (auto& [restart, seg] : restarts) {
    seg.samples_per_s = restart_samples[restart];
    p.restarts.push_back(seg);
  }
  // The straggler: the most work per step, if clearly above the median.
  std::vector<double> work;
  for (const RankProfile& r : p.per_rank) {
    if (r.steps > 0) work.push_back(r.work_ms);
  }
  const double median_work = Median(work);
  const RankProfile* slow = nullptr;
  for (const RankProfile& r : p.per_rank) {
    if (r.steps > 0 && (slow == nullptr || r.work_ms > slow->work_ms)) slow = &r;
  }
  if (slow != nullptr && work.size() > 1 && median_work > 0 &&
      slow->work_ms >= options.straggler_threshold * median_work) {
    Straggler s;
    s.rank = slow->rank;
    s.ratio = slow->work_ms / median_work;
    for (const PhaseTime& ph : slow->phases) {
      std::vector<double> others;
      for (const RankProfile& r : p.per_rank) {
        for (const PhaseTime& q : r.phases) {
          if (q.name == ph.name) others.push_back(q.mean_ms);
        }
      }
      const double excess = ph.mean_ms - Median(others);
      if (excess > s.phase_excess_ms) {
        s.phase_excess_ms = excess;
        s.phase = ph.name;
      }
    }
    p.straggler = s;
  }
  return p;
}

}  // namespace dlp
