"""Where a submission runs, and what it may see and touch: the jail, its limits, and the clean-up after it.

Threat model: everything a submission's notebook runs is hostile, as root or as an ordinary user. Each submission
gets a `Jail`: a fresh scratch folder (the only place it may write: its home, caches, /tmp and /dev/shm live
there), its own unprivileged uid when the grader is root (`leased_uid`, no passwd entry: USER and LOGNAME say who
it is), an environment built here (`job_environment`: the run's settings, and nothing of the grader's), and, where
Debian's bubblewrap starts, its own view of the machine: system folders and the Python environment read-only, a
learner-side view of the repository (helpers/ with only the grading modules a job runs, and the hidden inputs it
imports), loopback but no network, its own PID namespace so that nothing it starts outlives it, and the GPU's
device nodes only for `--device cuda`. It cannot see solutions/, the hidden cases, tests/, the gradebook, another
job's folder or anyone's home, whichever user grades. Where bubblewrap cannot start, the job still has its uid
(as root), its limits and its clean-up; `isolation()` says which and the gradebook records it per submission.

Every command of a job runs through `spawn` (or `run_limited`): its own session, rlimits (address space, file
size, no core files, process count), a unique WORKBOOK_JOB marker in its environment, and a watchdog that samples
the whole job every TICK_S seconds: summed RSS (PSS once past the limit, so that pages forked processes share
count once), process count and wall clock. When the command ends, however it ends, every process of the job is
SIGKILLed: its session, its descendants, every process whose environment holds the marker (daemons that
double-forked and called setsid) and, under a job uid, every process of that uid. The grader reads what a job
leaves only through `Jail.read`: a regular file inside the job's folder, never a link.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict, deque
from dataclasses import dataclass
from functools import partial
from pathlib import Path

JOB_VAR = "WORKBOOK_JOB"
UID_BASE = 61000  # job slot N runs as uid/gid UID_BASE + N; no passwd entry needed
TICK_S = 0.2  # watchdog sampling period
DRAIN_S = 2.0  # how long to wait for the output pipe to close once the job is dead
NPROC_SLACK = 16  # RLIMIT_NPROC headroom without a job uid: our threads, the user's other programs
MB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")
OOM_WORDS = ("MemoryError", "Cannot allocate memory", "can't allocate memory", "std::bad_alloc")
SIGNAL_WORDS = {
    signal.SIGSEGV: "segmentation fault",
    signal.SIGBUS: "bus error",
    signal.SIGABRT: "aborted",
    signal.SIGILL: "illegal instruction",
    signal.SIGFPE: "arithmetic error",
    signal.SIGKILL: "killed",
    signal.SIGXFSZ: "a file grew past the size limit",
    signal.SIGXCPU: "CPU time limit",
}


@dataclass
class Limits:
    wall_s: float = 900  # whole-command wall clock
    memory_mb: int = 6144  # summed RSS of the whole job (PSS past the limit); also RLIMIT_AS per process unless use_cuda
    nproc: int = 256  # max processes the job may have (RLIMIT_NPROC counts threads too)
    output_mb: int = 20  # cap on captured stdout+stderr
    fsize_mb: int = 512  # max size of any file it writes
    use_cuda: bool = False  # CUDA reserves huge virtual ranges: no RLIMIT_AS, RSS watchdog only


@dataclass
class Outcome:
    returncode: int | None  # None when killed by us; negative (-signal) when killed by a signal
    status: str  # "ok", "exit", "timeout", "memory", "killed", "nproc"
    signal: int | None
    wall_s: float
    peak_rss_mb: float  # peak of the summed RSS of the whole job, sampled
    output: str  # captured stdout+stderr, capped
    truncated: bool
    leftovers_killed: int  # processes other than the command itself that we had to kill
    message: str  # one plain sentence for feedback


# -----------------------------------------------------------------------------
# public helpers


def prepare_scratch(path: Path, uid: int | None) -> None:
    """Create the job's scratch folder, owned by uid (when given) and closed to everyone else."""
    path = Path(path)
    if path.is_symlink():
        raise ValueError(f"scratch folder {path} is a symlink")
    path.mkdir(parents=True, exist_ok=True)
    if uid is not None:
        os.chown(path, uid, uid)
    path.chmod(0o700)


def kill_job(marker: str) -> int:
    """SIGKILL every process whose environment holds WORKBOOK_JOB=<marker>; return how many."""
    if not marker:
        raise ValueError("empty job marker")
    return kill_env(JOB_VAR, marker)


