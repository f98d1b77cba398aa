#include "spec/contract_enums.h"

namespace dlp::internal {

contract::Framework ToContract(Framework framework) {
  switch (framework) {
    case Framework::kPyTorch:
      return contract::Framework::kPyTorch;
    case Framework::kTensorFlow:
      return contract::Framework::kTensorFlow;
    case Framework::kHorovod:
      return contract::Framework::kHorovod;
    case Framework::kJax:
      return contract::Framework::kJax;
    case Framework::kNone:
      break;
  }
  return contract::Framework::kNone;
}

Framework FromContract(contract::Framework framework) {
  switch (framework) {
    case contract::Framework::kPyTorch:
      return Framework::kPyTorch;
    case contract::Framework::kTensorFlow:
      return Framework::kTensorFlow;
    case contract::Framework::kHorovod:
      return Framework::kHorovod;
    case contract::Framework::kJax:
      return Framework::kJax;
    case contract::Framework::kNone:
      break;
  }
  return Framework::kNone;
}

contract::RestartPolicy ToContract(RestartPolicyKind policy) {
  switch (policy) {
    case RestartPolicyKind::kOnFailure:
      return contract::RestartPolicy::kOnFailure;
    case RestartPolicyKind::kExitCode:
      return contract::RestartPolicy::kExitCode;
    case RestartPolicyKind::kNever:
      break;
  }
  return contract::RestartPolicy::kNever;
}

RestartPolicyKind FromContract(contract::RestartPolicy policy) {
  switch (policy) {
    case contract::RestartPolicy::kOnFailure:
      return RestartPolicyKind::kOnFailure;
    case contract::RestartPolicy::kExitCode:
      return RestartPolicyKind::kExitCode;
    case contract::RestartPolicy::kNever:
      break;
  }
  return RestartPolicyKind::kNever;
}

}  // namespace dlp::internal
