"""The sandbox: every way an untrusted command misbehaves ends in the right status, nothing left running."""

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

from helpers.grading.sandbox import (
    UID_BASE, Limits, Outcome, kill_job, kill_user, prepare_scratch, run_limited, spawn,
)

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="job uids need root")

# snippets run with `python -c`; the first line of output is the job's marker where a test needs it
PRINT_MARKER = "import os; print(os.environ['WORKBOOK_JOB'], flush=True)\n"

MEMORY_BOMB = """
import time
x = []
for _ in range(40):  # 4 GB at most, should every limit fail
    x.append(b'x' * (100 << 20))
    time.sleep(0.02)
"""

FORK_BOMB = PRINT_MARKER + """
import time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.05)
"""

BIG_OUTPUT = """
import sys
write = sys.stdout.buffer.write
write(b'START')
for _ in range(100):
    write(b'x' * (1 << 20))
write(b'END')
"""

DAEMON = PRINT_MARKER + """
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1000)
    os._exit(0)
os.wait()
print('parent done')
"""


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
def uid_python():
    """A Python that a job uid may execute (a venv whose interpreter lives under /root is not one)."""
    if not ROOT:
        pytest.skip("job uids need root")
    path = make_base()
    prepare_scratch(path / "probe", (UID_BASE + 99 if ROOT else None))
    found = None
    for candidate in (sys.executable, shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            if candidate and py("pass", path / "probe", python=candidate, uid=(UID_BASE + 99 if ROOT else None)).status == "ok":
                found = candidate
                break
        except OSError:
            continue
    shutil.rmtree(path, ignore_errors=True)
    if found is None:
        pytest.skip("no Python interpreter is executable by an unprivileged uid here")
    return found


def py(code: str, cwd: Path, limits: Limits | None = None, python: str = sys.executable, **kw) -> Outcome:
    """Run a snippet of Python under the sandbox."""
    return run_limited([python, "-c", code], cwd, limits or Limits(wall_s=60), **kw)


def as_job(base: Path, slot: int, uid_python: str) -> tuple[Path, dict]:
    """A scratch folder for a uid job, and the keyword arguments of py() to run as that uid."""
    uid = UID_BASE + slot if ROOT else None
    prepare_scratch(base / f"job{slot}", uid)
    return base / f"job{slot}", {"uid": uid, "python": uid_python}


def alive_with_marker(marker: str) -> list[int]:
    """Running (non-zombie) processes whose environment holds WORKBOOK_JOB=<marker>."""
    needle = f"WORKBOOK_JOB={marker}".encode()
    found = []
    for p in psutil.process_iter():
        try:
            environ = Path(f"/proc/{p.pid}/environ").read_bytes()
            if needle in environ.split(b"\0") and p.status() != psutil.STATUS_ZOMBIE:
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
    code = (
        "import os, sys\n"
        "print('out', flush=True)\n"
        "print('err', file=sys.stderr, flush=True)\n"
        "print(sorted(set(os.environ) - {'LC_CTYPE'}))\n"  # LC_CTYPE: Python's own locale coercion
    )
    out = py(code, base, env={"FOO": "1"})
    assert (out.status, out.returncode, out.signal, out.truncated) == ("ok", 0, None, False)
    assert out.output.splitlines() == ["out", "err", "['FOO', 'WORKBOOK_JOB']"]
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
    assert (out.status, out.signal) == ("killed", 11)
    assert "SIGSEGV" in out.message


def test_infinite_loop_times_out(base):
    out = py("while True: pass", base, Limits(wall_s=2))
    assert (out.status, out.returncode) == ("timeout", None)
    assert out.wall_s >= 2
    assert "wall-clock" in out.message


def test_memory_bomb_hits_rlimit(base):
    out = py(MEMORY_BOMB, base, Limits(wall_s=60, memory_mb=500))
    assert out.status == "memory"
    assert "MemoryError" in out.output


def test_pages_shared_by_forked_processes_count_once(base):
    """300 MB held by a process that then forks three children: 1.2 GB of summed RSS, 300 MB of memory in use."""
    code = ("import os, time\nblock = bytearray(300 << 20)\nfor _ in range(3):\n    if os.fork() == 0:\n"
            "        time.sleep(2)\n        os._exit(0)\ntime.sleep(2)\n")
    forked = py(code, base, Limits(wall_s=60, memory_mb=800, use_cuda=True))     # use_cuda: no RLIMIT_AS, watchdog only
    assert forked.status in ("ok", "exit"), forked.message
    assert 300 < forked.peak_rss_mb < 800


def test_memory_bomb_hits_watchdog_under_cuda_settings(base):
    out = py(MEMORY_BOMB, base, Limits(wall_s=60, memory_mb=500, use_cuda=True))  # no RLIMIT_AS: watchdog only
    assert (out.status, out.returncode) == ("memory", None)
    assert out.peak_rss_mb > 500


def test_fork_bomb_is_held_and_cleaned(base, request):
    kw = {}
    if ROOT:  # root ignores RLIMIT_NPROC: run it as a job uid, or not at all
        base, kw = as_job(base, 91, request.getfixturevalue("uid_python"))
    out = py(FORK_BOMB, base, Limits(wall_s=10, nproc=50), **kw)
    marker = out.output.splitlines()[0]
    # as root the job uid's RLIMIT_NPROC equals nproc exactly; as a user the user's other programs share it
    assert out.status in (("nproc",) if ROOT else ("nproc", "timeout"))
    assert out.leftovers_killed > 0
    assert alive_with_marker(marker) == []
    if ROOT:
        assert procs_of_uid(kw["uid"]) == []  # zombies reaped too


def test_big_output_is_capped(base):
    out = py(BIG_OUTPUT, base, Limits(wall_s=60, output_mb=1))
    assert (out.status, out.truncated) == ("ok", True)
    assert len(out.output) <= 1 << 20
    assert out.output.startswith("START") and out.output.endswith("END")
    assert "output dropped" in out.output


@pytest.mark.parametrize("with_uid", [False, pytest.param(True, marks=needs_root)])
def test_daemon_is_killed_after_exit(base, with_uid, request):
    kw = {}
    if with_uid:
        base, kw = as_job(base, 92, request.getfixturevalue("uid_python"))
    out = py(DAEMON, base, **kw)
    marker = out.output.splitlines()[0]
    assert out.status == "ok"
    assert "parent done" in out.output
    assert out.leftovers_killed == 1
    assert alive_with_marker(marker) == []
    if with_uid:
        assert procs_of_uid(kw["uid"]) == []


def test_kill_job_finds_processes_by_marker():
    marker = uuid.uuid4().hex
    env = {**os.environ, "WORKBOOK_JOB": marker}
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"], env=env)
    try:
        assert kill_job(marker) == 1  # Popen returns after exec: the marker is in /proc/<pid>/environ
        assert proc.wait(timeout=10) == -9
    finally:
        proc.kill()


def test_spawned_worker_answers_through_pass_fds_and_stops(base):
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    code = f"import os, time\nos.write({resp_w}, os.read({req_r}, 100).upper())\ntime.sleep(1000)\n"
    job = spawn([sys.executable, "-c", code], base, Limits(wall_s=60), pass_fds=(req_r, resp_w))
    os.close(req_r)
    os.close(resp_w)
    os.write(req_w, b"ping")
    assert os.read(resp_r, 100) == b"PING"
    assert job.poll() is None
    out = job.stop()
    assert (out.status, out.returncode, out.message) == ("killed", None, "stopped by the grader")
    assert job.poll() == -9
    os.close(req_w)
    os.close(resp_r)


def test_spawned_worker_that_crashes_is_seen_by_poll(base):
    job = spawn([sys.executable, "-c", "import os; os.abort()"], base, Limits(wall_s=60))
    out = job.wait()
    assert job.poll() == -6
    assert job.stop() is out  # stopping a finished job just returns its outcome
    assert "SIGABRT" in out.message


# -----------------------------------------------------------------------------
# uids and scratch folders


def test_leased_uids_are_this_batchs_own():
    from helpers.grading import sandbox

    if not ROOT:
        assert sandbox.leased_uid(0) is None
        return
    sandbox.lease_uids(2)
    uids = {sandbox._LEASED[0], sandbox._LEASED[1]}
    assert len(uids) == 2 and all(u >= UID_BASE for u in uids)


@needs_root
def test_uid_job_cannot_write_outside_scratch(base, uid_python):
    outdir = base / "grader-out"
    outdir.mkdir(mode=0o755)
    scratch, kw = as_job(base, 93, uid_python)
    code = (
        "import errno, os\n"
        "open('mine.txt', 'w').write('ok')\n"
        "print('HOME', os.environ['HOME'])\n"
        "try:\n"
        f"    open({str(outdir / 'x')!r}, 'w')\n"
        "except PermissionError as e:\n"
        "    print('denied', errno.errorcode[e.errno])\n"
    )
    out = py(code, scratch, **kw)
    assert out.status == "ok", out.output
    assert out.output.splitlines() == [f"HOME {scratch}", "denied EACCES"]
    assert (scratch / "mine.txt").stat().st_uid == kw["uid"]
    assert not (outdir / "x").exists()


@needs_root
def test_scratch_folders_are_private(base, uid_python):
    scratch_a, kw_a = as_job(base, 94, uid_python)
    scratch_b, kw_b = as_job(base, 95, uid_python)
    assert scratch_a.stat().st_mode & 0o777 == 0o700
    assert py("open('secret.txt', 'w').write('42')", scratch_a, **kw_a).status == "ok"
    code = (
        "import os\n"
        f"for look in (lambda: os.listdir({str(scratch_a)!r}), lambda: open({str(scratch_a / 'secret.txt')!r})):\n"
        "    try:\n"
        "        look()\n"
        "        print('readable')\n"
        "    except PermissionError:\n"
        "        print('denied')\n"
    )
    out = py(code, scratch_b, **kw_b)
    assert out.output.split() == ["denied", "denied"], out.output


@needs_root
def test_kill_user_kills_every_process_of_a_job_uid(base, uid_python):
    scratch, kw = as_job(base, 96, uid_python)
    ready_r, ready_w = os.pipe()
    code = f"import os, time\nif os.fork() == 0:\n    time.sleep(1000)\nos.write({ready_w}, b'up')\ntime.sleep(1000)"
    job = spawn([uid_python, "-c", code], scratch, Limits(wall_s=60), uid=kw["uid"], pass_fds=(ready_w,))
    os.close(ready_w)
    try:
        assert os.read(ready_r, 2) == b"up"
        assert kill_user(kw["uid"]) == 2  # the command and its child
        assert (job.wait().status, job.wait().signal) == ("killed", 9)
        assert procs_of_uid(kw["uid"]) == []
    finally:
        job.stop()
        os.close(ready_r)
    with pytest.raises(ValueError):
        kill_user(0)


def test_a_workbook_under_tmp_is_not_jailed_and_says_why(monkeypatch):
    """The jail mounts each job's scratch at /tmp: a checkout there would vanish inside it, so say so instead."""
    from helpers.grading import sandbox

    monkeypatch.setattr(sandbox, "ROOT", Path("/tmp/some-checkout"))
    monkeypatch.setattr(sandbox, "_BWRAP_WORKS", {})
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: "/usr/bin/bwrap")   # installed or not, the checkout's place decides
    why = sandbox.bwrap_problem(None)
    assert "/tmp/some-checkout" in why and "move the checkout" in why


