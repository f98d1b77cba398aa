// The public enums of a job spec (dlp/job.h) as the job contract names them
// (contract/names.h), both ways.
#pragma once

#include "contract/names.h"
#include "dlp/job.h"

namespace dlp::internal {

contract::Framework ToContract(Framework framework);
Framework FromContract(contract::Framework framework);
contract::RestartPolicy ToContract(RestartPolicyKind policy);
RestartPolicyKind FromContract(contract::RestartPolicy policy);

}  // namespace dlp::internal