def kill_env(var: str, value: str) -> int:
    """SIGKILL every process (never ourselves) whose environment holds var=value, until none is left; return how many."""
    killed: set[int] = set()
    for _ in range(100):  # repeat: a fork bomb may fork between our scan and our kill
        pids = [pid for pid in _marked_pids(value, var) if pid != os.getpid()]
        if not pids:
            break
        for pid in pids:
            _sigkill(pid)
        killed.update(pids)
        time.sleep(0.01)
    return len(killed)


def kill_user(uid: int) -> int:
    """SIGKILL every process of a job uid (never root, nor our own) and reap its orphans; return how many."""
    if uid in (0, os.getuid()):
        raise ValueError(f"refusing to kill every process of uid {uid}")
    killed: set[int] = set()
    for _ in range(100):
        procs = [s for s in _snapshot().values() if s.uid == uid]
        for s in procs:
            _reap_if_ours(s.pid)
        alive = [s.pid for s in procs if not s.zombie]
        if not alive:
            break
        for pid in alive:
            _sigkill(pid)
        killed.update(alive)
        time.sleep(0.01)
    return len(killed)


# -----------------------------------------------------------------------------
# /proc and signals


@dataclass
class _Seen:
    """One process as read from /proc."""

    pid: int
    ppid: int
    sid: int
    zombie: bool
    rss: int  # bytes
    uid: int  # real uid
    threads: int


