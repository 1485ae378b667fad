"""The students' Python environment and configurable-http-proxy, built once into the cache.

The environment (``cache/env``) is a virtual environment made from a Python every account can run,
readable by everyone: JupyterHub (the hub itself and ``jupyterhub-singleuser``), JupyterLab 4,
nbgrader (its JupyterLab extensions), numpy, matplotlib, ipykernel, and the third-party packages
the course's ``nbgrader_config.py`` imports (so the instructor's formgrader can load it), and the
course's ``course_numbers`` (standard library only), which the notebooks' ``my_numbers`` cell
imports, and ``notebook_language`` (standard library and nbgrader), the fetch that delivers each
student's notebooks in their language and the kernels' extension that shows a failing visible test
in it (loaded by the environment's IPython config). It holds neither ``grader`` nor ``solutions``: only the
instructor's server finds those, in the course folder (``PYTHONPATH``), which no student can read.

A stamp file records what was installed; a second hub with the same list reuses the environment.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from grader.code_version import DISTRIBUTION
from grader.hub.layout import HubLayout
from grader.hub.preflight import shared_python
from grader.sandbox.limits import STUDENT_PACKAGES, package_dirs
from notebook_language.assertions import kernel_config_text

#: What a hub's servers need besides the course config's own imports (the installed grader's requirements).
HUB_PACKAGES = ("jupyterhub>=5,<7", "jupyterlab>=4,<5", "ipykernel>=6.29",
                "jupyterhub-ltiauthenticator>=1.6,<2")  # launches from an LMS (grader.hub.lti_login)
STAMP = ".hub-packages.json"
#: JupyterLab settings of every server of the hub: no news or update checks (no calls out of the
#: hub, no pop-up over a student's page); an HTML file (a feedback page opened from the file
#: browser) shown without the HTML viewer's "Trust HTML" button: the course's pages run no script.
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/htmlviewer-extension:plugin": {"toolbar": [{"name": "trust", "disabled": True}]},
}
#: Course packages the students' Jupyter server imports (not the kernel): the translating fetch.
SERVER_PACKAGES = ("notebook_language",)
NPM_TIMEOUT = 600
PIP_TIMEOUT = 1800


def course_packages() -> list[str]:
    """The installed grader's runtime dependencies (its distribution's metadata, without the optional
    extras): nbgrader, numpy, matplotlib and the course config's imports. RuntimeError naming the
    distribution when it is not installed."""
    try:
        declared = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        raise RuntimeError(f"the distribution {DISTRIBUTION!r} is not installed in this environment; "
                           "install the grader (pip install it, or `make install` in a checkout)") from None
    return [text for text in declared if _runtime(Requirement(text))]


def _runtime(requirement: Requirement) -> bool:
    """Whether ``requirement`` is a plain dependency, not one of an optional extra."""
    return requirement.marker is None or requirement.marker.evaluate({"extra": ""})


def requirements() -> list[str]:
    return [*HUB_PACKAGES, *course_packages()]


def proxy_package() -> str:
    """configurable-http-proxy 5 needs node 20; Debian 12's node is 18, which 4.6 supports."""
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    major = int(version.lstrip("v").split(".")[0]) if version else 0
    return "configurable-http-proxy@^5" if major >= 20 else "configurable-http-proxy@~4.6.3"


def _stamp(wanted: object) -> str:
    return hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()


def _current(folder: Path, stamp: str) -> bool:
    try:
        return json.loads((folder / STAMP).read_text())["stamp"] == stamp
    except (OSError, ValueError, KeyError):
        return False


def _run(args: list[str], what: str, timeout: float) -> None:
    result = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")


@contextmanager
def _building(folder: Path):
    """Hold ``<folder>.lock`` while ``folder`` is checked and built: two hubs starting at once
    (two test workers, two courses on one machine) must not build the same folder together."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_environment(layout: HubLayout, say=print) -> Path:
    """``layout.env`` with :func:`requirements` installed (built on first use); its bin folder."""
    with _building(layout.env):
        return _ensure_environment(layout, say)


def _ensure_environment(layout: HubLayout, say) -> Path:
    wanted = requirements()
    stamp = _stamp(wanted)
    env = layout.env
    if not _current(env, stamp):
        say(f"building the students' environment in {env} (pip; a few minutes the first time)")
        shutil.rmtree(env, ignore_errors=True)
        if env.exists():
            raise RuntimeError(f"{env} could not be removed to build the students' environment anew")
        env.parent.mkdir(parents=True, exist_ok=True)
        _run([shared_python(), "-m", "venv", str(env)], "python3.11 -m venv", 300)
        _run([str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", *wanted], "pip install", PIP_TIMEOUT)
        (env / STAMP).write_text(json.dumps({"stamp": stamp, "packages": wanted}))
    install_student_packages(env)
    install_course_page(env)
    install_kernel_config(env, layout.notebook_locales)
    overrides = env / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    overrides.write_text(json.dumps(LAB_OVERRIDES, indent=1))
    overrides.chmod(0o644)
    _open_to_everyone(env)
    return env / "bin"


#: Run by the environment's Python: the notebook metadata JupyterLab writes once that environment's
#: kernel is running (``kernelspec`` from the kernel's spec, ``language_info`` from ipykernel).
_KERNEL_METADATA = """
import json
from ipykernel.ipkernel import IPythonKernel
from jupyter_client.kernelspec import KernelSpecManager
spec = KernelSpecManager().get_kernel_spec("python3")
print(json.dumps({"kernelspec": {"name": "python3", "display_name": spec.display_name, "language": spec.language},
                  "language_info": IPythonKernel.language_info}))
