"""helpers.dist: the script launch writes, what comes back from every rank, errors and hangs, and CommCounter.

Functions are defined the way a notebook defines them (source executed in a `__main__` namespace and registered
in linecache), because that is where launch must find their source. Each launch starts torchrun and two Python
processes (a few seconds on 2 cores).
"""

from __future__ import annotations

import textwrap
from datetime import timedelta
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

from helpers import dist as hd
from helpers.notebooks import remember_source

CELL = '''
import math
import torch
import torch.distributed as dist
from helpers.dist import CommCounter

SCALE = 3
NAMES = ("a", "b")


def helper(t):
    return t * SCALE


class Doubler(torch.nn.Module):
    def forward(self, x):
        return 2 * x


def summed(rank, world_size, device, n):
    t = torch.ones(n, device=device) * (rank + 1)
    with CommCounter() as comm:
        dist.all_reduce(t)
    print("rank", rank, "done")
    return {"t": helper(Doubler()(t)), "comm": comm.summary(), "name": NAMES[rank], "pi": math.pi}


def fails_on_1(rank, world_size, device):
    if rank == 1:
        raise ValueError("bad value on rank 1")
    dist.barrier()


def not_written(rank, world_size, device):
    """Half written: each rank gets somewhere, then raises."""
    t = torch.ones(1) * rank
    raise NotImplementedError("write me")


def stub(rank, world_size, device, cfg):
    """An exercise as the lab hands it out."""
    from torch.distributed.fsdp import fully_shard

    raise NotImplementedError("3: FSDP: write your solution here")


def hangs(rank, world_size, device):
    if rank == 0:
        dist.barrier()
    return rank


BIG = torch.zeros(3)


def uses_a_tensor(rank, world_size, device):
    return BIG + rank
'''


@pytest.fixture(scope="module")
def cell() -> dict:
    ns = {"__name__": "__main__"}
    exec(compile(CELL, remember_source(CELL, "<cell test-dist>"), "exec"), ns)
    return ns


def test_script_carries_what_the_function_uses(cell, tmp_path):
    path = hd.write_script(cell["summed"], tmp_path / "s.py")
    text = path.read_text()
    for piece in ("SCALE = 3", "NAMES = ('a', 'b')", "def helper(t):", "class Doubler(torch.nn.Module):",
                  "def summed(", "import math", "import torch.distributed as dist", "from helpers.dist import CommCounter",
                  "rank_main(summed,"):
        assert piece in text, piece
    assert text.index("def helper") < text.index("def summed") and "BIG" not in text


def test_launch_gathers_every_rank_and_prefixes_output(cell, tmp_path):
    run = hd.launch(cell["summed"], nproc=2, device="cpu", script_dir=tmp_path, n=3)
    assert run.backend == "gloo" and run.world_size == 2 and run.script.is_file()
    assert [r["name"] for r in run.results] == ["a", "b"]
    for r in run.results:
        assert torch.equal(r["t"], torch.full((3,), 18.0))           # (1 + 2) × 2 × 3
        assert r["comm"] == {"all_reduce": {"calls": 1, "bytes": 12}}
    assert "[rank 0] rank 0 done" in run.output and "[rank 1] rank 1 done" in run.output


def test_a_failing_rank_is_named_with_its_traceback(cell):
    with pytest.raises(hd.DistributedError) as info:
        hd.launch(cell["fails_on_1"], nproc=2, device="cpu", timeout=60)
    text = str(info.value)
    assert text.startswith("rank 1 of 2 raised ValueError: bad value on rank 1")
    assert 'raise ValueError("bad value on rank 1")' in text and "in rank_main" not in text
    assert 1 in info.value.failures and not isinstance(info.value, NotImplementedError)


def test_not_implemented_everywhere_is_not_implemented(cell):
    with pytest.raises(NotImplementedError) as info:
        hd.launch(cell["not_written"], nproc=2, device="cpu", timeout=60)
    assert isinstance(info.value, hd.RankNotImplemented) and "write me" in str(info.value)


def test_a_stub_is_not_written_without_starting_processes(cell, tmp_path):
    with pytest.raises(hd.RankNotImplemented) as info:
        hd.launch(cell["stub"], nproc=2, device="cpu", timeout=60, script_dir=tmp_path, cfg={})
    assert not any(tmp_path.iterdir())     # no script written, so no torchrun started
    assert "`stub` is not written yet (3: FSDP: write your solution here)" in str(info.value)


def test_stub_message_tells_stubs_from_written_functions():
    ns: dict = {}
    sources = {"bare": "def f(a):\n    raise NotImplementedError\n",
               "docstring_and_import": 'def f(a):\n    """doc"""\n    import os\n    raise NotImplementedError("x")\n',
               "real_work_first": "def f(a):\n    b = a + 1\n    raise NotImplementedError('y')\n",
               "other_error": "def f(a):\n    raise ValueError('z')\n",
               "in_a_branch": "def f(a):\n    if a:\n        raise NotImplementedError\n    return a\n"}
    found = {}
    for name, src in sources.items():
        exec(compile(src, remember_source(src, f"<stub-test-{name}>"), "exec"), ns)
        found[name] = hd.stub_message(ns["f"])
    assert found == {"bare": "", "docstring_and_import": "x", "real_work_first": None, "other_error": None,
                     "in_a_branch": None}


def test_a_hang_is_stopped_with_a_hint(cell):
    with pytest.raises(hd.DistributedError) as info:
        hd.launch(cell["hangs"], nproc=2, device="cpu", timeout=6)
    assert "not every rank calls" in str(info.value)


