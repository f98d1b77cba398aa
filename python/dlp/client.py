"""dlp.Client: submit and watch jobs, sweeps and models through libdlp
(dlp._native), with the same contexts as the ``dlp`` command."""

import json
import os

from . import errors
from .job import Job
from .sweep import Sweep


class Client:
    """The client of a context (``context=None``: ``$DLP_CONTEXT``, then the
    config's current context; ``config=None``: ``$DLP_CONFIG``, then
    ~/.config/dlp/config.yaml). Connects to nothing until first used; the
    local backend starts its dlpd on demand. Thread-safe."""

    def __init__(self, context=None, config=None):
        from . import _native  # only here: the in-job helpers need no native module

        self._native = _native.NativeClient(context or "", os.fspath(config) if config else "")
        self.models = Models(self._native)

    @property
    def context(self):
        return self._native.context_name()

    def submit(self, spec, overrides=(), name=None):
        """Submits a spec: a path to a YAML file (``kind: Job`` or ``kind:
        Sweep``), or a dict of the same document. ``overrides`` are ``dlp
        submit --set`` strings ("spec.replicas.worker.count=2"). Returns a Job
        (a Sweep for a sweep). Raises dlp.InvalidSpec (with file, line,
        column) for a spec that does not parse or validate."""
        if isinstance(spec, dict):
            path, text = "<dict>", json.dumps(spec)
        else:
            path, text = os.fspath(spec), None
        try:
            kind, document = self._native.submit(path, text, list(overrides), name or "")
        except errors.UsageError as e:
            if e.code == "INVALID_ARGUMENT" and not isinstance(e, errors.InvalidSpec):
                raise errors.InvalidSpec(e.message, e.code, e.exit_code) from None
            raise
        if kind == "Sweep":
            return Sweep(self._native, json.loads(document))
        return Job(self._native, json.loads(document))

    def job(self, job_id):
        """The job with this id; dlp.NotFound when there is none."""
        return Job(self._native, json.loads(self._native.get(str(job_id))))

    def list(self, state=None, labels=None, queue=None, limit=0):
        """The jobs, newest last; ``state`` ("Running"), ``labels`` (all must
        match) and ``queue`` filter, ``limit`` keeps the newest N."""
        text = self._native.list(state or "", dict(labels or {}), queue or "", int(limit))
        return [Job(self._native, info) for info in json.loads(text)["jobs"]]

    def sweep(self, sweep_id):
        """The sweep with this id; dlp.NotFound when there is none."""
        return Sweep(self._native, json.loads(self._native.get_sweep(str(sweep_id))))

    def sweeps(self):
        sweeps = json.loads(self._native.list_sweeps())["sweeps"]
        return [Sweep(self._native, info) for info in sweeps]


class Models:
    """The model registry (docs/experiments.md): versions as dicts in the
    API's JSON form (name, version, file, size, sha256, aliases, job, metrics,
    labels, ...)."""

    def __init__(self, native):
        self._native = native

    def register(self, name, job, path, alias=None):
        """Registers the file ``path`` of the job's output folder as the next
        version of model ``name`` (a Job or a job id)."""
        job_id = job.id if isinstance(job, Job) else str(job)
        return json.loads(self._native.register_model(name, job_id, os.fspath(path), alias or ""))

    def get(self, ref):
        """One version: "NAME" (the latest), "NAME:3" or "NAME@staging"."""
        return json.loads(self._native.get_model(ref))

    def list(self):
        return json.loads(self._native.list_models())["models"]

    def download(self, ref, directory):
        """Writes the version's file into ``directory`` (its SHA-256
        checked); ``file`` in the result is the path written."""
        return json.loads(self._native.download_model(ref, os.fspath(directory)))