def _read(pid: int) -> _Seen | None:
    """A process's /proc/<pid>/stat and status, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read()
    except OSError:
        return None
    f = stat[stat.rindex(b")") + 2 :].split()  # fields 3.. of man 5 proc: state ppid pgrp session ...
    uid = next((int(line.split()[1]) for line in status.splitlines() if line.startswith(b"Uid:")), -1)
    return _Seen(pid=pid, ppid=int(f[1]), sid=int(f[3]), zombie=f[0] == b"Z", rss=int(f[21]) * PAGE, uid=uid,
                 threads=int(f[17]))


def _snapshot() -> dict[int, _Seen]:
    """Every process on the machine."""
    seen = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (s := _read(int(name))) is not None:
            seen[s.pid] = s
    return seen


def _marked_pids(marker: str, var: str = JOB_VAR) -> list[int]:
    """Pids whose initial environment holds <var>=<marker> (unreadable ones are skipped)."""
    needle = f"{var}={marker}".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            pids.append(int(name))
    return pids


def _sigkill(pid: int) -> None:
    """SIGKILL one process, ignoring ones already gone."""
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap_if_ours(pid: int) -> None:
    """Reap a zombie that was reparented to us; leave anything else (a Job's own command) alone."""
    s = _read(pid)
    if s is not None and s.zombie and s.ppid == os.getpid() and pid not in _LEADERS:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def _user_tasks(uid: int) -> int:
    """Tasks (processes and threads) of a real uid: what RLIMIT_NPROC counts."""
    return sum(s.threads for s in _snapshot().values() if s.uid == uid)


_subreaper = False
_LEADERS: set[int] = set()  # pids of running Jobs' commands: each Job reaps its own


def _become_subreaper() -> None:
    """Adopt the job's orphans instead of PID 1, to reap them: a container's PID 1 often never does."""
    global _subreaper
    if not _subreaper:
        PR_SET_CHILD_SUBREAPER = 36
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _subreaper = True


# -----------------------------------------------------------------------------
# the job's processes, found four ways


class _Procs:
    """The processes of one job: descendants, session, marker and (when set) uid."""

    def __init__(self, pid: int, marker: str, uid: int | None):
        self.pid, self.marker, self.uid = pid, marker, uid
        self.killed: set[int] = set()
        try:
            self.pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def members(self) -> list[_Seen]:
        """Every process of the job, zombies included, never ourselves."""
        seen = _snapshot()
        children = defaultdict(list)
        for pid, s in seen.items():
            children[s.ppid].append(pid)
        found, stack = set(), [self.pid]
        while stack:
            pid = stack.pop()
            if pid in seen and pid not in found:
                found.add(pid)
                stack.extend(children[pid])
        found.update(pid for pid in _marked_pids(self.marker) if pid in seen)
        for pid, s in seen.items():
            if (self.uid is not None and s.uid == self.uid) or s.sid == self.pid:
                found.add(pid)
        found.discard(os.getpid())
        return [seen[pid] for pid in found]

    def exited(self, timeout: float) -> bool:
        """Wait up to timeout for the command to exit; leave it unreaped so its pid stays ours."""
        if self.pidfd is not None:
            select.select([self.pidfd], [], [], timeout)
        else:
            time.sleep(timeout)
        return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def kill_all(self) -> None:
        """SIGKILL the whole job until nothing of it runs; call before reaping the command."""
        for _ in range(100):
            alive = [s.pid for s in self.members() if not s.zombie]
            if not alive:
                return
            for pid in alive:
                _sigkill(pid)
            self.killed.update(alive)
            try:
                os.killpg(self.pid, signal.SIGKILL)  # safe: the unreaped command holds this pgid
            except (ProcessLookupError, PermissionError):
                pass
            time.sleep(0.02)

    def reap_orphans(self) -> None:
        """Reap the job's zombies that were reparented to us (as root we are a subreaper)."""
        pids = set(self.killed)
        if self.uid is not None:
            pids.update(s.pid for s in self.members() if s.uid == self.uid)
        for pid in pids - {self.pid}:
            _reap_if_ours(pid)

    def reap(self) -> int:
        """Reap the command and return its returncode."""
        # not wait4's ru_maxrss: the child's peak includes the pages it shared with us before exec
        _, status = os.waitpid(self.pid, 0)
        if self.pidfd is not None:
            os.close(self.pidfd)
        return os.waitstatus_to_exitcode(status)


# -----------------------------------------------------------------------------
# output


class _Capture(threading.Thread):
    """Drain the merged stdout+stderr pipe, keeping at most cap bytes: the head and the tail."""

    def __init__(self, fd: int, cap: int):
        super().__init__(daemon=True)
        self.fd, self.cap = fd, cap
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0
        self.stop = threading.Event()

    def run(self) -> None:
        """Read until EOF, or until told to stop (a stray process may hold the pipe open)."""
        while not self.stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    return
                self.keep(chunk)

    def keep(self, chunk: bytes) -> None:
        """Fill the head first, then keep a rolling tail; drop what falls between."""
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail.append(chunk)
            self.tail_len += len(chunk)
            while self.tail and self.tail_len - len(self.tail[0]) >= self.tail_cap:
                self.tail_len -= len(self.tail.popleft())

    def finish(self) -> tuple[str, bool]:
        """Stop reading and return (text, truncated); the text never exceeds cap characters."""
        self.join(DRAIN_S)
        self.stop.set()
        self.join()
        tail = b"".join(self.tail)[-self.tail_cap :] if self.tail_cap else b""
        if self.total <= self.cap:
            return (bytes(self.head) + tail).decode(errors="replace"), False
        dropped = self.total - len(self.head) - len(tail)
        note = f"\n[... {dropped} bytes of output dropped (output limit {self.cap // MB} MB) ...]\n"
        tail = tail[len(note) :]  # make room for the note
        return self.head.decode(errors="replace") + note + tail.decode(errors="replace"), True


# -----------------------------------------------------------------------------
# starting the command


def _child_env(env: dict[str, str] | None, marker: str, uid: int | None, cwd: Path) -> dict[str, str]:
    """The caller's env (or ours when None), plus the job marker, plus HOME in scratch for uid jobs."""
    child = dict(os.environ if env is None else env)
    if uid is not None and (env is None or "HOME" not in env):
        child["HOME"] = str(cwd)
    child[JOB_VAR] = marker
    return child


def _rlimits(limits: Limits, own_uid: bool) -> list[tuple[int, int]]:
    """The rlimits for the child, each lowered to what our own hard limit allows."""
    # RLIMIT_NPROC counts every task of the real uid: a fresh job uid has none, we have many. Without
    # a job uid it is only a backstop, set a little above the watchdog's count so that fires first.
    nproc = limits.nproc if own_uid else _user_tasks(os.getuid()) + limits.nproc + NPROC_SLACK
    wanted = [
        (resource.RLIMIT_FSIZE, limits.fsize_mb * MB),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, nproc),
    ]
    if not limits.use_cuda:
        wanted.append((resource.RLIMIT_AS, limits.memory_mb * MB))
    capped = []
    for res, value in wanted:
        hard = resource.getrlimit(res)[1]
        capped.append((res, value if hard == resource.RLIM_INFINITY else min(value, hard)))
    return capped


def _apply_rlimits(rlimits: list[tuple[int, int]]) -> None:
    """preexec_fn: runs in the child after the uid switch, just before exec."""
    for res, value in rlimits:
        resource.setrlimit(res, (value, value))


def _spawn(cmd: list[str], cwd: Path, env: dict[str, str], as_uid: int | None, limits: Limits,
           pass_fds: tuple[int, ...]) -> subprocess.Popen:
    """Start the command in its own session, as as_uid when given, under rlimits."""
    # Popen does setgroups([]), setgid, setuid in the child before preexec_fn, so RLIMIT_NPROC bites
    ids = dict(user=as_uid, group=as_uid, extra_groups=[]) if as_uid is not None else {}
    try:
        return subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, pass_fds=pass_fds,
            preexec_fn=partial(_apply_rlimits, _rlimits(limits, as_uid is not None)), **ids,
        )
    except PermissionError as e:
        if as_uid is None:
            raise
        hint = f"uid {as_uid} cannot run {cmd[0]}: it, its symlink targets and their folders must be readable"
        raise PermissionError(e.errno, hint, e.filename) from e


