"""``grader doctor``: attack the grading sandbox for real and report which protections hold.

Builds a throw-away course folder (gradebook, source, another student's submission),
starts one sandboxed process with the course's SandboxedExecute settings, and from inside
tries to read those files, write outside its folder, reach a listener on 127.0.0.1, read
planted environment variables, fork past the process limit, allocate past the memory
limit, write past the file size limit and leave a daemon behind. A second sandbox, with small
probe limits, tests the whole-tree layers: forking in new sessions past its control group's
process limit, allocating across processes past its memory limit, spinning on more CPUs than
its quota, and filling its working folder with bytes and with files. A sandboxed kernel then
prints past small output limits per cell and per notebook, which the grading process must cut.
Last, a sandbox run is abandoned as a killed grader would abandon it, and the next run must
remove its leftovers.
Prints a table (protection, status, detail) and returns 1 if any protection is unavailable; a
protection the sandbox without root does not have by design (the CPU quota) is named, not failed.
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

from grader.course_folders import AUTOGRADED, SOURCE, SUBMITTED
from grader.console import make_console
from grader.sandbox import SandboxLimits, doctor_checks, leftovers, seccomp_profile
from grader.sandbox import layers as L
from grader.sandbox.launcher import processes_with_marker
from grader.sandbox.limits import SandboxError, package_dirs
from grader.sandbox.run import SandboxRun

ACTIVE = "active"
UNAVAILABLE = "unavailable"
PROBE_TIMEOUT = 180  # seconds for the whole attack run
MiB = 2 ** 20
# Small limits for the second probe run, so that it stays cheap on a shared machine.
TREE_PROBE = {"tree_memory_limit": 256 * MiB, "tree_process_limit": 32,
              "workdir_size_limit": 16 * MiB, "workdir_file_limit": 256}
# Output limits for the kernel probe: four cells print OUTPUT_PROBE_PRINT bytes each.
OUTPUT_PROBE = {"max_output_bytes": 64 * 1024, "max_notebook_output_bytes": 128 * 1024}
OUTPUT_PROBE_PRINT = 60 * 1024
CANARY_ENV = ("NBGRADER_EXECUTION", "GRADER_DOCTOR_CANARY")


@dataclasses.dataclass(frozen=True)
class ProtectionRow:
    """One row of `grader doctor`'s report: a protection, whether it is active, and why."""

    protection: str
    active: bool
    detail: str
    weaker: bool = False  # active, in the weaker form of the sandbox without root
    # not active because the sandbox without root has no such layer (security.md's table says so);
    # the root sandbox has it, and fails without it
    absent_without_root: bool = False


def load_settings(config_file: str | None) -> dict:
    """The ``c.SandboxedExecute`` settings of ``config_file`` (an nbgrader_config.py), or none."""
    if not config_file:
        return {}
    if not os.path.isfile(config_file):
        raise SystemExit(f"grader doctor: config file {config_file!r} not found; pass the "
                         "course's nbgrader_config.py or omit --config")
    from traitlets.config.loader import PyFileConfigLoader

    folder, name = os.path.split(os.path.abspath(config_file))
    config = PyFileConfigLoader(name, path=folder).load_config()
    return dict(config.get("SandboxedExecute", {}))


def configured_limits(settings: dict) -> SandboxLimits:
    """The sandbox limits ``settings`` (a ``c.SandboxedExecute`` section) give, read by the traitlets
    grading reads them with (``grader.settings``): an unknown name is warned about and a mistyped
    value refused, as for grading; ``SystemExit`` names a refused one."""
    from traitlets import TraitError
    from traitlets.config import Config

    from grader.sandbox import SandboxedExecute

    try:
        return SandboxedExecute(config=Config({"SandboxedExecute": settings})).sandbox_limits()
    except (TraitError, ValueError) as exc:
        raise SystemExit(f"grader doctor: the course's SandboxedExecute settings are invalid: {exc}") from None


def _make_course(root: str) -> dict[str, list[str]]:
    """Plant files the sandbox must hide; returns the paths by kind and the working folder."""
    files = {
        "gradebook.db": "gradebook",
        "nbgrader_config.py": "c = get_config()\n",
        os.path.join(SOURCE, "ps1", "ps1.ipynb"): "model answers",
        os.path.join(SUBMITTED, "other", "ps1", "ps1.ipynb"): "another student's work",
        os.path.join(AUTOGRADED, "other", "ps1", "ps1.ipynb"): "another student's grades",
    }
    for relative, text in files.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)
    workdir = os.path.join(root, AUTOGRADED, "doctor", "ps1")
    os.makedirs(workdir)
    return {
        "secret_files": [os.path.join(root, f) for f in files],
        "secret_dirs": [os.path.join(root, SOURCE), os.path.join(root, SUBMITTED)]
        + package_dirs(),
        "forbidden_dirs": [root, os.path.dirname(workdir), sys.prefix],
        "workdir": [workdir],
    }



