"""``grader doctor``: attack the grading sandbox for real and report which protections hold.

Builds a throw-away course folder (gradebook, source, another student's submission),
starts one sandboxed process with the course's SandboxedExecute settings, and from inside
tries to read those files, write outside its folder, reach a listener on 127.0.0.1, read
planted environment variables, fork past the process limit, allocate past the memory
limit, write past the file size limit and leave a daemon behind. A second sandbox, with small
probe limits, tests the whole-tree layers: forking in new sessions past its control group's
process limit, allocating across processes past its memory limit, spinning on more CPUs than
its quota, and filling its working folder with bytes and with files. Last, a sandbox run is
abandoned as a killed grader would abandon it, and the next run must remove its leftovers.
Prints a table (protection, status, detail) and returns 1 if any protection is unavailable.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import socket
import subprocess
import sys
import tempfile
import uuid

from rich.console import Console
from rich.table import Table

from grader.console import make_console
from grader.sandbox import SandboxPolicy, doctor_checks, leftovers
from grader.sandbox import layers as L
from grader.sandbox.launcher import processes_with_marker
from grader.sandbox.policy import SandboxError, package_dirs, policy_from_settings
from grader.sandbox.run import SandboxRun

ACTIVE = "active"
UNAVAILABLE = "unavailable"
PROBE_TIMEOUT = 180  # seconds for the whole attack run
MiB = 2 ** 20
# Small limits for the second probe run, so that it stays cheap on a shared machine.
TREE_PROBE = {"tree_memory_limit": 256 * MiB, "tree_process_limit": 32,
              "workdir_size_limit": 16 * MiB, "workdir_file_limit": 256}
CANARY_ENV = ("NBGRADER_EXECUTION", "GRADER_DOCTOR_CANARY")


@dataclasses.dataclass(frozen=True)
class Finding:
    """One row of the report."""

    protection: str
    active: bool
    detail: str


def load_policy(config_file: str | None) -> SandboxPolicy:
    """The ``c.SandboxedExecute`` policy of ``config_file`` (an nbgrader_config.py), or defaults."""
    if not config_file:
        return SandboxPolicy()
    if not os.path.isfile(config_file):
        raise SystemExit(f"grader doctor: config file {config_file!r} not found; pass the "
                         "course's nbgrader_config.py or omit --config")
    from traitlets.config.loader import PyFileConfigLoader

    folder, name = os.path.split(os.path.abspath(config_file))
    config = PyFileConfigLoader(name, path=folder).load_config()
    return policy_from_settings(config.get("SandboxedExecute", {}))


def _make_course(root: str) -> dict[str, list[str]]:
    """Plant files the sandbox must hide; returns the paths by kind and the working folder."""
    files = {
        "gradebook.db": "gradebook",
        "nbgrader_config.py": "c = get_config()\n",
        os.path.join("source", "ps1", "ps1.ipynb"): "model answers",
        os.path.join("submitted", "other", "ps1", "ps1.ipynb"): "another student's work",
        os.path.join("autograded", "other", "ps1", "ps1.ipynb"): "another student's grades",
    }
    for relative, text in files.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)
    workdir = os.path.join(root, "autograded", "doctor", "ps1")
    os.makedirs(workdir)
    return {
        "secret_files": [os.path.join(root, f) for f in files],
        "secret_dirs": [os.path.join(root, "source"), os.path.join(root, "submitted")]
        + package_dirs(),
        "forbidden_dirs": [root, os.path.dirname(workdir), sys.prefix],
        "workdir": [workdir],
    }



def attack(policy: SandboxPolicy) -> tuple[dict, SandboxRun, list[int]]:
    """Run the attacks in a sandbox; returns (findings, the run, leftover daemon pids)."""
    policy = dataclasses.replace(policy, require_sandbox=False)
    marker = f"sandbox-doctor-{uuid.uuid4().hex}"
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    saved_env = {name: os.environ.get(name) for name in CANARY_ENV}
    os.environ.update({name: "leaked" for name in CANARY_ENV})
    with tempfile.TemporaryDirectory(prefix="sandbox-doctor-") as course:
        paths = _make_course(os.path.realpath(course))
        arguments = {
            **{key: paths[key] for key in ("secret_files", "secret_dirs", "forbidden_dirs")},
            "canary_env": list(CANARY_ENV), "port": listener.getsockname()[1],
            "grader_uid": os.getuid(), "max_processes": policy.max_processes,
            "memory_limit": policy.memory_limit, "file_size_limit": policy.file_size_limit,
            "cpu_time_limit": policy.cpu_time_limit,
            "open_files_limit": policy.open_files_limit, "daemon_marker": marker,
        }
        with open(doctor_checks.__file__) as script:
            source = script.read()
        run = SandboxRun(policy, paths["workdir"][0], course_root=course)
        try:
            run.prepare()
            argv = run.wrap([sys.executable, "-I", "-c", source, json.dumps(arguments)])
            process = subprocess.Popen(argv, env=run.env, pass_fds=run.pass_fds,
                                       cwd=run.workdir, stdout=subprocess.PIPE,
                                       stderr=run.log_file(), stdin=subprocess.DEVNULL)
            run.after_launch()
            run.wait_until_ready(process.poll)
            output, _ = process.communicate(timeout=PROBE_TIMEOUT)
            leftovers = processes_with_marker(marker)
            try:
                findings = json.loads(output)
            except ValueError:
                raise RuntimeError("the sandboxed attack script produced no report: "
                                   + run.log_tail().strip()) from None
        finally:
            listener.close()
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            run.cleanup()
        for pid in processes_with_marker(marker):
            os.kill(pid, 9)
    return findings, run, leftovers


def _run_script(run: SandboxRun, arguments: dict) -> dict:
    """Run doctor_checks in the prepared ``run`` with ``arguments``; its findings."""
    with open(doctor_checks.__file__) as script:
        source = script.read()
    argv = run.wrap([sys.executable, "-I", "-c", source, json.dumps(arguments)])
    process = subprocess.Popen(argv, env=run.env, pass_fds=run.pass_fds, cwd=run.workdir,
                               stdout=subprocess.PIPE, stderr=run.log_file(),
                               stdin=subprocess.DEVNULL)
    run.after_launch()
    run.wait_until_ready(process.poll)
    output, _ = process.communicate(timeout=PROBE_TIMEOUT)
    try:
        return json.loads(output)
    except ValueError:
        raise RuntimeError("the sandboxed attack script produced no report: "
                           + run.log_tail().strip()) from None


def _cgroup_file(run: SandboxRun, controller: str, name: str) -> dict[str, int]:
    """``key value`` lines of one file of the run's control group (empty without one)."""
    if run.cgroup is None:
        return {}
    try:
        with open(os.path.join(run.cgroup.paths[controller], name)) as handle:
            pairs = [line.split() for line in handle]
    except OSError:
        return {}
    return {pair[0]: int(pair[1]) for pair in pairs if len(pair) == 2 and pair[1].isdigit()}


