"""A hyperparameter sweep (docs/experiments.md), as ``Client.submit`` of a
``kind: Sweep`` spec and ``Client.sweep`` return it."""

from .record import Record, timeout_seconds


class Sweep(Record):
    """``info`` is the sweep as last read (docs/api.md, "Sweeps"); ``state``
    is Running, Succeeded (every trial ended), Cancelled or Failed."""

    @property
    def trials(self):
        """Each trial: number, job, params, state, objective, ..."""
        return self.info.get("trials", [])

    def status(self):
        return self._update(self._native.get_sweep(self.id))

    def wait(self, timeout=None):
        """Until the sweep has nothing left to do; returns its state. Raises
        dlp.Timeout after ``timeout`` seconds."""
        return self._update(self._native.wait_sweep(self.id, timeout_seconds(timeout)))

    def cancel(self):
        """Stops the active trials and starts no more."""
        return self._update(self._native.cancel_sweep(self.id))

    def delete(self, force=False):
        """Deletes the ended sweep with its trials' jobs (registered models
        stay); ``force`` cancels an active sweep first. Returns its state as
        it was."""
        return self._update(self._native.delete_sweep(self.id, bool(force)))
