"""Monte at a git revision, or as the working tree is now, installed once into an environment of its own.

Which code: ``REV`` is looked up in the git repository that holds the current folder (or ``--repo DIR``), not in the
folder the runner happens to be installed in. At the start of a run every revision is pinned to a full sha: a
commit's, or for ``WORKTREE`` the sha of a git tree object written from the working tree as it is at that moment
(uncommitted changes and new files included, ignored files not). The pinned sha is what the run records and what
``--resume`` checks, so a moved branch or an edited tree cannot swap an engine in the middle of a run.

How it runs: each sha gets ``<cache>/<sha>-<interpreter>/`` (``~/.cache/monte/revisions/`` by default; the suffix
names the Python environment running the runner, see `environment_folder`) holding the archived tree
(``src/``), a venv of this Python, and the console scripts the revision declares in ``[project.scripts]``. The venv's
path holds ``src/`` first, then the folders where *this* interpreter finds the revision's dependencies (numpy, numba
and what they need) -- not the base interpreter's site-packages, which has no numba when Monte lives in a venv.
Scripts run ``python -I``, so no PYTHONPATH or user site can put other code in front. Nothing is downloaded (no
wheel is built, so an offline machine works); a dependency this interpreter lacks is a one-line error saying so.
The source comes from ``git archive`` in the repository, or, on a cluster worker that has no clone, as the same
archive sent by the coordinator (`install_pinned`).

Before each reuse the environment is checked: its Python must start, be the version it was built with, see the same
dependency folders this interpreter would give it, and import the dependencies. One that fails (its base Python
removed or upgraded, this interpreter's venv gone, built by an older runner) is rebuilt.
"""

from __future__ import annotations

import importlib.metadata
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import venv
from pathlib import Path
from typing import Callable

from monte.brain.cachedir import folder_lock

WORKTREE = "WORKTREE"
"""The revision name for the working tree as it is when the run starts."""

MANIFEST = "monte-revision.json"
LEFT_OUT = "tournaments/reports"
"""The one folder of a revision its environment does without: the project's game records and reports, which no
engine reads -- 106 of the 108 MB of a tree at 27e7b78, and growing with every report."""
WARMUP_TIMEOUT_S = 600
PROBE_TIMEOUT_S = 120
_FULL_SHA = re.compile(r"[0-9a-f]{40}")


class RevisionError(ValueError):
    """A revision that cannot be found, pinned, installed or started; the message is one line."""


def default_revisions_dir() -> Path:
    """Where installed revisions are cached: $XDG_CACHE_HOME/monte/revisions, else ~/.cache/monte/revisions."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "monte" / "revisions"


def environment_folder(cache: Path, sha: str) -> Path:
    """Where `sha`'s environment for the running interpreter lives in `cache`.

    The folder is named by the sha and by this interpreter's environment (its prefix and version), because an
    environment borrows that interpreter's dependency folders. Were it named by the sha alone, two runs from two
    venvs would each find the other's environment "built for another Python environment" and rebuild it -- under
    the other run's engines, which then failed to start (seen: four forfeits in one run)."""
    identity = f"{sys.prefix}\0{sys.version}".encode()
    return cache / f"{sha}-{hashlib.sha256(identity).hexdigest()[:10]}"


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False, env=env)


def find_repository(folder: Path) -> Path:
    """The top folder of the git repository holding `folder`; RevisionError if there is none."""
    result = _git(folder, "rev-parse", "--show-toplevel")
    if result.returncode != 0:
        raise RevisionError(f"engine revisions are looked up in the git repository of the current folder, and "
                            f"{folder.resolve()} is not inside one: run from a clone, or pass --repo DIR")
    return Path(result.stdout.decode().strip())


def pin_revision(revision: str, repo: Path) -> str:
    """The full sha `revision` stands for in `repo` now: a commit's (tags, branches, ``HEAD~1``... resolved), or for
    ``WORKTREE`` a snapshot tree of the working tree. A sha pinned before pins to itself."""
    if revision == WORKTREE:
        return _snapshot_worktree(repo)
    result = _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if result.returncode == 0:
        return result.stdout.decode().strip()
    if _FULL_SHA.fullmatch(revision) and _git(repo, "cat-file", "-t", revision).stdout.strip() == b"tree":
        return revision
    raise RevisionError(f"revision {revision!r} is not a commit of the git repository {repo}")


