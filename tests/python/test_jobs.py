"""Jobs through dlp.Client against a real dlpd: submit, wait, status, logs,
metrics (reported with dlp.log_metric inside the job), a restart resumed from
dlp.checkpoint_dir(), cancel, delete, Ctrl-C, list."""

import signal
import subprocess
import sys

import pytest

import dlp


def test_submit_wait_status_and_logs(client, write_job):
    job = client.submit(write_job("hello", "echo hello from $DLP_JOB_ID; echo oops >&2"))
    assert isinstance(job, dlp.Job) and job.name == "hello"
    assert job.wait(timeout=120) == "Succeeded"
    assert job.status() == "Succeeded"
    lines = list(job.logs())
    assert [(l.replica, l.stream, l.text) for l in lines] == [
        ("worker-0", "stdout", f"hello from {job.id}"), ("worker-0", "stderr", "oops")]
    assert all(l.time > 0 for l in lines)


def test_overrides_and_name(client, write_job):
    job = client.submit(write_job("counted", "echo rank $RANK of $WORLD_SIZE"),
                        overrides=["spec.replicas.worker.count=2"], name="renamed")
    assert job.name == "renamed"
    assert job.wait(timeout=120) == "Succeeded"
    assert sorted(l.text for l in job.logs()) == ["rank 0 of 2", "rank 1 of 2"]


def test_metrics_from_log_metric_inside_the_job(client, write_job):
    script = """
        import dlp
        for step in range(3):
            dlp.log_metric("loss", 1.0 / (step + 1), step=step)
        dlp.log_metric("accuracy", 0.75)
        print("rank", dlp.rank(), "of", dlp.world_size(), "restarts", dlp.restart_count())
        """
    job = client.submit(write_job("metrics", script, python=True))
    assert job.wait(timeout=120) == "Succeeded", list(job.logs())
    points = job.metrics()
    assert [(p.name, p.step, p.value) for p in points] == [
        ("loss", 0, 1.0), ("loss", 1, 0.5), ("loss", 2, 1.0 / 3), ("accuracy", -1, 0.75)]
    assert {p.replica for p in points} == {"worker-0"}
    assert [p.value for p in job.metrics(name="accuracy")] == [0.75]
    assert [l.text for l in job.logs(metrics=False)] == ["rank 0 of 1 restarts 0"]


def test_a_restarted_job_resumes_from_its_checkpoint(client, write_job):
    script = """
        import sys, dlp
        saved = dlp.checkpoint_dir() / "step"
        if dlp.restart_count() == 0:
            saved.write_text("41")
            sys.exit(1)
        dlp.log_metric("resumed_at", int(saved.read_text()) + 1, step=dlp.restart_count())
        """
    extra = "  restartPolicy: {policy: OnFailure, maxRestarts: 1, backoffSeconds: 0}\n"
    job = client.submit(write_job("resumed", script, python=True, extra=extra))
    assert job.wait(timeout=120) == "Succeeded", list(job.logs())
    assert job.info["restartCount"] == 1
    assert [(p.name, p.step, p.value) for p in job.metrics()] == [("resumed_at", 1, 42.0)]


def test_metrics_as_a_dataframe(client, write_job):
    pandas = pytest.importorskip("pandas")
    script = "echo 'DLP_METRIC loss=2 step=1'; echo 'DLP_METRIC loss=1 step=2'"
    job = client.submit(write_job("frame", script))
    assert job.wait(timeout=120) == "Succeeded"
    frame = job.metrics(as_frame=True)
    assert list(frame.columns) == ["replica", "name", "step", "value", "time"]
    assert frame["value"].tolist() == [2.0, 1.0] and frame["step"].tolist() == [1, 2]
    assert isinstance(frame["time"].dtype, pandas.DatetimeTZDtype)


def test_follow_logs_then_cancel(client, write_job, tmp_path):
    # The job says it started, then waits for a file that never comes.
    script = f"echo started; while [ ! -e {tmp_path}/never ]; do sleep 0.1; done"
    job = client.submit(write_job("blocked", script))
    with job.logs(follow=True) as lines:
        assert next(lines).text == "started"
    with pytest.raises(dlp.Timeout) as timed_out:
        job.wait(timeout=0.2)
    assert isinstance(timed_out.value, TimeoutError) and timed_out.value.exit_code == 4
    assert job.status() == "Running"
    job.cancel()
    assert job.wait(timeout=120) == "Cancelled"
    # Following a job that has ended drains its logs and stops.
    assert [l.text for l in job.logs(follow=True)] == ["started"]


def test_delete_refused_while_running_then_forced(client, write_job, tmp_path):
    script = f"echo started; while [ ! -e {tmp_path}/never ]; do sleep 0.1; done"
    job = client.submit(write_job("deleted", script))
    with job.logs(follow=True) as lines:
        assert next(lines).text == "started"
    with pytest.raises(dlp.UsageError) as refused:
        job.delete()
    assert "cancel it first" in str(refused.value) and refused.value.exit_code == 2
    assert job.status() == "Running"
    assert job.delete(force=True) == "Cancelled"
    with pytest.raises(dlp.NotFound):
        job.status()


def test_ctrl_c_ends_a_wait_and_the_job_goes_on(client, write_job, tmp_path):
    job = client.submit(write_job("waited", f"while [ ! -e {tmp_path}/go ]; do sleep 0.1; done"))
    probe = ("import sys, dlp\njob = dlp.Client().job(sys.argv[1])\ntry:\n"
             "    print('waiting', flush=True)\n    job.wait()\nexcept KeyboardInterrupt:\n"
             "    print('interrupted')\n")
    waiter = subprocess.Popen([sys.executable, "-c", probe, job.id], stdout=subprocess.PIPE,
                              text=True)
    assert waiter.stdout.readline() == "waiting\n"
    waiter.send_signal(signal.SIGINT)
    out, _ = waiter.communicate(timeout=60)
    assert (out, waiter.returncode) == ("interrupted\n", 0)
    (tmp_path / "go").touch()
    assert job.wait(timeout=120) == "Succeeded"


def test_list_filters(client, write_job):
    job = client.submit(write_job("listed", "true"))
    job.wait(timeout=120)
    assert job.id in [j.id for j in client.list()]
    assert job.id in [j.id for j in client.list(state="Succeeded")]
    assert job.id not in [j.id for j in client.list(state="Failed")]
    assert client.job(job.id).name == "listed"
    assert len(client.list(limit=1)) == 1
    with pytest.raises(dlp.UsageError):
        client.list(state="Sleeping")


def test_failed_job(client, write_job):
    job = client.submit(write_job("failing", "exit 3"))
    assert job.wait(timeout=120) == "Failed"
    assert job.info["exitCode"] == 3
