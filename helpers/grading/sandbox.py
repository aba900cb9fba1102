"""Run one untrusted command under limits, and always clean up after it.

The grader runs every learner notebook through `run_limited`. The command gets its own session,
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

import psutil

JOB_VAR = "WORKBOOK_JOB"
UID_BASE = 61000  # job slot N runs as uid/gid UID_BASE + N; no passwd entry needed
TICK_S = 0.2  # watchdog sampling period
DRAIN_S = 2.0  # how long to wait for the output pipe to close once the job is dead
NPROC_SLACK = 16  # RLIMIT_NPROC headroom without a job uid: our threads, the user's other programs
MB = 1 << 20
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
    killed: set[int] = set()
    for _ in range(100):  # repeat: a fork bomb may fork between our scan and our kill
        pids = [pid for pid in _marked_pids(marker) if pid != os.getpid()]
        if not pids:
            break
        for pid in pids:
            _sigkill(pid)
        killed.update(pids)
        time.sleep(0.01)
    return len(killed)


# -----------------------------------------------------------------------------
# /proc and signals


def _marked_pids(marker: str) -> list[int]:
    """Pids whose initial environment holds WORKBOOK_JOB=<marker> (unreadable ones are skipped)."""
    needle = f"{JOB_VAR}={marker}".encode()
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


def _sid(pid: int) -> int | None:
    """Session id of a process, None if it is gone."""
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _alive(p: psutil.Process) -> bool:
    """True for a process that is running (not gone, not a zombie)."""
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _rss_mb(procs: list[psutil.Process]) -> float:
    """Summed RSS of some processes, in MB."""
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / MB


def _user_tasks(uid: int) -> int:
    """Tasks (processes and threads) of a real uid: what RLIMIT_NPROC counts."""
    n = 0
    for p in psutil.process_iter(["uids", "num_threads"]):
        uids, threads = p.info["uids"], p.info["num_threads"]
        if uids is not None and uids.real == uid:
            n += threads or 1
    return n


_subreaper = False


def _become_subreaper() -> None:
    """Adopt the job's orphans (instead of PID 1) so we can reap them: some container inits never do."""
    global _subreaper
    if not _subreaper:
        PR_SET_CHILD_SUBREAPER = 36
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _subreaper = True


# -----------------------------------------------------------------------------
# the job: its processes, found four ways


class _Job:
    """The processes of one job: descendants, session, marker and (when set) uid."""

    def __init__(self, pid: int, marker: str, uid: int | None):
        self.pid, self.marker, self.uid = pid, marker, uid
        self.killed: set[int] = set()
        try:
            self.pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def members(self) -> list[psutil.Process]:
        """Every process of the job, zombies included, never ourselves."""
        procs = {p.pid: p for p in psutil.process_iter(["ppid", "uids"])}
        children = defaultdict(list)
        for p in procs.values():
            children[p.info["ppid"]].append(p.pid)
        found, stack = set(), [self.pid]
        while stack:
            pid = stack.pop()
            if pid in procs and pid not in found:
                found.add(pid)
                stack.extend(children[pid])
        found.update(pid for pid in _marked_pids(self.marker) if pid in procs)
        for pid, p in procs.items():
            uids = p.info["uids"]
            if (self.uid is not None and uids is not None and uids.real == self.uid) or _sid(pid) == self.pid:
                found.add(pid)
        found.discard(os.getpid())
        return [procs[pid] for pid in found]

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
            alive = [p for p in self.members() if _alive(p)]
            if not alive:
                return
            for p in alive:
                _sigkill(p.pid)
            self.killed.update(p.pid for p in alive)
            try:
                os.killpg(self.pid, signal.SIGKILL)  # safe: the unreaped command holds this pgid
            except (ProcessLookupError, PermissionError):
                pass
            time.sleep(0.02)

    def reap_orphans(self) -> None:
        """Reap the job's zombies that were reparented to us (uid jobs only: we are their subreaper)."""
        if self.uid is None:
            return
        for p in self.members():
            try:
                if p.pid != self.pid and p.ppid() == os.getpid() and not _alive(p):
                    os.waitpid(p.pid, os.WNOHANG)
            except (psutil.Error, ChildProcessError):
                pass

    def reap(self) -> int:
        """Reap the command and return its returncode (ru_maxrss is useless: it counts our pages from fork)."""
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


