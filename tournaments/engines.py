"""Engine specs: what process to start for each player of a tournament, including Monte at another git revision.

An engine is a name and a command line. A command whose program is written ``pbrain-monte@REV`` (or an engine with
``revision = "REV"``) means "Monte as it was at git revision REV": before the tournament starts, that revision is
installed once into its own cached environment, ``~/.cache/monte/revisions/<sha>/``, so two versions of Monte can play
each other from one checkout.

Why not ``pip install``: building a wheel needs a build backend (setuptools with ``bdist_wheel``, at the version the
revision's pyproject asks for), which an offline machine may not have. Monte is pure Python, so the same result comes
from the archived source tree, a venv that sees the system's numpy and numba (``--system-site-packages``), a ``.pth``
file that puts the tree on that venv's path, and the console scripts the revision itself declares in
``[project.scripts]``. Nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
import tomllib
import venv
from dataclasses import dataclass, replace
from pathlib import Path

REVISION_MARK = "@"
DEFAULT_REVISION_PROGRAM = "pbrain-monte"
RUNNER_INFO_KEYS = ("timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule")
"""INFO keys the runner sends itself from the ``[game]`` settings: an engine's own INFO may not contradict them."""
_INFO_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class EngineError(ValueError):
    """An engine that cannot be prepared: a bad spec, an unknown revision, a revision without the script."""


@dataclass(frozen=True)
class EngineSpec:
    """One player: a unique name, the command that starts it, and optionally the git revision it comes from.

    With a revision, ``command[0]`` is the name of a console script that revision declares (usually
    ``pbrain-monte``); ``prepare`` turns it into the path of that script in the revision's environment.
    """

    name: str
    command: tuple[str, ...]
    revision: str | None = None
    cwd: str | None = None
    info: tuple[tuple[str, str], ...] = ()
    """This engine's own ``INFO key value`` lines, sent after the standard ones (e.g. Rapfi's ``max_node``)."""

    @classmethod
    def parse(cls, text: str) -> "EngineSpec":
        """An engine from ``NAME=COMMAND`` (the ``--engine`` flag); ``pbrain-monte@REV ...`` selects a revision."""
        name, sep, command = text.partition("=")
        if not sep or not name.strip():
            raise EngineError(f"engine {text!r}: write NAME=COMMAND, e.g. greedy='pbrain-monte --engine greedy'")
        return cls.from_command(name.strip(), shlex.split(command))

    @classmethod
    def from_command(cls, name: str, argv: list[str], revision: str | None = None,
                     cwd: str | None = None) -> "EngineSpec":
        """An engine from an argument list, splitting ``program@REV`` in its first word into program and revision."""
        if not argv:
            raise EngineError(f"engine {name!r}: the command is empty")
        program, mark, rev = argv[0].partition(REVISION_MARK)
        if mark:
            if revision is not None and revision != rev:
                raise EngineError(f"engine {name!r}: revision given twice ({revision!r} and {rev!r})")
            if not rev:
                raise EngineError(f"engine {name!r}: {argv[0]!r} names no revision after '@'")
            argv = [program or DEFAULT_REVISION_PROGRAM, *argv[1:]]
            revision = rev
        return cls(name, tuple(argv), revision, cwd)


def engine_info(pairs: dict[str, object]) -> tuple[tuple[str, str], ...]:
    """Checked ``INFO`` pairs for an engine from a mapping of key to value (an integer or a string).

    EngineError (one line, naming the key) for a key that is not a plain word, a key the runner sends itself, or a
    value that is not an integer or a one-line string -- a bad value would reach the engine as a broken INFO line.
    """
    checked = []
    for key, value in pairs.items():
        if not isinstance(key, str) or not _INFO_KEY.fullmatch(key):
            raise EngineError(f"info key {key!r}: must be a word of letters, digits and '_'")
        if key.lower() in RUNNER_INFO_KEYS:
            raise EngineError(f"info.{key}: the runner sends INFO {key.lower()} itself from the [game] settings")
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise EngineError(f"info.{key}: must be an integer or a string, got {value!r}")
        text = str(value)
        if not text.strip() or any(ch in text for ch in "\r\n"):
            raise EngineError(f"info.{key}: must be a non-empty string on one line, got {value!r}")
        checked.append((key, text))
    return tuple(checked)


def parse_info_flag(text: str) -> tuple[str, str, str]:
    """(engine name, key, value) from the ``--info NAME:KEY=VALUE`` flag, e.g. ``rapfi:max_node=20000``."""
    target, sep, value = text.partition("=")
    name, colon, key = target.rpartition(":")
    if not sep or not colon or not name.strip() or not key.strip():
        raise EngineError(f"--info {text!r}: write NAME:KEY=VALUE, e.g. rapfi:max_node=20000")
    return name.strip(), key.strip(), value


