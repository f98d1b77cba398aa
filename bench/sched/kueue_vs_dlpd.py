#!/usr/bin/python3
"""The measuring and reporting half of kueue_vs_dlpd.sh (Debian's python3-yaml).

  kueue_vs_dlpd.py scale-generator GENERATOR.yaml S    Kueue's generator config with each
                                                       workload set's count times S (rounded up)
  kueue_vs_dlpd.py measure OUT.json [--pids DIR] [--deadline S --before-stop CMD] -- COMMAND...
                                                       runs COMMAND; records its wall and CPU
                                                       time, the load average and how busy the
                                                       machine was, and the CPU time of the
                                                       processes in DIR/*.pid over the run;
                                                       past S seconds runs CMD (a shell line)
                                                       and stops COMMAND with SIGINT
  kueue_vs_dlpd.py report DIR                          both rows side by side, from DIR's
                                                       kueue/ and dlpd/ results
"""
import calendar
import glob
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import time

import yaml

TICK = os.sysconf("SC_CLK_TCK")


def scale_generator(path, scale):
    cfg = yaml.safe_load(open(path))
    for cohort in cfg["cohorts"]:
        for queues in cohort["queuesSets"]:
            for workloads in queues["workloadsSets"]:
                workloads["count"] = math.ceil(workloads["count"] * scale)
    yaml.safe_dump(cfg, sys.stdout, sort_keys=False)


def process_cpu_s(pid):
    """utime + stime of a live process, seconds; 0 once it is gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # fields 14 and 15 of stat(5)


def components_cpu_s(pid_dir):
    out = {}
    for pid_file in sorted(glob.glob(os.path.join(pid_dir, "*.pid"))) if pid_dir else []:
        name = os.path.basename(pid_file)[:-4]
        try:
            out[name] = process_cpu_s(int(open(pid_file).read().strip()))
        except (OSError, ValueError):
            pass
    return out


def machine_ticks():
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    values = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # guest time is already counted in user
    return total - idle, total


def measure(out_path, pid_dir, argv, deadline_s=None, before_stop=None):
    load_before = open("/proc/loadavg").read().split()[:3]
    busy0, total0 = machine_ticks()
    comps0 = components_cpu_s(pid_dir)
    start = time.monotonic()
    child = subprocess.Popen(argv)
    stopped_at = None
    try:
        rc = child.wait(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        stopped_at = time.time()  # before the snapshot: what it lists waited at least this long
        if before_stop:
            subprocess.call(before_stop, shell=True)
        child.send_signal(signal.SIGINT)
        rc = child.wait()
    wall = time.monotonic() - start
    busy1, total1 = machine_ticks()
    comps1 = components_cpu_s(pid_dir)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    record = {
        "argv": argv,
        "rc": rc,
        "stopped_at": stopped_at,
        "wall_s": wall,
        "cpu_s": children.ru_utime + children.ru_stime,
        "load_before": load_before,
        "load_after": open("/proc/loadavg").read().split()[:3],
        "cores": os.cpu_count(),
        "machine_busy": (busy1 - busy0) / max(1, total1 - total0),
        "components_cpu_s": {k: comps1.get(k, 0) - v for k, v in comps0.items()},
    }
    json.dump(record, open(out_path, "w"), indent=1)
    return rc


def kueue_figures(d):
    """Kueue's figures as its checker (test/performance/scheduler/checker) computes them."""
    summary = yaml.safe_load(open(os.path.join(d, "summary.yaml")))
    run = json.load(open(os.path.join(d, "measure.json")))
    cq = summary["clusterQueueClasses"]["cq"]
    t0 = parse_time(cq["firstEventTime"])
    t1 = parse_time(cq["lastEventTime"])
    elapsed_ms = (t1 - t0) * 1000
    classes = summary["workloadClasses"]
    comps = run["components_cpu_s"]
    figures = {
        "wall": elapsed_ms / 1000,
        "usage": cq["cpuUsed"] * 100 / (cq["nominalQuota"] * elapsed_ms) if elapsed_ms else 0,
        "admission": {k: v["averageTimeToAdmissionMs"] / 1000 for k, v in classes.items()},
        "workloads": sum(v["count"] for v in classes.values()),
        "evictions": sum(v["totalEvictions"] for v in classes.values()),
        "dropped_events": summary.get("droppedWorkloadEvents", 0),
        "cpu_s": comps.get("kueue", 0) + comps.get("kube-apiserver", 0) + comps.get("etcd", 0),
        "cpu_note": "kueue {:.0f} + kube-apiserver {:.0f} + etcd {:.0f}; the runner {:.0f}".format(
            comps.get("kueue", 0), comps.get("kube-apiserver", 0), comps.get("etcd", 0),
            run["cpu_s"]),
        "run": run,
        "bound": False,
    }
    if run.get("stopped_at"):
        figures.update(stopped_kueue_figures(d, run["stopped_at"], t0))
    return figures