def _rlimits(limits: Limits, switch_uid: bool) -> list[tuple[int, int]]:
    """The rlimits for the child, each lowered to what our own hard limit allows."""
    # RLIMIT_NPROC counts every task of the real uid: a fresh job uid has none, we have many. Without
    # a job uid it is only a backstop, set a little above the watchdog's count so that fires first.
    nproc = limits.nproc if switch_uid else _user_tasks(os.getuid()) + limits.nproc + NPROC_SLACK
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


def _spawn(cmd: list[str], cwd: Path, env: dict[str, str], uid: int | None, limits: Limits,
           pass_fds: tuple[int, ...]) -> subprocess.Popen:
    """Start the command in its own session, as uid when switching, under rlimits."""
    switch_uid = uid is not None and uid != os.getuid()
    # Popen does setgroups([]), setgid, setuid in the child before preexec_fn, so RLIMIT_NPROC bites
    ids = dict(user=uid, group=uid, extra_groups=[]) if switch_uid else {}
    try:
        return subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, pass_fds=pass_fds,
            preexec_fn=partial(_apply_rlimits, _rlimits(limits, switch_uid)), **ids,
        )
    except PermissionError as e:
        if not switch_uid:
            raise
        hint = f"uid {uid} cannot run {cmd[0]}: it, its symlink targets and their folders must be readable by all"
        raise PermissionError(e.errno, hint, e.filename) from e


# -----------------------------------------------------------------------------
# watching and judging


def _watch(job: _Job, limits: Limits, start: float) -> tuple[str | None, float]:
    """Sample the job until the command exits or breaks a limit; return (reason, peak RSS MB)."""
    peak = 0.0
    while True:
        procs = job.members()
        rss = _rss_mb(procs)
        peak = max(peak, rss)
        if rss > limits.memory_mb:
            return "memory", peak
        if len(procs) >= limits.nproc:
            return "nproc", peak
        if time.monotonic() - start >= limits.wall_s:
            return "timeout", peak
        job.reap_orphans()
        if job.exited(TICK_S):
            return None, peak


def _judge(reason: str | None, returncode: int, peak_mb: float, output: str,
           limits: Limits) -> tuple[str, int | None, str]:
    """Map how the command ended to (status, signal, message)."""
    if reason == "timeout":
        return "timeout", signal.SIGKILL, f"stopped after {limits.wall_s:g} s (wall-clock limit)"
    if reason == "memory":
        return "memory", signal.SIGKILL, f"stopped after using {peak_mb:.0f} MB of memory (limit {limits.memory_mb} MB)"
    if reason == "nproc":
        return "nproc", signal.SIGKILL, f"stopped after starting {limits.nproc} processes (process limit)"
    if returncode == 0:
        return "ok", None, "finished"
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


def run_limited(cmd: list[str], cwd: Path, limits: Limits, env: dict[str, str] | None = None,
                uid: int | None = None, pass_fds: tuple[int, ...] = ()) -> Outcome:
    """Run cmd under limits (as uid when given; needs root), kill everything it left, report."""
    if uid is not None and uid != os.getuid() and (os.geteuid() != 0 or uid == 0):
        raise ValueError(f"cannot run a job as uid {uid}: needs root and a non-root job uid")
    marker = uuid.uuid4().hex
    if uid is not None and uid != os.getuid():
        _become_subreaper()
    start = time.monotonic()
    proc = _spawn(cmd, Path(cwd), _child_env(env, marker, uid, Path(cwd)), uid, limits, pass_fds)
    job = _Job(proc.pid, marker, uid if uid != os.getuid() else None)
    capture = _Capture(proc.stdout.fileno(), limits.output_mb * MB)
    capture.start()
    try:
        reason, peak = _watch(job, limits, start)
    finally:
        job.kill_all()  # the command is still unreaped here, so its pid and pgid cannot be reused
        returncode = job.reap()
        proc.returncode = returncode
        wall = time.monotonic() - start
        job.reap_orphans()
        output, truncated = capture.finish()
        proc.stdout.close()
    status, sig, message = _judge(reason, returncode, peak, output, limits)
    if status == "ok":
        message = f"finished in {wall:.1f} s"
    return Outcome(
        returncode=None if reason else returncode, status=status, signal=sig, wall_s=wall,
        peak_rss_mb=peak, output=output, truncated=truncated,
        leftovers_killed=len(job.killed - {proc.pid}), message=message,
    )