def attack(limits: SandboxLimits) -> tuple[dict, SandboxRun, list[int]]:
    """Run the attacks in a sandbox; returns (findings, the run, leftover daemon pids)."""
    limits = dataclasses.replace(limits, require_sandbox=False)
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
            "grader_uid": os.getuid(), "max_processes": limits.max_processes,
            "memory_limit": limits.memory_limit, "file_size_limit": limits.file_size_limit,
            "cpu_time_limit": limits.cpu_time_limit,
            "open_files_limit": limits.open_files_limit, "daemon_marker": marker,
            "grader_uid_in_own_namespace": not L.detect_layers().as_root,
            "syscall_filter_probes": seccomp_profile.syscall_numbers(),
        }
        with open(doctor_checks.__file__) as script:
            source = script.read()
        run = SandboxRun(limits, paths["workdir"][0], course_root=course)
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
            findings["write"] = [_landed(folder, finding)
                                 for folder, finding in zip(paths["forbidden_dirs"], findings["write"])]
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


def _landed(folder: str, finding: list) -> list:
    """A write finding judged by the real ``folder``: the sandbox's marker file is there (then
    removed), or the write went to a folder of the sandbox's own private filesystem."""
    blocked, detail = finding
    marker = os.path.join(folder, doctor_checks.WRITE_MARKER)
    if blocked:
        return finding
    if os.path.lexists(marker):
        os.remove(marker)
        return [False, detail]
    return [True, f"{folder}: written in the sandbox's private filesystem only, not in the real folder"]


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
    """Whether the run's control group has the configured CPU quota."""
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


def attack_tree(limits: SandboxLimits) -> list[ProtectionRow]:
    """The whole-tree layers (control group, working-folder quota), probed with small limits."""
    probe = dataclasses.replace(limits, require_sandbox=False, **TREE_PROBE)
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
    configured = (f"configured: {limits.tree_memory_limit // MiB if limits.tree_memory_limit else 'no'} MiB, "
                  f"{limits.tree_process_limit} tasks")

    def row(protection, active, detail, layer):
        if layer in missing:
            return ProtectionRow(protection, False, f"{missing[layer]}; {detail}")
        return weaker_row(run, ProtectionRow(protection, bool(active), detail), layer)

    used, wall = findings["cpu"]
    throttled = cpu_stat.get("nr_throttled", 0) or cpu_stat.get("nr_throttled_usec", 0)
    quota = limits.cpu_quota
    cpu_detail = (f"3 busy processes in new sessions used {used:.1f} CPU-s in {wall:.1f} s "
                  f"({'throttled by the quota' if throttled else 'not throttled: the machine is busy'}); "
                  f"quota {quota} CPU {'in place' if quota_set else 'NOT in place'}, weight {limits.cpu_weight}")
    tree_memory_ok = findings["tree_memory"][0] and (oom_kills > 0 or run.cgroup is None)
    tree_processes_ok = findings["tree_processes"][0] and (pids_events.get("max", 0) > 0 or run.cgroup is None)
    return [
        row("process tree limit", tree_processes_ok,
            f"{findings['tree_processes'][1]} (probe limit {TREE_PROBE['tree_process_limit']}; {configured})",
            L.CGROUPS),
        row("memory of the process tree", tree_memory_ok, f"{findings['tree_memory'][1]} ({configured})",
            L.CGROUPS),
        (ProtectionRow("CPU share and quota", False, f"{cpu_detail}; none without root: "
                 f"{run.support.weaker[L.CGROUPS]}", absent_without_root=True)
         if run.cgroup is None and L.CGROUPS in run.support.weaker else
         row("CPU share and quota", quota is not None and quota_set and used <= quota * wall * 1.3 + 0.3,
             cpu_detail if quota is not None else "no CPU quota configured; " + cpu_detail, L.CGROUPS)),
        row(L.WORKDIR_QUOTA, findings["workdir"][0],
            f"{findings['workdir'][1]} (probe quota {TREE_PROBE['workdir_size_limit'] // MiB} MiB, "
            f"{TREE_PROBE['workdir_file_limit']} files; configured {limits.workdir_size_limit // MiB} MiB, "
            f"{limits.workdir_file_limit} files)", L.WORKDIR_QUOTA),
    ]