def test_a_job_under_its_own_uid_without_a_jail_starts_from_an_empty_compile_cache(tmp_path):
    """The warm caches name the warm-up job's folders by absolute path; a job of another uid outside a jail could
    not create them (Lab 06 lost its bf16 check on an H200 with --no-bwrap), so it is not seeded."""
    from helpers.grading.sandbox import Jail

    warm = tmp_path / ".warm"
    (warm / "inductor" / "fxgraph").mkdir(parents=True)
    (warm / "inductor" / "fxgraph" / "graph").write_text("x")
    jail = Jail(tmp_path / "scratch", None, {}, tmp_path, 1, gpu=False, use_bwrap=False)
    jail.isolation = "job uid only"
    jail.prepare(warm)
    assert not [p for p in (tmp_path / "scratch" / "cache").rglob("*") if p.is_file()]


def test_a_job_is_seeded_with_the_warm_compile_caches_only(tmp_path):
    """OUT/.warm also holds the grader's reference answers and the reference solution's result: a job's scratch gets
    the compile caches from it and nothing else, and keeps only its compile caches for the batch."""
    from helpers.grading.sandbox import COMPILE_CACHES, Jail

    warm = tmp_path / ".warm"
    for name in ("inductor/fxgraph/ab/graph", "triton/k/kernel.so", "cache/inductor/hidden_model.py", "home/x"):
        (warm / name).parent.mkdir(parents=True, exist_ok=True)
        (warm / name).write_text("x")
    (warm / "references-cpu.pkl").write_bytes(b"answers")
    (warm / ".done").write_text("{}")
    jail = Jail(tmp_path / "scratch", None, {}, tmp_path, 1, gpu=False, use_bwrap=False)
    jail.prepare(warm)
    cache = tmp_path / "scratch" / "cache"
    seen = sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file())
    assert seen == ["inductor/fxgraph/ab/graph", "triton/k/kernel.so"], seen
    assert {jail.env[var] for var in COMPILE_CACHES} == {str(cache / "inductor"), str(cache / "triton")}
    (cache / "inductor" / "new").write_text("y")
    (cache / "planted.pkl").write_text("z")
    kept = tmp_path / "kept"
    jail.close(kept)
    assert sorted(str(p.relative_to(kept)) for p in kept.rglob("*") if p.is_file()) == [
        "inductor/fxgraph/ab/graph", "inductor/new", "triton/k/kernel.so"]
    assert not (tmp_path / "scratch").exists()