def _quota_in_place(run: SandboxRun, quota: float | None) -> bool:
    """Whether the run's control group has the CPU quota of the policy."""
    if run.cgroup is None or quota is None:
        return False
    folder = run.cgroup.paths["cpu"]
    try:
        if run.cgroup.version == 1:
            with open(os.path.join(folder, "cpu.cfs_quota_us")) as q, \
                    open(os.path.join(folder, "cpu.cfs_period_us")) as p:
                return abs(int(q.read()) / int(p.read()) - quota) < 0.02
        with open(os.path.join(folder, "cpu.max")) as handle:
            limit, period = handle.read().split()
            return limit != "max" and abs(int(limit) / int(period) - quota) < 0.02
    except (OSError, ValueError):
        return False


def attack_tree(policy: SandboxPolicy) -> list[Finding]:
    """The whole-tree layers (control group, working-folder quota), probed with small limits."""
    probe = dataclasses.replace(policy, require_sandbox=False, **TREE_PROBE)
    with tempfile.TemporaryDirectory(prefix="sandbox-doctor-tree-") as folder:
        run = SandboxRun(probe, folder)
        try:
            run.prepare()
            findings = _run_script(run, {"mode": "tree", **TREE_PROBE, "cpu_quota": probe.cpu_quota})
            pids_events = _cgroup_file(run, "pids", "pids.events")
            cpu_stat = _cgroup_file(run, "cpu", "cpu.stat")
            quota_set = _quota_in_place(run, probe.cpu_quota)
            oom_kills = run.cgroup.oom_kills() if run.cgroup else 0
            missing = run.missing_layers
        finally:
            run.cleanup()
    configured = (f"configured: {policy.tree_memory_limit // MiB if policy.tree_memory_limit else 'no'} MiB, "
                  f"{policy.tree_process_limit} tasks")

    def row(protection, active, detail, layer):
        if layer in missing:
            return Finding(protection, False, f"{missing[layer]}; {detail}")
        return Finding(protection, bool(active), detail)

    used, wall = findings["cpu"]
    throttled = cpu_stat.get("nr_throttled", 0) or cpu_stat.get("nr_throttled_usec", 0)
    quota = policy.cpu_quota
    cpu_detail = (f"3 busy processes in new sessions used {used:.1f} CPU-s in {wall:.1f} s "
                  f"({'throttled by the quota' if throttled else 'not throttled: the machine is busy'}); "
                  f"quota {quota} CPU {'in place' if quota_set else 'NOT in place'}, weight {policy.cpu_weight}")
    tree_memory_ok = findings["tree_memory"][0] and oom_kills > 0
    return [
        row("process tree limit", findings["tree_processes"][0] and pids_events.get("max", 0) > 0,
            f"{findings['tree_processes'][1]} (probe limit {TREE_PROBE['tree_process_limit']}; {configured})",
            L.CGROUPS),
        row("memory of the process tree", tree_memory_ok, f"{findings['tree_memory'][1]} ({configured})",
            L.CGROUPS),
        row("CPU share and quota", quota is not None and quota_set and used <= quota * wall * 1.3 + 0.3,
            cpu_detail if quota is not None else "no CPU quota configured; " + cpu_detail, L.CGROUPS),
        row(L.WORKDIR_QUOTA, findings["workdir"][0],
            f"{findings['workdir'][1]} (probe quota {TREE_PROBE['workdir_size_limit'] // MiB} MiB, "
            f"{TREE_PROBE['workdir_file_limit']} files; configured {policy.workdir_size_limit // MiB} MiB, "
            f"{policy.workdir_file_limit} files)", L.WORKDIR_QUOTA),
    ]


