"""dlp from Python (docs/python.md).

Driving jobs (needs the native module, built over libdlp)::

    import dlp
    job = dlp.Client().submit("job.yaml", overrides=["spec.replicas.worker.count=2"])
    print(job.wait(timeout=600), job.metrics()[-1])

Inside a job (standard library only)::

    dlp.log_metric("loss", 0.31, step=10)
"""

from .errors import (BackendError, Error, Interrupted, InvalidSpec, NotFound, PermissionDenied,
                     Timeout, UsageError)
from .in_job import (checkpoint_dir, job_id, log_metric, output_dir, rank, restart_count,
                     world_size)
from .job import Job, MetricPoint
from .log_stream import LogLine
from .sweep import Sweep


def __getattr__(name):
    # Client imports the native module; importing dlp inside a job must not.
    if name in ("Client", "Models"):
        from . import client

        return getattr(client, name)
    raise AttributeError(f"module 'dlp' has no attribute {name!r}")


__all__ = [
    "BackendError", "Client", "Error", "Interrupted", "InvalidSpec", "Job", "LogLine",
    "MetricPoint", "Models", "NotFound", "PermissionDenied", "Sweep", "Timeout", "UsageError",
    "checkpoint_dir", "job_id", "log_metric", "output_dir", "rank", "restart_count", "world_size",
]