def default_revisions_dir() -> Path:
    """Where installed revisions are cached: $XDG_CACHE_HOME/monte/revisions, else ~/.cache/monte/revisions."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "monte" / "revisions"


def source_checkout() -> Path:
    """The git checkout this package runs from: revisions are looked up there."""
    return Path(__file__).resolve().parents[1]


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)


def resolve_revision(revision: str, repo: Path) -> str:
    """The full commit sha of `revision` (a tag, branch or commit) in `repo`; EngineError if git does not know it."""
    result = _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if result.returncode != 0:
        raise EngineError(f"revision {revision!r} is not a commit of the git checkout {repo}")
    return result.stdout.decode().strip()


def install_revision(revision: str, *, repo: Path | None = None, cache: Path | None = None) -> Path:
    """Install `revision` of Monte (once) and return its environment folder (holding ``bin/``).

    Installs build in a temporary folder and are renamed into place, so an interrupted install leaves nothing
    half-done and two runs installing the same revision at once do not trip over each other.
    """
    repo = repo or source_checkout()
    cache = cache or default_revisions_dir()
    sha = resolve_revision(revision, repo)
    target = cache / sha
    if (target / "bin").is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{sha}.", dir=cache))
    try:
        _build_environment(repo, sha, work, final=target)
        try:
            work.rename(target)
        except OSError:
            if not (target / "bin").is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def _build_environment(repo: Path, sha: str, work: Path, *, final: Path) -> None:
    """Fill `work` with the archived tree of `sha` (src/) and a venv whose scripts run it; paths written into the
    scripts point at `final`, where `work` is moved once complete."""
    archive = _git(repo, "archive", "--format=tar", sha)
    if archive.returncode != 0:
        raise EngineError(f"git archive {sha[:12]} failed: {archive.stderr.decode().strip()}")
    src = work / "src"
    src.mkdir()
    archive_path = work / "src.tar"
    archive_path.write_bytes(archive.stdout)
    with tarfile.open(archive_path) as tar:
        tar.extractall(src, filter="data")
    archive_path.unlink()
    scripts = _declared_scripts(src / "pyproject.toml", sha)
    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=True).create(work)
    site_packages = next((work / "lib").glob("python*/site-packages"))
    (site_packages / "monte-revision.pth").write_text(f"{final / 'src'}\n")
    for script, target in scripts.items():
        module, _, function = target.partition(":")
        path = work / "bin" / script
        path.write_text(
            f"#!{final / 'bin' / 'python'}\n"
            f"# Monte revision {sha}: console script {script} -> {target}\n"
            "import sys\n"
            f"from {module} import {function}\n"
            f"sys.exit({function}())\n"
        )
        path.chmod(0o755)


def _declared_scripts(pyproject: Path, sha: str) -> dict[str, str]:
    """The ``[project.scripts]`` table of a revision's pyproject.toml."""
    try:
        scripts = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise EngineError(f"revision {sha[:12]} declares no console scripts in pyproject.toml ({exc})") from None
    return dict(scripts)


def check_program(spec: EngineSpec) -> None:
    """EngineError unless the engine's program exists: a path (relative to the engine's folder) or a name on PATH.

    A misspelt command is a mistake in the tournament, not a start-up fault of the engine in every game.
    """
    program = spec.command[0]
    if os.sep in program:
        path = Path(spec.cwd or ".") / program
        found, where = path.is_file() and os.access(path, os.X_OK), ""
    else:
        found, where = shutil.which(program) is not None, " on PATH"
    if not found:
        raise EngineError(f"engine {spec.name!r}: program {program!r} is not an executable file{where}")


def prepare(spec: EngineSpec, *, repo: Path | None = None, cache: Path | None = None) -> EngineSpec:
    """The spec ready to run: its program checked; a revision installed, its script put in place of
    ``command[0]`` and the revision cleared, so preparing again changes nothing."""
    if spec.revision is None:
        check_program(spec)
        return spec
    env = install_revision(spec.revision, repo=repo, cache=cache)
    script = env / "bin" / spec.command[0]
    if not script.is_file():
        available = ", ".join(sorted(p.name for p in (env / "bin").iterdir() if p.name.startswith("pbrain-")))
        raise EngineError(f"engine {spec.name!r}: revision {spec.revision!r} has no script {spec.command[0]!r} "
                          f"(it has: {available or 'none'})")
    warm_up_revision(script)
    return replace(spec, command=(str(script), *spec.command[1:]), revision=None)


WARMUP_TIMEOUT_S = 600


def warm_up_revision(script: Path) -> None:
    """Compile a revision's numba kernels before its first game (``--warmup``), so that a cold compile cannot
    make it miss the START deadline and forfeit (seen: four games lost at START by a fresh revision). Cheap when
    the revision's cache is warm already. A revision without ``--warmup`` is left as it is."""
    try:
        result = subprocess.run([str(script), "--warmup"], stdin=subprocess.DEVNULL, capture_output=True,
                                timeout=WARMUP_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EngineError(f"warm-up of {script} failed: {exc}") from None
    if result.returncode not in (0, 2):  # 2: argparse's answer from a revision older than --warmup
        detail = result.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise EngineError(f"warm-up of {script} failed (exit {result.returncode}): {detail[0]}")