CLASS_LABEL = "kueue.x-k8s.io/performance-scheduler-class"


def stopped_kueue_figures(d, stopped_at, first_event):
    """A run stopped at the deadline: from the Workloads listed just before the stop
    (workloads.json), lower bounds. An admitted workload counts its Admitted condition's
    time less its creation; one not yet admitted the stop less its creation (it waits
    longer). The wall is at least the stop less the first event."""
    items = json.load(open(os.path.join(d, "workloads.json")))["items"]
    waits, admitted, finished = {}, {}, 0
    for wl in items:
        klass = wl["metadata"].get("labels", {}).get(CLASS_LABEL, "")
        created = parse_time(wl["metadata"]["creationTimestamp"])
        conditions = {c["type"]: c for c in wl.get("status", {}).get("conditions", [])}
        adm = conditions.get("Admitted")
        is_admitted = adm is not None and (adm["status"] == "True" or "Finished" in conditions)
        until = parse_time(adm["lastTransitionTime"]) if is_admitted else stopped_at
        waits.setdefault(klass, []).append(max(0.0, until - created))
        admitted[klass] = admitted.get(klass, 0) + is_admitted
        finished += conditions.get("Finished", {}).get("status") == "True"
    return {
        "wall": stopped_at - first_event,
        "admission": {k: sum(v) / len(v) for k, v in waits.items()},
        "admitted": admitted,
        "finished": finished,
        "listed": len(items),
        "bound": True,
    }


def parse_time(text):
    """RFC 3339 with nanoseconds (Go's time.Time in YAML) to seconds since the epoch."""
    if not isinstance(text, str):
        return text.timestamp()
    m = re.match(r"(\d+-\d+-\d+T\d+:\d+:\d+)(\.\d+)?Z$", text)
    whole = calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
    return whole + float(m.group(2) or 0)


def dlpd_figures(d):
    """dlp-bench-kueue-baseline's own table (kueue_baseline_main.cc) and CPU line."""
    text = open(os.path.join(d, "out.txt")).read()
    row = lambda name: float(re.search(r"^\| " + name + r" \| ([\d.]+) \|", text, re.M).group(1))
    jobs = re.search(r"^jobs: (\d+) acknowledged, (\d+) failed.* (\d+) preemptions", text, re.M)
    cpu = re.search(r"^CPU time of dlpd, its runners and the jobs: ([\d.]+) s", text, re.M)
    return {
        "wall": row("wall s"),
        "usage": row("usage %"),
        "admission": {k: row(f"admission {k} s") for k in ("large", "medium", "small")},
        "workloads": int(jobs.group(1)),
        "failed": int(jobs.group(2)),
        "evictions": int(jobs.group(3)),
        "cpu_s": float(cpu.group(1)) if cpu else 0,
        "run": json.load(open(os.path.join(d, "measure.json"))),
    }


def work_and_capacity(generator_path):
    """(CPU-seconds the workloads ask for: request x runtime, CPUs of nominal quota)."""
    cfg = yaml.safe_load(open(generator_path))
    work = capacity = 0.0
    for cohort in cfg["cohorts"]:
        for queues in cohort["queuesSets"]:
            n = cohort["count"] * queues["count"]
            capacity += n * float(queues["nominalQuota"])
            for workloads in queues["workloadsSets"]:
                for w in workloads["workloads"]:
                    work += n * workloads["count"] * float(w["request"]) * w["runtimeMs"] / 1000
    return work, capacity


def load_line(who, run):
    comps = run["components_cpu_s"]
    cluster = sum(comps.values())
    return (f"- {who}: load average {' '.join(run['load_before'])} before, "
            f"{' '.join(run['load_after'])} after; the {run['cores']} cores "
            f"{100 * run['machine_busy']:.0f}% busy over its {run['wall_s']:.0f} s"
            + (f"; the test cluster's processes {cluster:.0f} CPU·s" if comps else ""))