def check_leftover_cleanup(policy: SandboxPolicy) -> Finding:
    """Abandon a prepared sandbox as a SIGKILLed grader would; the next sweep must remove it."""
    probe = dataclasses.replace(policy, require_sandbox=False)
    with tempfile.TemporaryDirectory(prefix="sandbox-doctor-leftover-") as folder:
        run = SandboxRun(probe, folder)
        run.prepare()
        run_dir, group = run.run_dir, run.cgroup
        os.close(run._lock_fd)  # what the kernel does when the grading process dies
        run._lock_fd = None
        try:
            swept = leftovers.sweep(os.path.dirname(run_dir))
            gone = not os.path.exists(run_dir) and (
                group is None or not any(os.path.isdir(p) for p in group.paths.values()))
        finally:
            run.cleanup()
    mine = [line for line in swept if run_dir in line]
    return Finding("leftover clean-up", gone and bool(mine),
                   mine[0] if mine else f"the abandoned run {run_dir} was not removed")


def assess(findings: dict, run: SandboxRun, leftovers: list[int],
           policy: SandboxPolicy) -> list[Finding]:
    """Turn the raw findings into one row per protection."""
    missing = run.missing_layers

    def row(protection, blocked, detail, layer=None):
        if layer in missing:
            detail = f"{missing[layer]}; {detail}"
        return Finding(protection, bool(blocked), detail)

    reads, writes = findings["read"], findings["write"]
    leaked = [detail for blocked, detail in reads + writes if not blocked]
    fs_detail = ("; ".join(leaked) if leaked else
                 f"{len(reads)} course/solution paths unreadable, {len(writes)} folders "
                 "outside its own unwritable")
    if not findings["write_own_folder"][0]:
        fs_detail += "; but it cannot write its own folder"
    rows = [
        row(L.FILESYSTEM, not leaked and findings["write_own_folder"][0], fs_detail,
            L.FILESYSTEM),
        row(L.NETWORK, *findings["network"], L.NETWORK),
        row(L.PROCESS_CLEANUP, not leftovers,
            "double-forked daemon was killed with the sandbox" if not leftovers else
            f"daemon survived the sandbox (pids {leftovers}); killed by the doctor",
            L.PROCESS_CLEANUP),
        row(L.PRIVATE_USER, *findings["user"], L.PRIVATE_USER),
        row(L.PROCESS_LIMIT, *findings["processes"], L.PROCESS_LIMIT),
        row("memory limit", *findings["memory"]),
        row("file size limit", *findings["file_size"]),
        row("CPU time limit", policy.cpu_time_limit is not None and findings["cpu"][0],
            findings["cpu"][1]),
        row("open files limit", policy.open_files_limit is not None
            and findings["open_files"][0], findings["open_files"][1]),
        row(L.ENVIRONMENT, *findings["environment"]),
    ]
    return rows


