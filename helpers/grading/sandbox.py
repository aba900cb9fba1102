"""Run one untrusted command under limits, and always clean up after it.

The grader runs every learner notebook through `run_limited`, and its long-lived check worker
through `spawn` (the same, but returns a `Job` to poll and stop). The command gets its own session,
rlimits (address space, file size, no core files, process count), a clean environment holding a
unique WORKBOOK_JOB marker, and a watchdog that samples the whole job every TICK_S seconds:
summed RSS, process count and wall clock. When the command ends, however it ends, every process
of the job is SIGKILLed: its session, its descendants, every process whose environment holds the
marker (daemons that double-forked and called setsid) and, when it ran under its own uid, every
process of that uid.

Isolation is strongest as root with a job uid (`job_uid(slot)`): the job cannot write outside its
scratch folder and world-writable places, cannot signal the grader, and RLIMIT_NPROC holds a fork
bomb. As an ordinary user the job runs as that user, so only the watchdog and rlimits hold it.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import subprocess
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
    memory_mb: int = 6144  # summed RSS of the whole job; also RLIMIT_AS per process unless use_cuda
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


def job_uid(slot: int) -> int | None:
    """An unprivileged uid for job slot N when running as root, else None."""
    return UID_BASE + slot if os.geteuid() == 0 else None


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


def _watch(procs: _Procs, limits: Limits, start: float, stop: threading.Event) -> tuple[str | None, float]:
    """Sample the job until the command exits, breaks a limit or is stopped; return (reason, peak RSS MB)."""
    peak = 0.0
    while True:
        members = procs.members()
        rss = sum(s.rss for s in members) / MB
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