def report(d):
    kueue, dlpd = kueue_figures(os.path.join(d, "kueue")), dlpd_figures(os.path.join(d, "dlpd"))
    # (name, key, format, higher is better)
    # The same measure for both sides: the CPU-seconds the workloads ask for over the
    # capacity times the wall (Kueue's usage counts quota held until the runner sees
    # a workload's runtime over and Kueue releases it; dlpd's the time a process ran).
    work, capacity = work_and_capacity(os.path.join(d, "kueue", "generator.yaml"))
    for figures in (kueue, dlpd):
        figures["work_usage"] = 100 * work / (capacity * figures["wall"]) if figures["wall"] else 0
    rows = [("wall s", "wall", ".1f", False), ("usage %", "usage", ".1f", True),
            ("runtime over capacity x wall %", "work_usage", ".1f", True)]
    rows += [(f"admission {k} s", ("admission", k), ".3f", False)
             for k in ("large", "medium", "small")]
    rows += [("evictions / preemptions", "evictions", "d", False),
             ("CPU s of the scheduler side", "cpu_s", ".1f", False)]
    get = lambda f, key: f[key[0]][key[1]] if isinstance(key, tuple) else f[key]
    print("\n| figure | Kueue v0.17.0 | dlpd | dlpd / Kueue | dlpd better |")
    print("| --- | ---: | ---: | ---: | --- |")
    # A stopped Kueue run gives lower bounds for all but the usage ("≥"):
    # dlpd below one is below Kueue's figure, and its ratio an upper bound ("≤").
    bounded = ("wall", "admission", "evictions", "cpu_s") if kueue["bound"] else ()
    upper = ("work_usage",) if kueue["bound"] else ()
    for name, key, fmt, higher_better in rows:
        k, p = get(kueue, key), get(dlpd, key)
        base = key[0] if isinstance(key, tuple) else key
        mark = "≥ " if base in bounded else "≤ " if base in upper else ""
        ratio_mark = {"≥ ": "≤ ", "≤ ": "≥ "}.get(mark, "")
        ratio = f"{ratio_mark}{p / k:.3f}" if k else "-"
        better = p > k if higher_better else p < k
        # Past a bound the other way round, the full run's figure could be either side.
        verdict = "yes" if better else "not known" if mark else "no"
        print(f"| {name} | {mark}{k:{fmt}} | {p:{fmt}} | {ratio} | {verdict} |")
    print(f"\nworkloads: Kueue {kueue['workloads']}, dlpd {dlpd['workloads']} acknowledged, "
          f"{dlpd['failed']} failed submissions; Kueue's runner dropped "
          f"{kueue['dropped_events']} workload events")
    print(f"CPU s: Kueue side {kueue['cpu_note']} (no pods: Kueue's runner marks the "
          f"workloads finished); dlpd side: dlpd, its runners and the jobs (a process each)")
    print(f"Kueue's runner ran {kueue['run']['wall_s']:.1f} s from its start to its exit")
    if kueue["bound"]:
        admitted = ", ".join(f"{k} {v}" for k, v in sorted(kueue["admitted"].items()))
        print(f"Kueue's run stopped at the deadline: of {kueue['listed']} workloads listed "
              f"just before, {kueue['finished']} finished, admitted by class: {admitted}; "
              f"its usage % is over the part it ran, its runtime over capacity x wall an upper "
              f"bound, its other figures lower bounds")
    print(load_line("Kueue side", kueue["run"]))
    print(load_line("dlpd side", dlpd["run"]))
    return 0 if kueue["run"]["rc"] == 0 and dlpd["run"]["rc"] == 0 else 1


def main(argv):
    if len(argv) == 3 and argv[0] == "scale-generator":
        scale_generator(argv[1], float(argv[2]))
        return 0
    if len(argv) >= 3 and argv[0] == "measure":
        out, rest = argv[1], argv[2:]
        options = {"--pids": None, "--deadline": None, "--before-stop": None}
        while len(rest) >= 2 and rest[0] in options:
            options[rest[0]], rest = rest[1], rest[2:]
        if rest and rest[0] == "--":
            deadline = float(options["--deadline"]) if options["--deadline"] else None
            return measure(out, options["--pids"], rest[1:], deadline, options["--before-stop"])
    if len(argv) == 2 and argv[0] == "report":
        return report(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
