"""Job.logs(): a job's log lines as an iterator."""

import collections
import queue
import threading

LogLine = collections.namedtuple("LogLine", "replica stream time text")


class LogStream:
    """Iterates over a job's logs. libdlp streams them into a bounded queue
    from a thread of its own, so that the consumer's pace bounds the memory
    and Ctrl-C reaches the iterating thread; closing stops the stream."""

    _DONE = object()

    def __init__(self, native, job_id, follow, replica, tail, metrics):
        self._lines = queue.Queue(maxsize=1024)
        self._stopped = threading.Event()
        self._error = None
        args = (job_id, replica, follow, tail, metrics, self._put)
        self._thread = threading.Thread(target=self._run, args=(native, args), daemon=True)
        self._thread.start()

    def _put(self, replica, stream, time, text):
        line = LogLine(replica, stream, time, text)
        while not self._stopped.is_set():
            try:
                self._lines.put(line, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, native, args):
        try:
            native.logs(*args)
        except Exception as e:  # raised again in the consumer's thread
            self._error = e
        while not self._stopped.is_set():
            try:
                self._lines.put(self._DONE, timeout=0.5)
                return
            except queue.Full:
                continue

    def __iter__(self):
        return self

    def __next__(self):
        if self._stopped.is_set():
            raise StopIteration
        line = self._lines.get()
        if line is self._DONE:
            self._stopped.set()
            if self._error is not None:
                raise self._error
            raise StopIteration
        return line

    def close(self):
        """Stops the stream; the thread ends at the next line or when the job has."""
        self._stopped.set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self._stopped.set()
