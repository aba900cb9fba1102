"""The sandbox: each way an untrusted command can misbehave ends in the right status, with nothing left running."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import psutil
import pytest

from helpers.grading.sandbox import Limits, Outcome, job_uid, kill_job, prepare_scratch, run_limited

ROOT = os.geteuid() == 0
PRINT_MARKER = "import os; print(os.environ['WORKBOOK_JOB'], flush=True)\n"
DAEMON = PRINT_MARKER + """
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1000)
    os._exit(0)
os.wait()
print("parent done")
"""
needs_root = pytest.mark.skipif(not ROOT, reason="job uids need root")


def make_base() -> Path:
    """A temporary folder every job uid can traverse (pytest's tmp_path is mode 700)."""
    path = Path(tempfile.mkdtemp(prefix="sandbox-test-"))
    path.chmod(0o755)
    return path


@pytest.fixture
def base():
    path = make_base()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def uid_python() -> str:
    """A Python that a job uid may execute (a venv whose interpreter lives under /root is not one)."""
    if not ROOT:
        pytest.skip("job uids need root")
    path = make_base()
    uid = job_uid(99)
    prepare_scratch(path / "probe", uid)
    for candidate in (sys.executable, shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            if candidate and run_limited([candidate, "-c", "pass"], path / "probe", Limits(wall_s=30), uid=uid).status == "ok":
                return candidate
        except OSError:
            continue
    pytest.skip("no Python interpreter is executable by an unprivileged uid here")


def py(code: str, cwd: Path, limits: Limits | None = None, python: str = sys.executable, **kw) -> Outcome:
    """Run a snippet of Python under the sandbox."""
    return run_limited([python, "-c", code], cwd, limits or Limits(wall_s=60), **kw)


def alive_with_marker(marker: str) -> list[int]:
    """Running (non-zombie) processes whose environment holds WORKBOOK_JOB=<marker>."""
    needle = f"WORKBOOK_JOB={marker}".encode()
    found = []
    for p in psutil.process_iter():
        try:
            if needle in Path(f"/proc/{p.pid}/environ").read_bytes().split(b"\0") and p.status() != "zombie":
                found.append(p.pid)
        except (OSError, psutil.Error):
            pass
    return found


def procs_of_uid(uid: int) -> list[int]:
    """Every process of a real uid, zombies included."""
    return [p.pid for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]


# -----------------------------------------------------------------------------
# how it ended


def test_ok_merges_output_and_cleans_env(base):
    out = py("import os, sys; print('out', flush=True); print('err', file=sys.stderr, flush=True); print(sorted(set(os.environ) - {'LC_CTYPE'}))", base,
             env={"FOO": "1"})
    assert (out.status, out.returncode, out.signal, out.truncated) == ("ok", 0, None, False)
    assert out.output.splitlines()[:2] == ["out", "err"]
    assert "['FOO', 'WORKBOOK_JOB']" in out.output  # LC_CTYPE is Python's own locale coercion
    assert out.leftovers_killed == 0


def test_sys_exit(base):
    out = py("import sys; sys.exit(3)", base)
    assert (out.status, out.returncode) == ("exit", 3)
    assert "3" in out.message


def test_os_exit(base):
    out = py("import os; os._exit(1)", base)
    assert (out.status, out.returncode) == ("exit", 1)


def test_segfault(base):
    out = py("import ctypes; ctypes.string_at(0)", base)
    assert out.status == "killed"
    assert out.signal == 11
    assert "SIGSEGV" in out.message


def test_infinite_loop_times_out(base):
    out = py("while True: pass", base, Limits(wall_s=2))
    assert (out.status, out.returncode) == ("timeout", None)
    assert out.wall_s >= 2
    assert "wall-clock" in out.message


def test_memory_bomb_hits_rlimit(base):
    code = "x = []\nfor _ in range(40): x.append(b'x' * (100 << 20))"  # at most 4 GB if every limit failed
    out = py(code, base, Limits(wall_s=60, memory_mb=500))
    assert out.status == "memory"
    assert "MemoryError" in out.output


def test_memory_bomb_hits_watchdog_under_cuda_settings(base):
    code = "import time\nx = []\nfor _ in range(40):\n    x.append(b'x' * (100 << 20))\n    time.sleep(0.02)"
    out = py(code, base, Limits(wall_s=60, memory_mb=500, use_cuda=True))  # no RLIMIT_AS: only the RSS watchdog
    assert (out.status, out.returncode) == ("memory", None)
    assert out.peak_rss_mb > 500


def test_fork_bomb_is_held_and_cleaned(base, request):
    kw = {}
    if ROOT:  # root ignores RLIMIT_NPROC: run it as a job uid, or not at all
        kw = {"uid": job_uid(91), "python": request.getfixturevalue("uid_python")}
        prepare_scratch(base / "job", kw["uid"])
        base = base / "job"
    code = PRINT_MARKER + "import time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.05)"
    out = py(code, base, Limits(wall_s=10, nproc=50), **kw)
    marker = out.output.splitlines()[0]
    assert out.status == "nproc" if ROOT else out.status in ("nproc", "timeout")
    assert out.leftovers_killed > 0
    assert alive_with_marker(marker) == []
    if ROOT:
        assert procs_of_uid(kw["uid"]) == []  # zombies reaped too


def test_big_output_is_capped(base):
    code = "import sys\nw = sys.stdout.buffer.write\nw(b'START')\nfor _ in range(100): w(b'x' * (1 << 20))\nw(b'END')"
    out = py(code, base, Limits(wall_s=60, output_mb=1))
    assert (out.status, out.truncated) == ("ok", True)
    assert len(out.output) <= 1 << 20
    assert out.output.startswith("START") and out.output.endswith("END")
    assert "output dropped" in out.output


@pytest.mark.parametrize("as_uid", [False, pytest.param(True, marks=needs_root)])
def test_daemon_is_killed_after_exit(base, as_uid, request):
    kw = {}
    if as_uid:
        kw = {"uid": job_uid(92), "python": request.getfixturevalue("uid_python")}
        prepare_scratch(base / "job", kw["uid"])
        base = base / "job"
    out = py(DAEMON, base, **kw)
    marker = out.output.splitlines()[0]
    assert out.status == "ok"
    assert "parent done" in out.output
    assert out.leftovers_killed == 1
    assert alive_with_marker(marker) == []
    if as_uid:
        assert procs_of_uid(kw["uid"]) == []


def test_kill_job_finds_processes_by_marker():
    marker = uuid.uuid4().hex
    env = {**os.environ, "WORKBOOK_JOB": marker}
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"], env=env, start_new_session=True)
    try:
        # Popen returns after exec, so the marker is already in /proc/<pid>/environ
        assert kill_job(marker) == 1
        assert proc.wait(timeout=10) == -9
    finally:
        proc.kill()


# -----------------------------------------------------------------------------
# uids and scratch folders


def test_job_uid():
    assert job_uid(3) == (61003 if ROOT else None)


@needs_root
def test_uid_job_cannot_write_outside_scratch(base, uid_python):
    outdir = base / "grader-out"
    outdir.mkdir(mode=0o755)
    uid = job_uid(93)
    prepare_scratch(base / "job", uid)
    code = (
        "import errno, os\n"
        "open('mine.txt', 'w').write('ok')\n"
        "print('HOME', os.environ['HOME'])\n"
        f"try:\n    open({str(outdir / 'x')!r}, 'w')\nexcept PermissionError as e:\n"
        "    print('denied', errno.errorcode[e.errno])\n"
    )
    out = py(code, base / "job", python=uid_python, uid=uid)
    assert out.status == "ok", out.output
    assert "denied EACCES" in out.output
    assert f"HOME {base / 'job'}" in out.output
    assert (base / "job" / "mine.txt").stat().st_uid == uid
    assert not (outdir / "x").exists()


@needs_root
def test_scratch_folders_are_private(base, uid_python):
    uid_a, uid_b = job_uid(94), job_uid(95)
    prepare_scratch(base / "a", uid_a)
    prepare_scratch(base / "b", uid_b)
    assert (base / "a").stat().st_mode & 0o777 == 0o700
    assert py("open('secret.txt', 'w').write('42')", base / "a", python=uid_python, uid=uid_a).status == "ok"
    code = (
        "import os\n"
        f"for f in (lambda: os.listdir({str(base / 'a')!r}), lambda: open({str(base / 'a' / 'secret.txt')!r})):\n"
        "    try:\n        f()\n        print('readable')\n    except PermissionError:\n        print('denied')\n"
    )
    out = py(code, base / "b", python=uid_python, uid=uid_b)
    assert out.output.split() == ["denied", "denied"], out.output
