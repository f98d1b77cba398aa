// Everything a program needs to submit and watch jobs.
#pragma once

#include "dlp/admin.h"
#include "dlp/backend.h"
#include "dlp/backend_capabilities.h"
#include "dlp/client.h"
#include "dlp/codec.h"
#include "dlp/config.h"
#include "dlp/exit_code.h"
#include "dlp/job.h"
#include "dlp/local_server.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "dlp/version.h"