"""


def kernel_metadata(env_bin: Path) -> dict:
    """``{"kernelspec": {...}, "language_info": {...}}`` as JupyterLab sets them in a notebook whose
    ``python3`` kernel runs in the environment of ``env_bin``: a release notebook that carries them
    opens without the unsaved-changes mark. RuntimeError with the environment's output when it cannot
    tell them."""
    result = subprocess.run([str(env_bin / "python"), "-c", _KERNEL_METADATA], capture_output=True,
                            text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"the students' environment {env_bin.parent} cannot describe its kernel:\n"
                           f"{result.stderr.strip()}\nremove it to build it anew")
    return json.loads(result.stdout.strip().splitlines()[-1])


def install_student_packages(env: Path) -> None:
    """Copy the course's packages that notebooks import (``STUDENT_PACKAGES``) and that the students'
    server imports (``SERVER_PACKAGES``) into ``env``'s site-packages, replacing an older copy: on
    every start, so the students always have the current ones. RuntimeError when ``env`` has no
    site-packages folder or a package is not found."""
    sites = sorted(env.glob("lib/python3*/site-packages"))
    if len(sites) != 1:
        raise RuntimeError(f"{env} has {len(sites)} site-packages folders, not one; remove it to build it anew")
    for name in (*STUDENT_PACKAGES, *SERVER_PACKAGES):
        found = package_dirs([name])
        if not found:
            raise RuntimeError(f"the course package {name!r} is not on this process's import path; it is "
                               f"the folder {name}/ of the course folder (grader hub up --course DIR)")
        target = sites[0] / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(found[0], target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def install_course_page(env: Path) -> None:
    """Copy the students' course page (:mod:`grader.hub.course_page`) and the validator its Validate
    uses (:mod:`grader.validation`) into ``env``'s site-packages as top-level modules, replacing older
    copies (on every start, like the packages)."""
    from grader import validation
    from grader.hub import course_page

    site = next(iter(sorted(env.glob("lib/python3*/site-packages"))))
    shutil.copyfile(course_page.__file__, site / f"{course_page.MODULE_NAME}.py")
    shutil.copyfile(validation.__file__, site / f"{course_page.VALIDATION_MODULE}.py")


def install_kernel_config(env: Path, locale_dir: Path) -> Path:
    """The IPython config of ``env``'s kernels (``etc/ipython/ipython_kernel_config.py``, which IPython
    reads for every kernel of that environment): a failing visible test shows its message in the
    student's language, from the catalogues compiled in ``locale_dir``. The file written."""
    target = env / "etc" / "ipython" / "ipython_kernel_config.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(kernel_config_text(locale_dir), encoding="utf-8")
    return target


def ensure_proxy(layout: HubLayout, say=print) -> Path:
    """configurable-http-proxy under ``layout.proxy`` (npm, first use only); its command."""
    with _building(layout.proxy):
        return _ensure_proxy(layout, say)


def _ensure_proxy(layout: HubLayout, say) -> Path:
    package = proxy_package()
    stamp = _stamp(package)
    if not (_current(layout.proxy, stamp) and layout.proxy_command.exists()):
        say(f"installing {package} into {layout.proxy} (npm)")
        layout.proxy.mkdir(parents=True, exist_ok=True)
        _run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(layout.proxy), package],
             f"npm install {package}", NPM_TIMEOUT)
        (layout.proxy / STAMP).write_text(json.dumps({"stamp": stamp, "packages": [package]}))
    return layout.proxy_command


def _open_to_everyone(env: Path) -> None:
    """Every account can read the environment: it and the cache folder are opened (0755); a folder
    above them that is closed is an error naming it (nothing above the cache is changed)."""
    for folder in (env, env.parent):
        folder.chmod(folder.stat().st_mode | 0o055)
    closed = [p for p in env.parent.parents if not p.stat().st_mode & 0o001]
    if closed:
        raise RuntimeError(f"accounts cannot reach {env}: {closed[0]} is closed to them; "
                           f"choose another --cache")