def test_a_job_gets_its_own_copy_of_the_warm_precompiled_headers_and_nothing_else_from_tmp(tmp_path):
    """Inductor's precompiled header for CPU kernels lives in TMPDIR, outside its cache: the warm-up's is copied into
    each job's TMPDIR under the job's user name (not linked: a job may write only its own), Inductor's locks and other
    temp files are not; the reference solution's job hands its headers on with its caches."""
    from helpers.grading.sandbox import HEADERS, JOB_USER, Jail

    warm = tmp_path / ".warm"
    built = warm / "tmp" / "torchinductor_root" / HEADERS
    (built / "locks").mkdir(parents=True)
    for name, text in (("abc.h", "#include <x>"), ("abc.h.gch", "binary"), ("locks/abc.h.lock", "")):
        (built / name).write_text(text)
    (warm / "tmp" / "stray.txt").write_text("not a header")
    jail = Jail(tmp_path / "scratch", None, {}, tmp_path, 1, gpu=False, use_bwrap=False)
    jail.prepare(warm)
    tmp = tmp_path / "scratch" / "tmp"
    mine = tmp / f"torchinductor_{JOB_USER}" / HEADERS
    assert sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file()) == [
        f"torchinductor_{JOB_USER}/{HEADERS}/abc.h", f"torchinductor_{JOB_USER}/{HEADERS}/abc.h.gch"]
    assert jail.env["TMPDIR"] == str(tmp)
    assert (mine / "abc.h.gch").stat().st_ino != (built / "abc.h.gch").stat().st_ino
    (mine / "def.h").write_text("#include <y>")
    (mine / "def.h.gch").write_text("binary")
    (tmp / "scratch.bin").write_text("x")
    kept = tmp_path / "kept"
    jail.close(kept)
    assert sorted(str(p.relative_to(kept)) for p in kept.rglob("*") if p.is_file()) == [
        f"tmp/torchinductor_{JOB_USER}/{HEADERS}/{n}" for n in ("abc.h", "abc.h.gch", "def.h", "def.h.gch")]


def test_a_process_gone_since_it_was_listed_counts_no_memory():
    """The watchdog lists a job's processes, then reads their PSS; a child that exits in between (its smaps_rollup
    gone) counts 0, not the RSS it had when listed (three exiting children of a 300 MB parent once read as 819 MB)."""
    from helpers.grading import sandbox

    child = subprocess.Popen(["sleep", "0"])
    child.wait()
    gone = sandbox._Seen(pid=child.pid, ppid=os.getpid(), sid=0, zombie=False, rss=300 << 20, uid=os.getuid(), threads=1)
    assert sandbox._pss(gone) == 0
    me = sandbox._read(os.getpid())
    assert 0 < sandbox._pss(me) <= me.rss * 2
