#include "backends/slurm/retrying_transport.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace dlp::internal {
namespace {

class RetryingTransport final : public SlurmTransport {
 public:
  RetryingTransport(std::unique_ptr<SlurmTransport> inner, SlurmRetryPolicy policy)
      : inner_(std::move(inner)), policy_(policy) {}

  std::string Name() const override { return inner_->Name(); }

  absl::StatusOr<std::string> Submit(const SlurmSubmission& job) override {
    return inner_->Submit(job);
  }
  absl::StatusOr<SlurmJobRecord> Job(const std::string& id) override {
    return Retry([&] { return inner_->Job(id); });
  }
  absl::StatusOr<std::vector<SlurmJobRecord>> Jobs() override {
    return Retry([&] { return inner_->Jobs(); });
  }
  absl::Status Cancel(const std::string& id) override {
    return Retry([&] { return inner_->Cancel(id); });
  }

 private:
  static const absl::Status& StatusOf(const absl::Status& s) { return s; }
  template <typename T>
  static const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
    return s.status();
  }

  // Only Unavailable is worth another try: NotFound, InvalidArgument and the
  // rest are Slurm's answer.
  template <typename Call>
  auto Retry(const Call& call) -> decltype(call()) {
    const absl::Time give_up = absl::Now() + policy_.give_up_after;
    absl::Duration pause = policy_.first_pause;
    while (true) {
      auto result = call();
      if (!absl::IsUnavailable(StatusOf(result))) return result;
      const absl::Duration left = give_up - absl::Now();
      if (left <= absl::ZeroDuration()) return result;
      absl::SleepFor(std::min(pause, left));
      pause = std::min(pause * 2, policy_.max_pause);
    }
  }

  std::unique_ptr<SlurmTransport> inner_;
  SlurmRetryPolicy policy_;
};

}  // namespace

std::unique_ptr<SlurmTransport> WithRetries(std::unique_ptr<SlurmTransport> transport,
                                            SlurmRetryPolicy policy) {
  return std::make_unique<RetryingTransport>(std::move(transport), policy);
}

}  // namespace dlp::internal