def test_a_rank_that_leaves_a_collective_waiting_gets_the_same_hint(tmp_path):
    """On a busy machine the rank that skipped the barrier may exit before the other's timeout: gloo then says
    "Connection closed by peer" on the waiting rank, and only that rank reports; the hint still names the cause."""
    (tmp_path / "error_rank0.txt").write_text("RuntimeError\n\nTraceback (most recent call last):\n  File \"x.py\", "
                                              "line 1\nRuntimeError: [pair.cc:553] Connection closed by peer [127.0.0.1]:1\n")
    err = hd._failure("hangs", tmp_path, 2, "", 1)
    assert "rank 1 left without an error" in str(err) and "not every rank calls" in str(err)
    (tmp_path / "error_rank1.txt").write_text("ValueError\n\nTraceback (most recent call last):\nValueError: bad\n")
    assert "not every rank calls" not in str(hd._failure("hangs", tmp_path, 2, "", 1))   # a real error comes first


def test_a_message_of_several_lines_is_said_whole(tmp_path):
    """An exception whose text takes several lines (torch's FSDP and DTensor errors) is named by its whole text, not by
    its last line (it read "rank 0 of 2 raised )")."""
    message = "containers that do not implement forward (\n  ModuleList\n)"
    tb = f"Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    g()\nValueError: {message}\n"
    (tmp_path / "error_rank0.txt").write_text(f"ValueError\n{message}\n{tb}")
    err = hd._failure("fsdp_worker", tmp_path, 2, "", 1)
    assert str(err).startswith("rank 0 of 2 raised ValueError: containers that do not implement forward ( ModuleList )")
    assert f"--- rank 0 (script: {tmp_path / 'fsdp_worker.py'}) ---\nTraceback" in str(err)
    assert hd.raised_line("Traceback (most recent call last):\ntorch.distributed.DistBackendError: NCCL\nerror",
                          "DistBackendError") == "torch.distributed.DistBackendError: NCCL error"


def test_what_cannot_be_carried_is_refused_before_launch(cell, tmp_path):
    with pytest.raises(hd.ScriptError, match="BIG.*pass it to launch"):
        hd.write_script(cell["uses_a_tensor"], tmp_path / "t.py")


def test_needs_accepts_source_text(tmp_path):
    source = textwrap.dedent('''
        def from_text(rank, world_size, device):
            return rank * 10
    ''')
    path = hd.write_script("from_text", tmp_path / "x.py", needs=[source])
    assert "def from_text" in path.read_text() and "rank_main(from_text," in path.read_text()
    with pytest.raises(hd.ScriptError):
        hd.write_script("missing", tmp_path / "y.py", needs=[source])


def test_torchrun_command_for_one_and_several_machines():
    one = hd.torchrun_command("s.py", 2)
    assert "--standalone" in one and "--nproc-per-node=2" in one and one[-1] == "s.py"
    two = hd.torchrun_command("s.py", 8, nnodes=2, node_rank=1, master_addr="10.0.0.1", master_port=29400)
    for arg in ("--nnodes=2", "--node-rank=1", "--master-addr=10.0.0.1", "--master-port=29400", "--nproc-per-node=8"):
        assert arg in two
    assert "--standalone" not in two
    with pytest.raises(ValueError, match="master_addr"):
        hd.torchrun_command("s.py", 2, nnodes=2)


def test_backend_choice():
    assert hd.backend_for("cpu", 2) == ("gloo", "cpu")
    if torch.cuda.device_count() < 2:
        assert hd.backend_for("auto", 2) == ("gloo", "cpu")
        with pytest.warns(UserWarning, match="GPU"):
            assert hd.backend_for("cuda", 2) == ("gloo", "cpu")
    with pytest.raises(ValueError):
        hd.backend_for("tpu", 2)


@pytest.fixture
def one_rank_group(tmp_path):
    store = dist.FileStore(str(tmp_path / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=30))
    yield
    dist.destroy_process_group()


def test_comm_counter_counts_payloads(one_rank_group):
    t = torch.ones(5)
    out = torch.empty(5)
    with hd.CommCounter() as comm:
        dist.all_reduce(t)
        dist.all_gather_into_tensor(out, t)
        dist.reduce_scatter_tensor(out, t)
        dist.broadcast(t, 0)
    assert comm.summary() == {"all_reduce": {"calls": 1, "bytes": 20}, "all_gather": {"calls": 1, "bytes": 20},
                              "reduce_scatter": {"calls": 1, "bytes": 20}, "broadcast": {"calls": 1, "bytes": 20}}
    dist.all_reduce(t)                                   # outside the context: not counted
    assert comm.calls["all_reduce"] == 1


def test_a_taken_port_is_retried_but_a_rank_error_is_not(tmp_path):
    assert hd._port_taken("torch.distributed.DistNetworkError: ... EADDRINUSE", tmp_path)
    assert not hd._port_taken("ValueError: wrong shape", tmp_path)
    (tmp_path / "error_rank0.txt").write_text("ValueError\n0\ntraceback")
    assert not hd._port_taken("Address already in use", tmp_path)


def test_a_rank_imports_no_notebook_machinery():
    """Every rank of every launch imports helpers.dist: nbformat (and jsonschema under it, which builds a URI grammar
    at import) would cost each rank about a second of CPU, half a small launch's own cost."""
    import subprocess
    import sys

    code = "import sys, helpers.dist; print(sorted(m for m in ('nbformat', 'jsonschema') if m in sys.modules))"
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