# -----------------------------------------------------------------------------
# watching and judging


def _pss(seen: _Seen) -> int:
    """A process's proportional set size in bytes (each page shared with other processes counted as its share), or
    its RSS now where /proc/<pid>/smaps_rollup cannot be read; 0 for a process that has exited since it was listed
    (its pages are freed: counting the RSS it had then stopped a job whose forked children were exiting)."""
    try:
        with open(f"/proc/{seen.pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    now = _read(seen.pid)
    return 0 if now is None or now.zombie else now.rss


def _watch(procs: _Procs, limits: Limits, start: float, stop: threading.Event) -> tuple[str | None, float]:
    """Sample the job until the command exits, breaks a limit or is stopped; return (reason, peak MB).

    Memory is the summed RSS of the job's processes; past the limit it is measured again as summed PSS, because a
    forked process (a DataLoader worker, a daemon) shares its parent's pages and RSS would count them twice."""
    peak = 0.0
    while True:
        members = procs.members()
        rss = sum(s.rss for s in members) / MB
        if rss > limits.memory_mb:
            rss = sum(_pss(s) for s in members) / MB
        peak = max(peak, rss)
        if rss > limits.memory_mb:
            return "memory", peak
        if len(members) >= limits.nproc:
            return "nproc", peak
        if time.monotonic() - start >= limits.wall_s:
            return "timeout", peak
        if stop.is_set():
            return "stopped", peak
        procs.reap_orphans()
        if procs.exited(TICK_S):
            return None, peak


def _judge(reason: str | None, returncode: int, peak_mb: float, wall_s: float, output: str,
           limits: Limits) -> tuple[str, int | None, str]:
    """Map how the command ended to (status, signal, message)."""
    kill = int(signal.SIGKILL)
    if reason == "timeout":
        return "timeout", kill, f"stopped after {limits.wall_s:g} s (wall-clock limit)"
    if reason == "memory":
        return "memory", kill, f"stopped after using {peak_mb:.0f} MB of memory (limit {limits.memory_mb} MB)"
    if reason == "nproc":
        return "nproc", kill, f"stopped after starting {limits.nproc} processes (process limit)"
    if reason == "stopped":
        return "killed", kill, "stopped by the grader"
    if returncode == 0:
        return "ok", None, f"finished in {wall_s:.1f} s"
    if returncode > 0:
        if any(word in output[-4000:] for word in OOM_WORDS):
            return "memory", None, f"ran out of memory (limit {limits.memory_mb} MB)"
        return "exit", None, f"exited with status {returncode}"
    sig = -returncode
    if sig == signal.SIGKILL and peak_mb >= 0.9 * limits.memory_mb:
        return "memory", sig, f"was killed near the memory limit ({limits.memory_mb} MB)"
    name = signal.Signals(sig).name if sig in signal.valid_signals() else f"signal {sig}"
    words = f" ({SIGNAL_WORDS[sig]})" if sig in SIGNAL_WORDS else ""
    return "killed", sig, f"the process died with {name}{words}"


class Job:
    """One command running under its limits; a watchdog thread ends it and cleans up after it."""

    def __init__(self, cmd: list[str], cwd: Path, limits: Limits, env: dict[str, str] | None,
                 uid: int | None, pass_fds: tuple[int, ...]):
        as_uid = uid if uid is not None and uid != os.getuid() else None  # switch only to another uid
        if as_uid is not None and (os.geteuid() != 0 or as_uid == 0):
            raise ValueError(f"cannot run a job as uid {as_uid}: needs root and a non-root job uid")
        if os.geteuid() == 0:  # CI containers; a desktop's init reaps orphans itself
            _become_subreaper()
        self.limits, self.marker = limits, uuid.uuid4().hex
        self.start = time.monotonic()
        self.proc = _spawn(cmd, Path(cwd), _child_env(env, self.marker, uid, Path(cwd)), as_uid, limits, pass_fds)
        _LEADERS.add(self.proc.pid)
        self.procs = _Procs(self.proc.pid, self.marker, as_uid)
        self.capture = _Capture(self.proc.stdout.fileno(), limits.output_mb * MB)
        self.capture.start()
        self.outcome: Outcome | None = None
        self.stopping, self.done = threading.Event(), threading.Event()
        threading.Thread(target=self._watchdog, daemon=True).start()

    def poll(self) -> int | None:
        """The command's raw returncode once it has ended and been cleaned up, else None."""
        return self.proc.returncode if self.done.is_set() else None

    def wait(self) -> Outcome:
        """Block until the command has ended and been cleaned up."""
        try:
            self.done.wait()
        except BaseException:  # Ctrl-C in the grader: still leave nothing running
            self.stopping.set()
            self.done.wait()
            raise
        if self.outcome is None:
            raise RuntimeError("the sandbox watchdog failed; see the traceback above")
        return self.outcome

    def stop(self) -> Outcome:
        """Kill the command (if still running) and everything it started."""
        self.stopping.set()
        return self.wait()

    def _watchdog(self) -> None:
        """Watch until the end, then kill every process of the job and build the outcome."""
        reason, peak = "stopped", 0.0  # what we report should watching itself fail
        try:
            reason, peak = _watch(self.procs, self.limits, self.start, self.stopping)
        finally:
            try:
                self.procs.kill_all()  # the command is still unreaped, so its pid and pgid cannot be reused
                returncode = self.proc.returncode = self.procs.reap()
                _LEADERS.discard(self.proc.pid)
                wall = time.monotonic() - self.start
                self.procs.reap_orphans()
                output, truncated = self.capture.finish()
                self.proc.stdout.close()
                status, sig, message = _judge(reason, returncode, peak, wall, output, self.limits)
                self.outcome = Outcome(
                    returncode=None if reason else returncode, status=status, signal=sig, wall_s=wall,
                    peak_rss_mb=peak, output=output, truncated=truncated,
                    leftovers_killed=len(self.procs.killed - {self.proc.pid}), message=message,
                )
            finally:
                self.done.set()


def spawn(cmd: list[str], cwd: Path, limits: Limits, env: dict[str, str] | None = None,
          uid: int | None = None, pass_fds: tuple[int, ...] = ()) -> Job:
    """Start cmd under limits and return at once; poll(), stop() or wait() the Job."""
    return Job(cmd, cwd, limits, env, uid, pass_fds)


def run_limited(cmd: list[str], cwd: Path, limits: Limits, env: dict[str, str] | None = None,
                uid: int | None = None, pass_fds: tuple[int, ...] = ()) -> Outcome:
    """Run cmd under limits (as uid when given; needs root), kill everything it left, report."""
    return spawn(cmd, cwd, limits, env, uid, pass_fds).wait()


# -----------------------------------------------------------------------------
# the jail: one submission's folder, uid, environment and view of the machine

JOB_USER = "workbook-job"  # job uids have no passwd entry: USER/LOGNAME say who they are (getpass.getuser())
GRADEBOOK_VAR = "WORKBOOK_GRADEBOOK"  # every job of a batch carries it: a killed batch's leftovers are found by it
JOB_SIDE_GRADING = ("__init__.py", "channel.py", "run_notebook.py")  # the grader's modules a job itself runs
SYSTEM_DIRS = ("usr", "etc", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
ROOT = Path(__file__).resolve().parents[2]


def others_can_read(path: Path) -> bool:
    """True when a user with no rights of ours can reach and read `path` (every folder above it searchable)."""
    path = path.resolve()
    try:
        if not path.stat().st_mode & 0o004:
            return False
        return all(parent.stat().st_mode & 0o001 for parent in path.parents)
    except OSError:
        return False


_LEASED: dict[int, int] = {}  # job slot → uid this process holds a lock on
_LOCKS: list = []


def lease_uids(slots: int) -> None:
    """Take `slots` job uids no other grading batch on this machine holds (a lock file per uid, kept till exit)."""
    import fcntl
    import tempfile

    if os.geteuid() != 0 or len(_LEASED) >= slots:
        return
    folder = Path(tempfile.gettempdir()) / "workbook-grading-uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    for offset in range(2000):
        if len(_LEASED) >= slots:
            return
        uid = UID_BASE + offset
        handle = open(folder / f"{uid}.lock", "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        _LOCKS.append(handle)
        _LEASED[len(_LEASED)] = uid
    raise RuntimeError("no free job uid: 2000 grading jobs already hold one on this machine")


def leased_uid(slot: int) -> int | None:
    """This batch's own unprivileged uid for a job slot, when we are root and that uid can run our Python; else None."""
    if os.geteuid() != 0:
        return None
    lease_uids(slot + 1)
    needed = [Path(sys.executable), Path(sys.base_prefix) / "lib", ROOT / "helpers" / "__init__.py", Path(sys.prefix) / "pyvenv.cfg"]
    unreadable = [str(p.resolve()) for p in needed if not others_can_read(p)]
    if unreadable:
        if not getattr(leased_uid, "warned", False):
            leased_uid.warned = True
            print("note: running jobs as our own user: Python or the repository is not readable by other users "
                  f"({', '.join(unreadable)}); the jail, limits and clean-up still apply.", file=sys.stderr)
        return None
    return _LEASED[slot]


def scratch_root(gradebook: Path) -> Path:
    """Where a batch's submissions run: a folder under the system temp dir that job uids can reach, but not list."""
    import hashlib
    import tempfile

    root = Path(tempfile.gettempdir()) / f"workbook-grading-{hashlib.sha256(str(gradebook.resolve()).encode()).hexdigest()[:12]}"
    root.mkdir(mode=0o711, exist_ok=True)
    if root.is_symlink() or root.stat().st_uid != os.geteuid():
        raise RuntimeError(f"{root} exists and is not this user's own folder: remove it (another user or program made "
                           "it), or grade with TMPDIR set to a folder of your own")
    root.chmod(0o711)
    return root


def bwrap_path() -> str | None:
    """Debian's bubblewrap, from PATH or WORKBOOK_BWRAP (e.g. unpacked from the .deb where apt cannot reach)."""
    import shutil

    return os.environ.get("WORKBOOK_BWRAP") or shutil.which("bwrap")


_BWRAP_WORKS: dict[int | None, str] = {}


def bwrap_problem(uid: int | None = None) -> str:
    """Why bubblewrap cannot start a jail here as `uid` ("" when it can); tried once per uid."""
    if uid in _BWRAP_WORKS:
        return _BWRAP_WORKS[uid]
    path = bwrap_path()
    shadowed = [p for p in (ROOT, Path(sys.prefix)) if any(p.resolve().is_relative_to(t) for t in ("/tmp", "/dev/shm"))]
    if not path:
        why = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    elif shadowed:    # the jail puts the job's own scratch at /tmp: the workbook and its Python would vanish inside
        why = (f"the workbook or its Python is under /tmp ({shadowed[0]}), which every jailed job replaces with its own "
               "scratch folder: move the checkout out of /tmp (e.g. to ~/workbook) to grade in the jail")
    else:
        ids = dict(user=uid, group=uid, extra_groups=[]) if uid is not None and uid != os.getuid() else {}
        argv = [path, *_system_binds(), "--proc", "/proc", "--dev", "/dev", "--unshare-all", "--die-with-parent", "true"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=30, **ids)
            why = "" if done.returncode == 0 else f"bwrap cannot start here ({done.stderr.strip()[:200]})"
        except (OSError, subprocess.TimeoutExpired) as err:
            why = f"bwrap cannot start here ({err})"
    _BWRAP_WORKS[uid] = why
    return why


def _system_binds() -> list[str]:
    """The machine's system folders, read-only (top-level symlinks such as /lib -> usr/lib kept as symlinks)."""
    argv = []
    for name in SYSTEM_DIRS:
        top = Path("/") / name
        if top.is_symlink():
            argv += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            argv += ["--ro-bind", str(top), str(top)]
    return argv


def isolation(uid: int | None, use_bwrap: bool = True) -> tuple[str, str]:
    """How a job run as `uid` is isolated here ("bwrap + job uid", "bwrap", "job uid only", "limits only"), and why
    not with bubblewrap when it is not."""
    why = bwrap_problem(uid) if use_bwrap else "bubblewrap turned off (--no-bwrap)"
    if not why:
        return "bwrap" + (" + job uid" if uid is not None else ""), ""
    return ("job uid only" if uid is not None else "limits only"), why


# The compile caches in a job's scratch/cache (its environment points Inductor and Triton there): all that a batch's
# warm cache hands on, from the reference solution's job to every later one. Never the rest of OUT/.warm, which holds
# the grader's reference answers.
COMPILE_CACHES = {"TORCHINDUCTOR_CACHE_DIR": "inductor", "TRITON_CACHE_DIR": "triton"}
# Inductor's precompiled header for CPU kernels (a 150 MB .gch, built in about 11 s on a 2-core machine by the first
# C++ kernel a process compiles) lives outside its cache, in TMPDIR/torchinductor_USER/precompiled_headers, named by
# a hash of the compiler, its flags and the preprocessed header: one built by the warm-up serves every job, which
# would otherwise build its own. Handed on as a copy (each job's own, never a link to the warm one).
HEADERS = "precompiled_headers"


def precompiled_headers(tmp: Path) -> list[Path]:
    """The folders of precompiled headers Inductor left under a TMPDIR (one per user name that ran there)."""
    return sorted(d for d in tmp.glob(f"torchinductor_*/{HEADERS}") if d.is_dir())


def copy_headers(source: Path, dest: Path) -> None:
    """The finished headers of one folder into another (not Inductor's lock folder)."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in source.iterdir():
        if f.is_file() and not f.is_symlink() and f.suffix in (".h", ".gch") and not (dest / f.name).exists():
            shutil.copy2(f, dest / f.name)


# Inductor's parallel compile workers for a GPU job (Triton kernels compile one per worker; each worker is a Python
# process of a few hundred MB, counted in the job's memory limit). CPU jobs compile in the job's own process.
MAX_COMPILE_WORKERS = 4


def job_environment(scratch: Path, settings_env: dict[str, str], gradebook: Path, threads: int,
                    gpu: bool = False) -> dict[str, str]:
    """A job's whole environment: its home, name, caches and temp folder in `scratch`, and the run's settings."""
    home = scratch / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home),
        "USER": JOB_USER, "LOGNAME": JOB_USER,
        "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT), str(hidden_inputs_dir().parent), os.environ.get("PYTHONPATH", "")] if p),
        "MPLBACKEND": "Agg", "TMPDIR": str(scratch / "tmp"),
        **{var: str(scratch / "cache" / name) for var, name in COMPILE_CACHES.items()},
        "TORCHINDUCTOR_COMPILE_THREADS": str(min(threads, MAX_COMPILE_WORKERS) if gpu else 1),
        "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
        "WORKBOOK_THREADS": str(threads),   # bench.thread_policy (every lab's set-up) gives torch this count
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython"),
        "XDG_CACHE_HOME": str(home / "cache"), "PYTHONDONTWRITEBYTECODE": "1", "WORKBOOK_GRADING": "1",
        GRADEBOOK_VAR: str(gradebook.resolve()), **settings_env,
    }
    for key in ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CC", "CXX", "VIRTUAL_ENV", "TRITON_INTERPRET", "JUPYTER_PATH"):
        if key in os.environ and key not in settings_env:   # the grader's own GPU for this job comes first
            env[key] = os.environ[key]
    return env


class Jail:
    """One submission's jail: its scratch folder (the only place it may write), its uid, its environment and, with
    bubblewrap, its own view of the machine.

    Under bwrap the job sees the system folders and the Python environment read-only, a learner-side view of the
    repository (helpers/, with only the grading modules a job runs, and the hidden inputs it must import), its
    scratch folder, a private /tmp and /dev/shm inside it, no network but loopback, its own PID namespace (nothing
    it starts outlives it), and the GPU's device nodes only when the batch runs on CUDA. It does not see
    solutions/, the hidden cases, tests/, the gradebook, other jobs or anyone's home. The same holds as root (the
    job also runs under its own uid) and as an ordinary user. Where bwrap cannot start, the job runs with limits,
    clean-up and, as root, its own uid only; `isolation` says which, and the gradebook records it.
    """

    def __init__(self, scratch: Path, uid: int | None, settings_env: dict[str, str], gradebook: Path,
                 threads: int, gpu: bool, use_bwrap: bool = True):
        self.scratch, self.uid, self.gpu = Path(scratch), uid, gpu
        self.env = job_environment(self.scratch, settings_env, gradebook, threads, gpu)
        self.isolation, self.why_not = isolation(uid, use_bwrap)
        self.bwrap = bwrap_path() if self.isolation.startswith("bwrap") else None

    # -- the folder
    def prepare(self, warm: Path | None) -> None:
        """A fresh scratch folder owned by the job's uid, its compile caches seeded from the batch's warm cache (those
        folders only: the warm folder also holds the grader's reference answers, which no job may read)."""
        import shutil

        if self.scratch.exists():
            shutil.rmtree(self.scratch, ignore_errors=True)
        prepare_scratch(self.scratch, self.uid)
        for sub in ("home", "tmp", "shm", "cache"):
            (self.scratch / sub).mkdir(parents=True, exist_ok=True)
        if self.isolation == "job uid only":
            # Inductor's and Triton's caches hold absolute paths of the job that filled them (the warm-up's scratch):
            # in a jail those land in the job's private /tmp, and a job of the grader's own user may create them;
            # a job under another uid without a jail cannot (seen on an H200: PermissionError in Lab 06's bf16
            # check), so it compiles from an empty cache.
            warm = None
        for name in COMPILE_CACHES.values() if warm is not None else ():
            if (warm / name).is_dir():
                shutil.copytree(warm / name, self.scratch / "cache" / name, dirs_exist_ok=True, symlinks=True)
        for headers in precompiled_headers(warm / "tmp") if warm is not None else ():
            copy_headers(headers, self.scratch / "tmp" / f"torchinductor_{JOB_USER}" / HEADERS)
        if self.uid is not None:
            for dirpath, dirnames, filenames in os.walk(self.scratch):
                for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                    os.lchown(name, self.uid, self.uid)

    # -- what the job sees
    def _readable(self) -> list[Path]:
        """Folders outside the system ones a job must read: the Python environment and the grader's extra paths."""
        paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
        paths |= {Path(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).is_dir()}
        paths |= {Path(p) for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p and Path(p).is_dir()}
        system = tuple(Path("/") / n for n in SYSTEM_DIRS)
        keep = []
        for p in sorted(paths, key=lambda q: len(q.parts)):
            p = p.resolve()
            if any(p == s or s in p.parents for s in system) or any(k == p or k in p.parents for k in keep):
                continue
            if p == ROOT or ROOT in p.parents and p != ROOT / ".venv" and ROOT / ".venv" not in p.parents:
                continue   # the repository is shown piece by piece below
            keep.append(p)
        return keep

    def bwrap_argv(self) -> list[str]:
        """The bubblewrap command line that puts a command in this jail."""
        scratch, grading = str(self.scratch), ROOT / "helpers" / "grading"
        argv = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", *_system_binds(),
                "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/sys", "/sys"]
        for path in self._readable():
            argv += ["--ro-bind", str(path), str(path)]
        argv += ["--ro-bind", str(ROOT / "helpers"), str(ROOT / "helpers"), "--tmpfs", str(grading)]
        for name in JOB_SIDE_GRADING:
            if (grading / name).is_file():
                argv += ["--ro-bind", str(grading / name), str(grading / name)]
        argv += ["--remount-ro", str(grading)]
        inputs = hidden_inputs_dir()
        if inputs.is_dir():
            argv += ["--ro-bind", str(inputs), str(inputs)]
        # /tmp and /dev/shm are folders of the scratch (on disk, under the file-size limit; a tmpfs would hold RAM
        # that no RSS sum sees); the scratch itself is bound after /tmp, since it lives below /tmp on the host.
        argv += ["--bind", str(self.scratch / "tmp"), "/tmp", "--bind", scratch, scratch,
                 "--bind", str(self.scratch / "shm"), "/dev/shm"]
        if self.gpu:
            import glob

            for dev in sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/*")):
                argv += ["--dev-bind", dev, dev]
        return argv + ["--remount-ro", "/", "--chdir", scratch, "--"]

    # -- running in it
    def spawn(self, cmd: list[str], limits: Limits, pass_fds: tuple[int, ...] = ()) -> "Job":
        """Start `cmd` in the jail under `limits`."""
        full = [*self.bwrap_argv(), *cmd] if self.bwrap else cmd
        return spawn(full, self.scratch, limits, env=self.env, uid=self.uid, pass_fds=pass_fds)

    def read(self, relpath: str, limit: int) -> bytes | None:
        """A regular file the job left in its folder, never through a link: None when it is missing, a link, a folder
        or larger than `limit` bytes."""
        import stat

        fd = None
        try:
            fd = os.open(self.scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            parts = Path(relpath).parts
            for part in parts[:-1]:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = nxt
            leaf = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
            try:
                info = os.fstat(leaf)
                if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                    return None
                with os.fdopen(leaf, "rb", closefd=False) as f:
                    return f.read(limit + 1)[:limit]
            finally:
                os.close(leaf)
        except OSError:
            return None
        finally:
            if fd is not None:
                os.close(fd)

    def close(self, keep_cache: Path | None = None) -> None:
        """Stop everything the job's uid still runs, keep its compile caches if asked (the reference solution's), remove
        the folder."""
        import shutil

        if self.uid is not None:
            kill_user(self.uid)
        for name in COMPILE_CACHES.values() if keep_cache is not None else ():
            if (self.scratch / "cache" / name).is_dir():
                shutil.copytree(self.scratch / "cache" / name, keep_cache / name, dirs_exist_ok=True, symlinks=True)
        for headers in precompiled_headers(self.scratch / "tmp") if keep_cache is not None else ():
            copy_headers(headers, keep_cache / "tmp" / headers.parent.name / HEADERS)
        shutil.rmtree(self.scratch, ignore_errors=True)


def hidden_inputs_dir() -> Path:
    """solutions/hidden/hidden_inputs: the hidden checks' inputs a job imports (never the cases or answers)."""
    return ROOT / "solutions" / "hidden" / "hidden_inputs"