def _snapshot_worktree(repo: Path) -> str:
    """Write the working tree of `repo` as a git tree object (through a scratch index, so the user's index and
    files are untouched) and return its sha. Same files, same sha: an unchanged tree reuses its environment."""
    with tempfile.TemporaryDirectory(prefix="monte-worktree.") as scratch:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(scratch, "index")}
        has_head = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD").returncode == 0
        for args in (("read-tree", "HEAD") if has_head else ("read-tree", "--empty"), ("add", "--all")):
            result = _git(repo, *args, env=env)
            if result.returncode != 0:
                raise RevisionError(f"could not snapshot the working tree of {repo}: "
                                    f"git {args[0]}: {result.stderr.decode().strip()}")
        tree = _git(repo, "write-tree", env=env)
        if tree.returncode != 0:
            raise RevisionError(f"could not snapshot the working tree of {repo}: {tree.stderr.decode().strip()}")
        return tree.stdout.decode().strip()


def install_revision(revision: str, *, repo: Path, cache: Path | None = None,
                     note: Callable[[str], None] | None = None) -> Path:
    """The environment folder (holding ``bin/``) of `revision` of `repo`, installed once and checked at each reuse
    (see `install_pinned`)."""
    sha = pin_revision(revision, repo)
    return install_pinned(sha, lambda: revision_archive(repo, sha), cache=cache, note=note)


def revision_archive(repo: Path, sha: str) -> bytes:
    """The tree of `sha` in `repo` as a tar archive, LEFT_OUT aside: what an environment is built from, and what a
    cluster's coordinator sends to workers that have no clone."""
    archive = _git(repo, "archive", "--format=tar", sha, "--", ".", f":(exclude){LEFT_OUT}")
    if archive.returncode != 0:
        raise RevisionError(f"git archive {sha[:12]} failed: {archive.stderr.decode().strip()}")
    return archive.stdout


def install_pinned(sha: str, archive: Callable[[], bytes], *, cache: Path | None = None,
                   note: Callable[[str], None] | None = None) -> Path:
    """The environment folder of the pinned `sha`, built from `archive()` (called only when it must be built).

    An environment that fails its check is rebuilt (`note` hears why). Installs are built in a temporary folder and
    renamed into place, so an interrupted install leaves nothing half-done; processes sharing the cache (the workers
    of one machine) take turns, so a second one finds the first one's environment instead of replacing it.
    """
    if not _FULL_SHA.fullmatch(sha):
        raise RevisionError(f"revision {sha!r} is not pinned to a full sha")
    cache = cache or default_revisions_dir()
    target = environment_folder(cache, sha)
    cache.mkdir(parents=True, exist_ok=True)
    with folder_lock(cache):
        if (target / "bin").is_dir():
            problem = _health_problem(target)
            if problem is None:
                return target
            if note is not None:
                note(f"revision {sha[:12]}: rebuilding its environment ({problem})")
        work = Path(tempfile.mkdtemp(prefix=f"{sha}.", dir=cache))
        try:
            _build_environment(archive(), sha, work, final=target)
            _replace(target, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        problem = _health_problem(target)
    if problem is not None:
        raise RevisionError(f"revision {sha[:12]}: its new environment does not work: {problem}")
    return target


def _replace(target: Path, work: Path) -> None:
    """Move the finished environment `work` to `target`, putting an old one there aside first."""
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f"{target.name}.old.", dir=target.parent))
        target.rename(old / "env")
        shutil.rmtree(old, ignore_errors=True)
    try:
        work.rename(target)
    except OSError:
        if not (target / "bin").is_dir():  # else another run installed it meanwhile
            raise


def _build_environment(archive: bytes, sha: str, work: Path, *, final: Path) -> None:
    """Fill `work` with the tree of `sha` from its tar `archive` (src/), a venv whose path leads to it and to this
    interpreter's copies of its dependencies, its console scripts and the manifest; paths written point at `final`,
    where `work` is moved once complete."""
    src = work / "src"
    src.mkdir()
    archive_path = work / "src.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(src, filter="data")
    archive_path.unlink()
    project = _project_table(src / "pyproject.toml", sha)
    paths = [str(final / "src"), *dependency_folders(project.get("dependencies", []), sha)]
    venv.EnvBuilder(system_site_packages=False, with_pip=False, symlinks=True).create(work)
    site_packages = next((work / "lib").glob("python*/site-packages"))
    (site_packages / "monte-revision.pth").write_text("".join(f"{path}\n" for path in paths))
    for script, target in _declared_scripts(project, sha).items():
        module, _, function = target.partition(":")
        path = work / "bin" / script
        path.write_text(
            f"#!{final / 'bin' / 'python'} -I\n"
            f"# Monte revision {sha}: console script {script} -> {target}\n"
            "import sys\n"
            f"from {module} import {function}\n"
            f"sys.exit({function}())\n"
        )
        path.chmod(0o755)
    (work / MANIFEST).write_text(json.dumps({"sha": sha, "python": sys.version, "paths": paths}, indent=2) + "\n")


