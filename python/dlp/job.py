"""A submitted job, as ``Client.submit`` and ``Client.list`` return it."""

import collections

from .log_stream import LogStream
from .record import Record, timeout_seconds

MetricPoint = collections.namedtuple("MetricPoint", "replica name step value time")


class Job(Record):
    """A job of a Client's backend. ``info`` is the job as last read (the
    JSON document of docs/api.md, "Jobs"); ``state`` is Queued, Running,
    Succeeded, Failed or Cancelled as last read; ``status()`` reads it again."""

    @property
    def name(self):
        return self.info.get("name", "")

    def status(self):
        """Reads the job again and returns its state."""
        return self._update(self._native.get(self.id))

    def wait(self, timeout=None):
        """Until the job has ended; returns its final state. Raises
        dlp.Timeout after ``timeout`` seconds (the job goes on)."""
        return self._update(self._native.wait(self.id, timeout_seconds(timeout)))

    def cancel(self):
        """Requests cancellation (a job that has ended is left as it is)."""
        return self._update(self._native.cancel(self.id))

    def delete(self, force=False):
        """Deletes the ended job: its record, events, logs, traces and output
        (registered models stay). Raises dlp.UsageError while it is Queued
        or Running, unless ``force``: then it is cancelled and deleted once
        it has ended. A sweep's or pipeline's job
        goes only with it. Returns the job as it was."""
        return self._update(self._native.delete(self.id, bool(force)))

    def logs(self, follow=False, replica=None, tail=None, metrics=True):
        """The job's log lines as LogLine(replica, stream, time, text), in
        order; with ``follow``, until the job has ended and its logs are
        drained. ``metrics=False`` leaves out the metric lines."""
        return LogStream(self._native, self.id, follow, replica or "",
                         -1 if tail is None else int(tail), metrics)

    def metrics(self, name=None, replica=None, as_frame=False):
        """The metric points the ranks reported (``dlp.log_metric``), in log
        order, as MetricPoint(replica, name, step, value, time); with
        ``as_frame``, a pandas DataFrame with those columns (needs pandas)."""
        rows = self._native.metrics(self.id, name or "", replica or "")
        points = [MetricPoint(*row) for row in rows]
        if not as_frame:
            return points
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Job.metrics(as_frame=True) needs pandas: pip install pandas") from e
        frame = pandas.DataFrame(points, columns=MetricPoint._fields)
        frame["time"] = pandas.to_datetime(frame["time"], unit="s", utc=True)
        return frame