def check_output_limits(settings: dict) -> ProtectionRow:
    """A sandboxed kernel (the course's settings, small output limits) prints four cells of
    ``OUTPUT_PROBE_PRINT`` bytes: the grading process must keep two and cut the others, each with
    its note. The detail names the configured limits."""
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config

    from grader.sandbox import SandboxedExecute

    configured = SandboxedExecute(config=Config({"SandboxedExecute": settings}))
    probe = SandboxedExecute(config=Config({"SandboxedExecute": {
        **settings, **OUTPUT_PROBE, "require_sandbox": False, "notebook_timeout": PROBE_TIMEOUT}}))
    nb = new_notebook(cells=[new_code_cell(f"print('x' * {OUTPUT_PROBE_PRINT})") for _ in range(4)],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    with tempfile.TemporaryDirectory(prefix="sandbox-doctor-output-") as folder:
        probe.preprocess(nb, {"metadata": {"path": folder}})
    kept = [sum(len(o.get("text", "")) for o in cell.outputs) for cell in nb.cells]
    noted = [any(o.get("evalue") == probe.notebook_limit_note() for o in cell.outputs) for cell in nb.cells]
    active = kept[2:] == [0, 0] and noted == [False, False, True, True] and min(kept[:2]) > OUTPUT_PROBE_PRINT
    return ProtectionRow("output limits", active, (
        f"4 cells printing {OUTPUT_PROBE_PRINT // 1024} KiB each: {sum(k > 0 for k in kept)} kept, "
        f"{sum(noted)} cut with a note (probe limit {OUTPUT_PROBE['max_notebook_output_bytes'] // 1024} KiB "
        f"per notebook); configured {configured.max_output_bytes / MiB:g} MiB per cell, "
        f"{configured.max_notebook_output_bytes / MiB:g} MiB per notebook"))


def check_leftover_cleanup(limits: SandboxLimits) -> ProtectionRow:
    """Abandon a prepared sandbox as a SIGKILLed grader would; the next sweep must remove it."""
    probe = dataclasses.replace(limits, require_sandbox=False)
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
    return ProtectionRow("leftover clean-up", gone and bool(mine),
                   mine[0] if mine else f"the abandoned run {run_dir} was not removed")


def assess(findings: dict, run: SandboxRun, leftovers: list[int],
           limits: SandboxLimits) -> list[ProtectionRow]:
    """Turn the raw findings into one row per protection."""
    missing = run.missing_layers

    def row(protection, blocked, detail, layer=None):
        if layer in missing:
            detail = f"{missing[layer]}; {detail}"
        return weaker_row(run, ProtectionRow(protection, bool(blocked), detail), layer)

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
        row("CPU time limit", limits.cpu_time_limit is not None and findings["cpu"][0],
            findings["cpu"][1]),
        row("open files limit", limits.open_files_limit is not None
            and findings["open_files"][0], findings["open_files"][1]),
        row(L.ENVIRONMENT, *findings["environment"]),
        row(L.SYSCALL_FILTER, findings["syscall_filter"][0],
            f"profile {seccomp_profile.PROFILE_NAME}: {findings['syscall_filter'][1]}", L.SYSCALL_FILTER),
    ]
    return rows


def weaker_row(run: SandboxRun, finding: ProtectionRow, layer: str | None) -> ProtectionRow:
    """``finding`` marked weaker, with how, when the run provides ``layer`` in the weaker form of
    the sandbox without root (``grader.sandbox.unprivileged``)."""
    how = run.support.weaker.get(layer)
    if how is None:
        return finding
    return dataclasses.replace(finding, weaker=finding.active,
                               detail=f"{finding.detail}; weaker without root: {how}")


def mode_finding(support: L.LayerSupport) -> ProtectionRow:
    """The row that says how the sandbox is built here: as root, or in user namespaces."""
    if support.as_root:
        return ProtectionRow("sandbox mode", True, "built as root: a private uid per kernel, control groups")
    return ProtectionRow("sandbox mode", not support.missing, (
        f"built without root (uid {os.geteuid()}) in {support.mode}s; layers marked weaker hold "
        "less than as root (sudo grader doctor probes the root sandbox)"), weaker=True)