def _project_table(pyproject: Path, sha: str) -> dict:
    """The ``[project]`` table of a revision's pyproject.toml."""
    try:
        return tomllib.loads(pyproject.read_text())["project"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise RevisionError(f"revision {sha[:12]} has no [project] in pyproject.toml ({exc})") from None


def _declared_scripts(project: dict, sha: str) -> dict[str, str]:
    """The ``[project.scripts]`` table of a revision."""
    scripts = project.get("scripts")
    if not isinstance(scripts, dict) or not scripts:
        raise RevisionError(f"revision {sha[:12]} declares no console scripts in pyproject.toml")
    return dict(scripts)


def _requirement_name(requirement: str) -> str | None:
    """The distribution a requirement string names, normalised; None for one that applies only to an extra."""
    if re.search(r";.*\bextra\s*==", requirement):
        return None
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else None


def dependency_folders(requirements: list[str], sha: str) -> list[str]:
    """The folders in which this interpreter finds `requirements` and everything they require, in order.

    RevisionError if a direct requirement is not installed here; a missing indirect one is left to the import
    check (it may be for another platform or Python).
    """
    folders: list[str] = []
    seen: set[str] = set()
    todo = [(name, True) for name in map(_requirement_name, requirements) if name]
    while todo:
        name, direct = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            if direct:
                raise RevisionError(f"revision {sha[:12]} needs {name!r}, which {sys.executable} does not have: "
                                    f"pip install {name}") from None
            continue
        folder = str(Path(str(dist.locate_file(""))).resolve())
        if folder not in folders:
            folders.append(folder)
        todo += [(sub, False) for sub in map(_requirement_name, dist.requires or []) if sub]
    return folders


def _import_names(requirements: list[str]) -> list[str]:
    """The top-level modules this interpreter's copies of `requirements` provide (``numba`` for numba, ...)."""
    wanted = {name for name in map(_requirement_name, requirements) if name}
    modules = []
    for module, dists in importlib.metadata.packages_distributions().items():
        if module.isidentifier() and not module.startswith("_") and any(
                re.sub(r"[-_.]+", "-", dist).lower() in wanted for dist in dists):
            modules.append(module)
    return sorted(modules)


def _health_problem(env: Path) -> str | None:
    """Why the environment `env` cannot be reused as it is, or None if it can (see the module docstring)."""
    try:
        manifest = json.loads((env / MANIFEST).read_text())
        requirements = _project_table(env / "src" / "pyproject.toml", env.name).get("dependencies", [])
    except (OSError, ValueError, RevisionError):
        return "it was built by an older runner"
    expected = [str(env / "src"), *dependency_folders(requirements, env.name)]
    if manifest.get("paths") != expected:
        return "it was built for another Python environment"
    if manifest.get("python") != sys.version:
        return "it was built for another Python version"
    probe = ("import sys\n" + "".join(f"import {module}\n" for module in _import_names(requirements))
             + "sys.stdout.write(sys.version)\n")
    try:
        result = subprocess.run([str(env / "bin" / "python"), "-I", "-c", probe], stdin=subprocess.DEVNULL,
                                capture_output=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"its Python does not start: {exc}"
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return f"its Python fails: {detail[0]}"
    if result.stdout.decode(errors="replace") != manifest["python"]:
        return "its base Python was upgraded"
    return None


def warm_up(script: Path) -> None:
    """Compile a revision's numba kernels before its first game (``--warmup``), so that a cold compile cannot
    make it miss the START deadline and forfeit (seen: four games lost at START by a fresh revision). Cheap when
    the revision's cache is warm already. A revision without ``--warmup`` is left as it is."""
    try:
        result = subprocess.run([str(script), "--warmup"], stdin=subprocess.DEVNULL, capture_output=True,
                                timeout=WARMUP_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RevisionError(f"warm-up of {script} failed: {exc}") from None
    if result.returncode not in (0, 2):  # 2: argparse's answer from a revision older than --warmup
        detail = result.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise RevisionError(f"warm-up of {script} failed (exit {result.returncode}): {detail[0]}")