def print_table(rows: list[Finding], console: Console | None = None) -> None:
    table = Table(title="Grading sandbox: protections probed from inside")
    table.add_column("protection")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for finding in rows:
        status = "[green]active[/]" if finding.active else "[red]unavailable[/]"
        table.add_row(finding.protection, status, finding.detail)
    (console or make_console()).print(table)


def privacy_findings(course_root: str) -> list[Finding]:
    """Course paths other accounts can reach (``grader.service.privacy``): one row each with the
    command that closes it, or one "course privacy: active" row when there is none. ``main``
    adds them when the config's folder is a course (it has ``source/`` or a gradebook)."""
    from pathlib import Path

    from grader.course import Course
    from grader.service.privacy import course_problems

    problems = course_problems(Course(Path(course_root).resolve()))
    if not problems:
        return [Finding("course privacy", True, f"{course_root}: no course path is readable by "
                                                "other accounts")]
    return [Finding(f"course privacy: {p.what}", False,
                    f"{p.path} has mode {p.mode:04o}; run `{p.command}` (or grader watch "
                    "--fix-permissions)") for p in problems]


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``grader doctor``; returns 0 when every protection is active."""
    parser = argparse.ArgumentParser(
        prog="grader doctor",
        description="Probe each protection of the grading sandbox for real and report "
                    "which are active. Exits 1 if any is unavailable.")
    parser.add_argument("--config", default=None, help=(
        "nbgrader_config.py whose SandboxedExecute settings to probe (default: "
        "./nbgrader_config.py if it exists, else the built-in defaults)"))
    args = parser.parse_args(argv)
    config_file = args.config
    if config_file is None and os.path.isfile("nbgrader_config.py"):
        config_file = "nbgrader_config.py"
    policy = load_policy(config_file)
    course_root = os.path.dirname(os.path.abspath(config_file)) if config_file else None
    is_course = course_root is not None and any(
        os.path.exists(os.path.join(course_root, name)) for name in ("source", "gradebook.db"))
    privacy = privacy_findings(course_root) if is_course else []
    try:
        findings, run, leftovers = attack(policy)
    except (SandboxError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
        make_console(stderr=True).print(f"[red]grader doctor: the sandbox could not run at all:[/] "
                                   f"{exc}")
        if privacy:
            print_table(privacy)
        return 1
    rows = assess(findings, run, leftovers, policy)
    try:
        rows += attack_tree(policy)
        rows.append(check_leftover_cleanup(policy))
    except (SandboxError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
        rows.append(Finding("whole-tree limits", False, f"the probe could not run: {exc}"))
    rows += privacy
    print_table(rows)
    return 0 if all(finding.active for finding in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