def print_table(rows: list[ProtectionRow], console: Console | None = None) -> None:
    table = Table(title="Grading sandbox: protections probed from inside")
    table.add_column("protection")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for finding in rows:
        status = ("[yellow]none without root[/]" if finding.absent_without_root else
                  "[red]unavailable[/]" if not finding.active else
                  "[yellow]active, weaker[/]" if finding.weaker else "[green]active[/]")
        table.add_row(finding.protection, status, finding.detail)
    (console or make_console()).print(table)


def privacy_findings(course_root: str) -> list[ProtectionRow]:
    """Course paths other accounts can reach (``grader.service.privacy``): one row each with the
    command that closes it, or one "course privacy: active" row when there is none; and a row for
    an exchange course folder another account owns (it blocks ``nbgrader release_assignment``).
    ``main`` adds them when the config's folder is a course (it has ``source/`` or a gradebook)."""
    from pathlib import Path

    from grader.course import Course
    from grader.service.exchange import CourseExchange
    from grader.service.privacy import course_problems, exchange_owner_problems
    from grader.service.watch import exchange_root

    course = Course(Path(course_root).resolve())
    exchange = CourseExchange(course)
    owned = exchange_owner_problems(exchange_root(exchange), exchange.course_id, (course.root.stat().st_uid,))
    problems = course_problems(course)
    findings = [ProtectionRow("exchange folder owner", False, f"{p.path}: {p.what}; run `{p.command}`")
                for p in owned]
    if not problems:
        return findings + [ProtectionRow("course privacy", True, f"{course_root}: no course path is readable by "
                                                           "other accounts")]
    return findings + [ProtectionRow(f"course privacy: {p.what}", False,
                               f"{p.path} has mode {p.mode:04o}; run `{p.command}` (or grader watch "
                               "--fix-permissions)") for p in problems]


def service_findings(course_root: str) -> list[ProtectionRow]:
    """What the grading service does with a hand-in (``grader.service.inbound``), probed for real:
    a hand-in holding a link to a planted file is refused before anything is copied, and a clean
    one is copied whole; the hand-in budget and the owner check as the course sets them."""
    from pathlib import Path

    from grader.course import Course
    from grader.grading.admission import handin_budget
    from grader.service.budgets import budgets_summary, sparse_file_counts_whole
    from grader.service.exchange import CourseExchange
    from grader.service.inbound import HandinRefused, InboundFolder, collect_folder
    from grader.service_policy import load_service_policy

    course = Course(Path(course_root).resolve())
    budget = handin_budget(load_service_policy(course))
    with tempfile.TemporaryDirectory(prefix="grader-doctor-inbound-") as top:
        inbound = Path(top, "inbound")
        canary = Path(top, "canary.txt")
        canary.write_text(uuid.uuid4().hex)
        clean, linked = (inbound / f"probe+{kind}" for kind in ("clean", "linked"))
        for folder in (clean, linked):
            folder.mkdir(parents=True)
            (folder / "submission_secret.txt").write_text(os.urandom(64).hex())
            (folder / "probe.ipynb").write_text("{}")
        (linked / "data.txt").symlink_to(canary)
        uid = os.geteuid()
        copied = collect_folder(inbound, InboundFolder(clean.name.encode(), uid, ""), Path(top, "out1"), budget)
        try:
            collect_folder(inbound, InboundFolder(linked.name.encode(), uid, ""), Path(top, "out2"), budget)
            refused, why = False, "a hand-in holding a link was copied"
        except HandinRefused as exc:
            leaked = any(canary.read_text() in p.read_text(errors="replace")
                         for p in Path(top).glob("out2/**/*") if p.is_file())
            refused, why = not leaked, str(exc)
    rows = [ProtectionRow("grading service: no link followed in hand-ins", refused and copied.notebooks == ("probe.ipynb",),
                    f"a probe hand-in with a link was refused ({why}); a clean one was copied"),
            ProtectionRow("grading service: hand-in budget", True,
                    f"at most {budget.max_bytes / 1e6:g} MB, {budget.max_entries} files and folders, "
                    f"{budget.max_notebooks} notebooks, {budget.max_depth} folders deep per hand-in "
                    "(c.GradingService.max_handin_*)")]
    policy = load_service_policy(course)
    with tempfile.TemporaryDirectory(prefix="grader-doctor-budgets-", dir=course.state_dir) as probe:
        sparse_whole = sparse_file_counts_whole(Path(probe))
    rows.append(ProtectionRow("grading service: per-account budgets", sparse_whole, budgets_summary(policy)
                        + ("" if sparse_whole else "; a sparse file in the archive was NOT counted whole")))
    owner_checked = CourseExchange(course).check_owner
    rows.append(ProtectionRow("grading service: a hand-in speaks only for its owner", owner_checked,
                        "folders owned by root, by no account or by another account than the one "
                        "they name are refused" if owner_checked else
                        "c.ExchangeCollect.check_owner = False: any account can hand in under any name"))
    return rows


def cluster_findings(course_root: str) -> tuple[list[ProtectionRow], str | None]:
    """The course's grading-cluster certificates (``grader.scheduling.cluster_security``): one row when a
    certificates folder is there or configured, else a note (a course graded locally needs none);
    nothing without Dask distributed installed."""
    from pathlib import Path

    from grader.course import Course
    from grader.scheduling.cluster_security import certificates_report, not_configured_note

    try:
        import distributed  # noqa: F401
    except ImportError:
        return [], None
    course = Course(Path(course_root).resolve())
    report = certificates_report(course)
    if report is None:
        return [], not_configured_note(course)
    return [ProtectionRow("cluster certificates (mutual TLS)", *report)], None


def lms_findings(course_root: str) -> list[ProtectionRow]:
    """One row for the course's LMS score passback (``grader.lti``) when a platform is registered:
    scores the platform rejected or that could not be posted, with its reason."""
    from pathlib import Path

    from grader.course import Course
    from grader.lti.health import passback_health

    health = passback_health(Course(Path(course_root).resolve()).state_dir)
    return [] if health is None else [ProtectionRow("LMS score passback (LTI 1.3)", *health)]


def refuse_untrusted(config_file: str | None) -> None:
    """As root, exit naming the path and what to run when another account can change the config
    (and its folder) or the grader's code, before anything of it is loaded (``grader.root_trust``)."""
    from grader.root_trust import UntrustedError, refuse_untrusted_course

    if config_file and not os.path.isfile(config_file):
        return  # load_settings names the missing file
    course_root = os.path.dirname(os.path.abspath(config_file)) if config_file else None
    try:
        refuse_untrusted_course(course_root, f"the course {course_root}" if course_root else "the grader")
    except UntrustedError as exc:
        raise SystemExit(f"grader doctor: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``grader doctor``; returns 0 when every protection is active (or, without
    root, absent by design)."""
    parser = argparse.ArgumentParser(
        prog="grader doctor",
        description="Probe each protection of the grading sandbox for real and report "
                    "which are active. Exits 1 if any is unavailable (a protection the "
                    "sandbox without root does not have is named, not counted).")
    parser.add_argument("--config", default=None, help=(
        "nbgrader_config.py whose SandboxedExecute settings to probe (default: "
        "./nbgrader_config.py if it exists, else the built-in defaults)"))
    args = parser.parse_args(argv)
    config_file = args.config
    if config_file is None and os.path.isfile("nbgrader_config.py"):
        config_file = "nbgrader_config.py"
    refuse_untrusted(config_file)
    settings = load_settings(config_file)
    limits = configured_limits(settings)
    course_root = os.path.dirname(os.path.abspath(config_file)) if config_file else None
    is_course = course_root is not None and any(
        os.path.exists(os.path.join(course_root, name)) for name in (SOURCE, "gradebook.db"))
    privacy = (privacy_findings(course_root) + service_findings(course_root)) if is_course else []
    cluster, cluster_note = cluster_findings(course_root) if is_course else ([], None)
    privacy += cluster  # course rows, shown even when the sandbox cannot run
    privacy += lms_findings(course_root) if is_course else []
    try:
        findings, run, leftovers = attack(limits)
    except (SandboxError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
        make_console(stderr=True).print(f"[red]grader doctor: the sandbox could not run at all:[/] "
                                   f"{exc}")
        if privacy:
            print_table(privacy)
        return 1
    rows = [mode_finding(run.support), *assess(findings, run, leftovers, limits)]
    try:
        rows += attack_tree(limits)
        rows.append(check_output_limits(settings))
        rows.append(check_leftover_cleanup(limits))
    except (SandboxError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
        rows.append(ProtectionRow("whole-tree limits", False, f"the probe could not run: {exc}"))
    rows += privacy
    print_table(rows)
    if cluster_note:
        Console().print(cluster_note, highlight=False, markup=False)
    return 0 if all(finding.active or finding.absent_without_root for finding in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
