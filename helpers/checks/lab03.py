"""Lab 03 — Operator fusion: the acceptance checks.

The checks judge behaviour: bytes counted by the notebook's rule, chains judged by their four defining properties
(so any correct search passes, whatever order it walks in), fused graphs by their outputs and node counts, kernels
by their results on awkward sizes and by the ATen ops they did *not* dispatch (a Triton kernel computes without
ATen). Each check is a probe (`probe_*`: runs the learner's code through `Learner`, on the run's device, and
returns plain data) and a judge (`*_problems`: says what to fix), run on cases. The notebook runs them on the cases
below; the grader runs the same functions on hidden cases (other graphs, models, sizes and dtypes), with messages
that reveal no expected value. Cases hold CPU tensors and importable models or functions, so they travel to the
grader's job pickled; the probe moves them to the device.
"""

from __future__ import annotations

import contextlib
import copy
import math
import numbers
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from helpers.checks import CheckFailed, Context, Learner, NotImplementedYet, fail_if, register
from helpers.models import chain_ops

LAB = "03"
# ATen ops that compute something elementwise: none of them may run while a Triton kernel does the work.
COMPUTE_OPS = {"add", "sub", "rsub", "mul", "div", "neg", "relu", "sigmoid", "tanh", "exp", "abs", "gelu", "silu",
               "clamp", "maximum", "minimum", "erf", "where", "pow", "add_", "mul_", "sub_", "div_", "sigmoid_",
               "relu_", "tanh_", "exp_"}
TOLERANCE = {torch.float32: 1e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3, torch.float64: 1e-6}
MEMFUSE_NOT_WRITTEN = "`memfuse` is not written yet: replace the `raise NotImplementedError` in its cell."


# ---------------------------------------------------------------- tools shared by the checks
def device_of(learner: Learner) -> torch.device:
    """The run's device, from the grader's (or CI's) settings: kernels are compiled for it, or interpreted on the CPU."""
    from helpers.env import pick_device

    return pick_device(learner.settings.device)


def tensors(seed: int, *shapes: tuple[int, ...], dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    """Random CPU tensors of these shapes from `seed`, leaving the global random state alone."""
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=gen).to(dtype) for shape in shapes)


def seeded(cls: Callable[[], nn.Module], seed: int, train: bool = False) -> nn.Module:
    """cls() with its weights drawn from `seed` (the global random state is left as it was), in eval mode unless train."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return cls().train(train)


@dataclass(frozen=True)
class Traced:
    """A maker of the traced graph of a plain function (a case needs an importable maker, not a lambda)."""

    fn: Callable

    def __call__(self) -> fx.GraphModule:
        return fx.symbolic_trace(self.fn)


def trace(make: Callable[[], Any]) -> fx.GraphModule:
    """The GraphModule a maker gives: itself when it is one, else the symbolic trace of the module it builds."""
    obj = make()
    return obj if isinstance(obj, fx.GraphModule) else fx.symbolic_trace(obj)


def calls(gm: fx.GraphModule) -> int:
    return sum(n.op.startswith("call") for n in gm.graph.nodes)


def failure(err: BaseException, limit: int = 300) -> str:
    """An exception the learner's code raised, in words."""
    return f"{type(err).__name__}: {str(err)[:limit]}"


def not_written(err: BaseException) -> bool:
    """True when torch.compile failed because the backend still raises NotImplementedError."""
    return isinstance(getattr(err, "inner_exception", None), NotImplementedError) or \
        "NotImplementedError" in f"{type(err).__name__}: {err}"


class OpRecorder(TorchDispatchMode):
    """Records the ATen ops dispatched while it is active, by name ("add", "empty", ...)."""

    def __init__(self):
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))

    def computed(self) -> list[str]:
        return sorted({op for op in self.ops if op in COMPUTE_OPS})


# ---------------------------------------------------------------- guard space: unmasked kernels under the interpreter
# Ops that return a new tensor (not a view): under GuardSpace their results move into guarded buffers.
ALLOCATING = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "clone", "_to_copy",
              "zeros", "zeros_like", "ones_like", "full_like", "randn_like", "rand_like"}
GUARD_ELEMENTS = 1 << 16        # elements of guard space after each tensor: more than any block a case asks for
CANARY = 0xA5                   # the byte the guard space is filled with


class GuardSpace(TorchDispatchMode):
    """Under Triton's CPU interpreter, a kernel without masks reads and writes past the end of its tensors: into
    memory the allocator gave to something else, which can kill the whole process (a dead Jupyter kernel, a
    "malloc(): unaligned tcache chunk"). While this mode is active, every tensor an op allocates on the CPU lives
    at the start of a larger buffer whose tail is guard space filled with a canary byte; `guard(t)` puts an input
    there too. A read past the end then reads guard space this process owns, and `overrun()` tells whether a
    write landed there; under `reads_watched()`, `read_past` names the tensors past whose end a load read. On a GPU
    the mode changes nothing (compiled kernels do not run through it)."""

    def __init__(self, slack: int = GUARD_ELEMENTS):
        super().__init__()
        self.slack = slack
        self.tails: list[torch.Tensor] = []
        self.tail_names: list[str] = []      # what each tail follows, for messages
        self.read_past: set[str] = set()

    @property
    def overread(self) -> bool:
        """True when a load read guard space (under reads_watched)."""
        return bool(self.read_past)

    def _add_tail(self, tail: torch.Tensor, name: str) -> None:
        tail.fill_(CANARY)
        self.tails.append(tail)
        self.tail_names.append(name)

    def guard(self, t: torch.Tensor, name: str = "a tensor") -> torch.Tensor:
        """A copy of t, with t's sizes and strides, at the start of a guarded buffer (t itself if it is not a
        dense CPU tensor); `name` names it where a load reads past its end."""
        if t.device.type != "cpu" or t.numel() == 0 or t.layout != torch.strided or not _dense(t):
            return t
        span = sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1
        buf = torch.empty(span + self.slack, dtype=t.dtype, device=t.device)   # CPU, whatever the default device
        self._add_tail(buf[span:].view(torch.uint8), name)
        out = buf.as_strided(t.shape, t.stride(), 0)
        out.copy_(t)
        return out.requires_grad_(t.requires_grad) if t.is_leaf and t.requires_grad else out

    def empty(self, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        """A new contiguous CPU tensor with guard space after it (no copy: what a launcher's output needs)."""
        n = math.prod(shape)
        buf = torch.empty(n + self.slack, dtype=dtype, device="cpu")
        self._add_tail(buf[n:].view(torch.uint8), "the output")
        return buf[:n].view(shape)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket.__name__ in ALLOCATING and isinstance(out, torch.Tensor):
            out = self.guard(out, "a tensor made while it ran")
        return out

    def overrun(self) -> bool:
        """True when something wrote into the guard space after a tensor: a store past its end."""
        return any(bool((tail != CANARY).any()) for tail in self.tails)

    def note_reads(self, addresses, mask) -> None:
        """Under the interpreter, a load's addresses (numpy, one per lane) and its mask: the name of every tensor
        whose guard space an active lane reads (past its end) goes into `read_past`."""
        import numpy as np

        addresses = np.asarray(addresses)
        active = addresses[np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)]
        if active.size:
            self.read_past.update(name for tail, name in zip(self.tails, self.tail_names)
                                  if name not in self.read_past and
                                  bool(((active >= tail.data_ptr()) & (active < tail.data_ptr() + tail.numel())).any()))

    @contextlib.contextmanager
    def reads_watched(self):
        """While active, every load of Triton's interpreter is checked against the guard space (see note_reads); a
        masked-off lane reads nothing. Does nothing where the interpreter's internals differ (or on a GPU)."""
        try:
            from triton.runtime import interpreter as ti

            builder, original = ti.InterpreterBuilder, ti.InterpreterBuilder.create_masked_load
        except (ImportError, AttributeError):
            yield
            return
        guard = self

        def create_masked_load(self, ptrs, mask, *args, **kwargs):     # the later arguments differ by release
            try:
                guard.note_reads(ptrs.data, True if mask is None else mask.data)
            except Exception:     # an interpreter whose handles look otherwise: watch nothing, never break the load
                pass
            return original(self, ptrs, mask, *args, **kwargs)

        builder.create_masked_load = create_masked_load
        try:
            yield
        finally:
            builder.create_masked_load = original


class NoTriton:
    """Stands in for `triton` and `triton.language` where Triton is not installed (macOS, Windows without WSL): the
    cells that define kernels still run, and launching a kernel raises a RuntimeError that says what to do."""

    def __init__(self, why: str):
        self.why = why

    def __getattr__(self, name: str):          # tl.constexpr, tl.float32, triton.jit ...
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args, **kwargs):       # @triton.jit on a function gives this stand-in back
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return self
        raise RuntimeError(self.why)

    def __getitem__(self, grid):                # kernel[grid](...): a launch
        raise RuntimeError(self.why)


def _dense(t: torch.Tensor) -> bool:
    """True when t's elements fill one block of memory without gaps or overlaps (any order of dimensions)."""
    dims = sorted((s, n) for n, s in zip(t.shape, t.stride()) if n > 1)
    expected = 1
    for stride, n in dims:
        if stride != expected:
            return False
        expected *= n
    return True


def interpreted() -> bool:
    """True when Triton kernels run in its CPU interpreter (TRITON_INTERPRET=1)."""
    return os.environ.get("TRITON_INTERPRET") == "1"


UNMASKED_POISON = {"int": 99, "bf16": 0x7FC0}    # what a masked-off lane without `other` reads under the check


@contextlib.contextmanager
def poisoned_masked_loads():
    """Under Triton's interpreter, the masked-off lanes of a `tl.load` without `other` read as NaN (floats) or 99
    (integers) while the block runs, not the interpreter's zeros: on a GPU they hold whatever was in the registers, so
    a kernel that relies on them being 0 is wrong there. Does nothing where the interpreter's internals differ."""
    try:
        import numpy as np
        from triton.runtime import interpreter as ti

        builder, original = ti.InterpreterBuilder, ti.InterpreterBuilder.create_masked_load
    except (ImportError, AttributeError):
        yield
        return

    def create_masked_load(self, ptrs, mask, other, *args, **kwargs):     # the later arguments differ by release
        if other is None and mask is not None and not bool(np.all(mask.data)):
            dtype_tt = ptrs.get_element_ty()
            dtype_np = ti._get_np_dtype(dtype_tt)
            fill = (UNMASKED_POISON["bf16"] if str(dtype_tt) == "bf16" else
                    float("nan") if np.issubdtype(dtype_np, np.floating) else UNMASKED_POISON["int"])
            other = ti.TensorHandle(np.full_like(ptrs.data, fill, dtype=dtype_np), dtype_tt)
        return original(self, ptrs, mask, other, *args, **kwargs)

    builder.create_masked_load = create_masked_load
    try:
        yield
    finally:
        builder.create_masked_load = original


OVERRUN = ("wrote past the end of its output (into guard space put there to catch it): the last block runs past "
           "the end whenever the size is not a multiple of BLOCK, so mask every load and store with "
           "offsets < n_elements")
OVERREAD = ("read past the end of an input (from guard space put there to catch it; on a GPU such a read can fault or "
            "read another tensor's memory): the last block runs past the end whenever the size is not a multiple of "
            "BLOCK, so mask every load, not only the store, with offsets < n_elements")


@contextlib.contextmanager
def launches_marked():
    """While active, `IN_LAUNCH[0]` is True during each launch of a kernel by Triton's interpreter, which copies its
    arguments to the host and back itself: the copies a launcher makes before the launch are the ones outside."""
    try:
        from triton.runtime import interpreter as ti

        executor, original = ti.GridExecutor, ti.GridExecutor.__call__
    except (ImportError, AttributeError):
        yield
        return

    def call(self, *args, **kwargs):
        IN_LAUNCH[0] = True
        try:
            return original(self, *args, **kwargs)
        finally:
            IN_LAUNCH[0] = False

    executor.__call__ = call
    try:
        yield
    finally:
        executor.__call__ = original


IN_LAUNCH = [False]


@contextlib.contextmanager
def constexprs_launched():
    """While active, under Triton's interpreter, each launch's constexpr arguments ({"BLOCK_M": 16, ...}) go into the
    list it yields, one dict per launch. Records nothing on a GPU (compiled kernels) or where the interpreter differs."""
    import inspect

    record: list[dict] = []
    try:
        from triton.runtime import interpreter as ti

        executor, original = ti.GridExecutor, ti.GridExecutor.__call__
    except (ImportError, AttributeError):
        yield record
        return

    def call(self, *args, **kwargs):
        try:
            signature = inspect.signature(self.fn)
            bound = signature.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in signature.parameters})
            bound = bound.arguments
            record.append({k: as_number(bound[k]) for k in getattr(self, "constexprs", ()) if k in bound})
        except Exception:     # a launch this cannot read: record nothing, never break the launch
            pass
        return original(self, *args, **kwargs)

    executor.__call__ = call
    try:
        yield record
    finally:
        executor.__call__ = original


class WrongDevice(RuntimeError):
    """A kernel was launched with a tensor that is not on the input's device (see watched_launches)."""


@dataclass
class Launches:
    """What watched_launches saw: the programs of each launch, and whether a tensor argument was on another device."""

    programs: list[int] = field(default_factory=list)
    wrong_device: bool = False
    watching: bool = False       # launches are counted here (`launched`): every launch under the interpreter, a
    launched: int = 0            # JITFunction's launches on a GPU (a compiled graph's kernels are not among them)


@contextlib.contextmanager
def watched_launches(device: torch.device):
    """While active, under Triton's interpreter: each launch's number of programs is recorded, `IN_LAUNCH[0]` is True
    during it (the copies the interpreter makes itself are not the launcher's), and a tensor argument on another
    device than `device` stops it with WrongDevice. On a CPU the default device is "meta" outside the launches, so a
    launcher that allocates without `device=` (torch.empty(shape, dtype=...)) gets a tensor the kernel cannot use:
    what on a GPU would hand the kernel a CPU pointer shows on a CPU too. On a GPU only the launches of @triton.jit
    functions are counted (`launched`): a torch.compile'd graph runs Inductor's compiled kernels without one."""
    record = Launches()
    try:
        from triton.runtime import interpreter as ti

        executor, call = ti.GridExecutor, ti.GridExecutor.__call__
        builder, set_grid = ti.InterpreterBuilder, ti.InterpreterBuilder.set_grid_dim
    except (ImportError, AttributeError):
        yield record
        return
    if not interpreted():
        with counted_jit_launches(record):
            yield record
        return

    def launch(self, *args, **kwargs):
        if any(isinstance(a, torch.Tensor) and a.device.type != device.type for a in (*args, *kwargs.values())):
            record.wrong_device = True
            raise WrongDevice("a kernel argument is not on the input's device")
        IN_LAUNCH[0] = True
        record.launched += 1
        try:
            with torch.device(device):
                return call(self, *args, **kwargs)
        finally:
            IN_LAUNCH[0] = False

    def grid_dim(self, *dims):
        record.programs.append(math.prod(dims))
        return set_grid(self, *dims)

    executor.__call__, builder.set_grid_dim = launch, grid_dim
    record.watching = True
    try:
        with torch.device("meta") if device.type == "cpu" else contextlib.nullcontext():
            yield record
    finally:
        executor.__call__, builder.set_grid_dim = call, set_grid


@contextlib.contextmanager
def counted_jit_launches(record: Launches):
    """While active (on a GPU), each launch of a @triton.jit function (kernel[grid](...), directly or through an
    autotuner) adds one to `record.launched`; nothing is counted where JITFunction.run cannot be found."""
    try:
        from triton.runtime.jit import JITFunction

        run = JITFunction.run
    except (ImportError, AttributeError):
        yield record
        return

    def counted(self, *args, **kwargs):
        if not kwargs.get("warmup"):
            record.launched += 1
        return run(self, *args, **kwargs)

    JITFunction.run = counted
    record.watching = True
    try:
        yield record
    finally:
        JITFunction.run = run


class Conversions(OpRecorder):
    """An OpRecorder that also notes the dtype conversions made outside a kernel launch (x.float(), out.to(dtype),
    a copy_ between dtypes): each is a pass over memory of its own."""

    def __init__(self):
        super().__init__()
        self.converted: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = super().__torch_dispatch__(func, types, args, kwargs)
        name = func.overloadpacket.__name__
        if name in ("_to_copy", "copy_") and not IN_LAUNCH[0] and len(args) >= (2 if name == "copy_" else 1):
            src, dst = (args[1], args[0]) if name == "copy_" else (args[0], out)
            if isinstance(src, torch.Tensor) and isinstance(dst, torch.Tensor) and src.dtype != dst.dtype:
                self.converted.append(f"{src.dtype} to {dst.dtype}".replace("torch.", ""))
        return out


def close(got: Any, want: torch.Tensor, atol: float, rtol: float = 0.0, reveal: bool = True) -> str | None:
    """None when got matches want; otherwise what differs, in words (without expected values unless reveal)."""
    if not isinstance(got, torch.Tensor):
        return f"returned a {type(got).__name__}, not a tensor"
    got, want = got.detach().cpu(), want.detach().cpu()
    if got.shape != want.shape:
        return f"returned shape {tuple(got.shape)}, expected {tuple(want.shape)}" if reveal else \
            f"returned shape {tuple(got.shape)}, which is not the shape of the expected result"
    if got.dtype != want.dtype:
        return f"returned dtype {got.dtype}, expected {want.dtype}"
    if got.numel() == 0:
        return None
    diff = (got.double() - want.double()).abs()
    bad = ~(diff <= atol + rtol * want.double().abs())     # NaN counts as a difference
    if not bool(bad.any()):
        return None
    if not reveal:
        return f"differs from the expected result at {bad.sum().item()} of {want.numel()} elements"
    first = tuple(int(i) for i in torch.nonzero(bad)[0])
    return (f"differs at {bad.sum().item()} of {want.numel()} elements (first at index {first}: "
            f"{got[first].item():.6g} vs {want[first].item():.6g}; max difference {diff.max().item():.3g})")


def close_all(got: Any, want: Any, atol: float, rtol: float = 0.0, reveal: bool = True) -> str | None:
    """`close` for a tensor or a tuple of tensors (a graph with several outputs)."""
    if not isinstance(want, (tuple, list)):
        return close(got, want, atol, rtol, reveal)
    if not isinstance(got, (tuple, list)) or len(got) != len(want):
        return f"is not a tuple of {len(want)} outputs"
    return next((f"{d} (in output {i})" for i, (g, w) in enumerate(zip(got, want))
                 if (d := close(g, w, atol, rtol, reveal))), None)


# ---------------------------------------------------------------- the graphs and functions the public cases use
class Spellings(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.Tanh()
        self.fc = nn.Linear(6, 6)

    def forward(self, x, y):
        h = self.act(torch.relu(x).sigmoid()) + y
        g = self.fc(F.silu(h)) * 2
        return g.exp() + g


class Branches(nn.Module):
    """A value read by two paths (fan-out), then the paths meet again (a join)."""

    def forward(self, x, y):
        a = x.relu()
        left = (a.sigmoid() * 2) - 1
        right = torch.tanh(a) + y
        return left * right


class MutatesBetween(nn.Module):
    def forward(self, x, y):
        a = y.sigmoid()
        b = a * 2
        y.add_(1)
        return (b * y).relu() + x


class Modules(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.GELU(), nn.Linear(6, 6), nn.SiLU(), nn.Sigmoid())

    def forward(self, x, y):
        return self.seq(x) * y


class Single(nn.Module):
    def forward(self, x, y):
        return x.relu()


class Empty(nn.Module):
    def forward(self, x, y):
        return x


class GatedMLP(nn.Module):
    def __init__(self, d: int = 16):
        super().__init__()
        self.gate, self.up, self.down = nn.Linear(d, 2 * d), nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.scale = nn.Parameter(torch.rand(d))

    def forward(self, x):
        return x + self.down(torch.sigmoid(self.gate(x)) * self.up(x)) * self.scale


class NormScale(nn.Module):
    """A batch norm module (its state: parameters and buffers) and a parameter read through a get_attr node."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(8)
        self.scale = nn.Parameter(torch.rand(8))

    def forward(self, x):
        return self.bn(x) * self.scale


class LateInput(nn.Module):
    """A chain whose last op reads a value computed after the chain's first op."""

    def forward(self, x, y):
        a = x.relu()
        b = y.sigmoid()
        return (a * 2) * b


def already_fused() -> fx.GraphModule:
    """A graph whose only calls are two fused chains (GraphModules): nothing left to fuse."""
    root = nn.Module()
    root.fused_0 = fx.symbolic_trace(add_one_relu)
    root.fused_1 = fx.symbolic_trace(double_sigmoid)
    graph = fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("y")
    a = graph.call_module("fused_0", (x,))
    graph.output(graph.call_module("fused_1", (a,)))
    return fx.GraphModule(root, graph)


def add_one_relu(x):
    return (x + 1).relu()


def double_sigmoid(x):
    return (x * 2).sigmoid()


def identity(x):
    return x


def bias_relu_scale(x, b):
    return (x + b).relu() * b


def square_sigmoid(x):
    return (x * x).sigmoid()


def linear_relu() -> nn.Module:
    return nn.Sequential(nn.Linear(16, 8), nn.ReLU())


def small_mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))


def relu_only(x):
    return x.relu()


def two_outputs(x):
    return x.relu() + 1, x.sigmoid()


def view_then_sigmoid(x):
    return x.relu().view(-1).sigmoid()


def view_then_sum(x):
    return x.exp().view(-1).sum()


def view_of_view(x):
    return x.exp().unsqueeze(0).view(-1).sigmoid()


def three_outputs(x):
    return x.relu(), x.sigmoid(), x.tanh()


def inplace_relu(x):
    return torch.relu_(x.sigmoid()) * 2


def two_input_chain(x, y):
    return (x * y + 1).sigmoid() - y


def square_tanh(x):
    return (x * x).tanh()


def gelu_bias(x, b):
    return F.gelu(x + b) * 0.5


def number_on_left(x):
    return (2.0 - x).sigmoid()


def add_alpha(x):
    return torch.add(x, x, alpha=2).relu()


def clamp_exp(x):
    return x.clamp(0, 1).exp()


def mixed_dtypes(x, y, z):
    return (z * 3 + 1) + x.sigmoid() * y


def view_between(x):
    return (x.relu().view(-1).sigmoid() * 2).exp()


def dead_value(x):
    x.exp()          # read by nothing: freed as soon as it is made
    return (x.sigmoid() * 2).relu()


def mutate_between(x, y):
    a = y.exp()
    b = a - 1
    y.mul_(2)
    return (b + y).sigmoid() * x


class TwiceLinear(nn.Module):
    """One Linear called twice: each call is a kernel that reads its weight and bias."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(self.fc(x).relu())


def cat_sigmoid(x, y):
    return torch.cat([x, y]).sigmoid() * 2


def size_view(x):
    return x.exp().view(x.size(0), -1).sigmoid()


def two_readers_end(x):
    h = (x.relu() * 2).sigmoid()
    return h.exp() + h


def where_positive(x):
    return torch.where(x > 0, x, 0.0) * 2


def half_mul_relu(x, y):
    """An fp32 input converted once (x.half() reads 4 bytes an element, writes 2), then fp16 ops with an fp16 y."""
    return (x.half() * y).relu()


def relu_inplace_between(x, y):
    """An in-place op spelled as a function (torch.relu_) between two elementwise ops."""
    a = x.exp() * 2
    torch.relu_(y)
    return (a + y).sigmoid()


class KeywordChain(nn.Module):
    """A chain whose ops take keyword arguments (alpha=, other=, min=): a copy of each node must keep them; y is read
    by keyword only, so an outside input found in node.args alone is missed."""

    def forward(self, x, y):
        return torch.sub(torch.add(x, x, alpha=2).relu(), other=y).clamp(min=-0.5)


class ActDivide(nn.Module):
    """Activation modules (call_module nodes of a Sequential), then a division."""

    def __init__(self):
        super().__init__()
        self.act = nn.Sequential(nn.SiLU(), nn.Tanh())

    def forward(self, x):
        return self.act(x) / 3


def cat_sum(x):
    """Two values read inside a list (torch.cat): both stay alive until the cat."""
    return torch.cat([x.exp(), x.tanh()]).sum()


def relu_in_place(x):
    """An in-place function on an intermediate: its result is the intermediate itself, and both are read."""
    a = x.exp()
    b = torch.relu_(a)
    return b * a


def transpose_sigmoid(x):
    """A view (x.t()) first: by exercise 1's rule a call node like any other, so it counts as a kernel."""
    return x.t().sigmoid() * 2


def view_between_links(x, y):
    """A view of another tensor (y.t()) between two ops of one chain: a view changes nothing in place."""
    a = x.relu()
    v = y.t()
    return a.sigmoid() * 2, v.exp()


def returned_and_read(x):
    """A value that is returned and read by the next op: the output node is its second reader."""
    h = x.relu() * 2
    return h, h.sigmoid()


class ModuleChains(nn.Module):
    """Two chains around a Linear, the first ending in an activation module: after fusing it, the graph holds as
    many call_module nodes as before."""

    def __init__(self):
        super().__init__()
        self.act = nn.Tanh()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        return (self.fc(self.act(x.relu())).exp() * 2).sigmoid()


def dead_outer(x):
    """An outer product that nothing reads (allocated, then freed at once), then a short chain."""
    x[:, None] * x
    return x.sigmoid() * 2


def in_place_then_chain(x, y):
    """An input changed in place before a chain: the compiled call must change it exactly once, as eager does."""
    y.mul_(2)
    return (x + y).sigmoid() * 2


def scale_in_place(x, y):
    """An in-place method on an intermediate: a call node like any other (it reads h and y, and writes h)."""
    h = x.exp()
    h.mul_(y)
    return h.sigmoid()


def square_in_chain(x):
    """A chain through a value its next op reads twice (h * h): one reader, so the chain goes on."""
    h = x.relu()
    return (h * h).sigmoid()


def two_sigmoids(x, y):
    """Two values of one op alive at once: each needs a variable of its own."""
    return x.sigmoid() * y.sigmoid()


def sigmoid_twice_times(x, y):
    """The ops of two_sigmoids (sigmoid, sigmoid, mul), wired otherwise: their kernels differ."""
    return x.sigmoid().sigmoid() * y


class SecondOperand(nn.Module):
    """A chain whose result is the second operand of its reader (x @ h), and a chain read by keyword (other=g)."""

    def forward(self, x, y):
        h = (y.relu() * 2).tanh()
        g = (x @ h).exp() + 1
        return torch.where(x > 0, x, other=g.sigmoid() * 3)


# ---------------------------------------------------------------- 1 and 6: bytes by the notebook's rules
@dataclass(frozen=True)
class BytesCase:
    """A function or module to trace, its inputs, and the bytes the rule gives (worked out by hand or by the grader).
    `before`: inputs of other shapes the same traced graph is measured with first (the count must be the inputs')."""

    about: str
    fn: Callable
    inputs: tuple
    want: int
    before: tuple = ()


def probe_bytes(learner: Learner, fn_name: str, graphs: list[tuple]) -> list:
    """The learner's byte count (traffic_bytes, estimate_peak_bytes) on each traced graph, after a first count with
    other inputs where a case gives them; what it raised otherwise."""
    out = []
    for fn, inputs, *before in graphs:
        gm = fx.symbolic_trace(fn)
        try:
            with torch.no_grad():
                if before and before[0]:
                    learner.call(fn_name, gm, *before[0])
                out.append(as_number(learner.call(fn_name, gm, *inputs)))
        except CheckFailed:
            raise
        except Exception as err:
            out.append(f"raised {failure(err)}")
    return out


def traffic_hint(got: int, want: int) -> str:
    """What a traffic count off by a factor of 2 or 4 suggests: reads or write left out, elements for bytes, or
    4 bytes an element whatever the dtype."""
    if not want or not isinstance(got, int):
        return ""
    if got * 2 == want:
        return (" (half: count both the reads and the write, in bytes: an element is dtype.itemsize bytes, 2 for "
                "fp16)")
    if got * 4 == want:
        return " (a quarter: that is elements, not bytes; multiply each by its dtype's itemsize, 4 for fp32)"
    if got == want * 2:
        return (" (twice: is every element counted as 4 bytes? an fp16 element is 2: take meta.dtype.itemsize of "
                "each tensor)")
    return ""


BYTES_HINTS = {  # fn_name → (got, want) → what the difference suggests
    "traffic_bytes": lambda g, w: traffic_hint(g, w),
    "estimate_peak_bytes": lambda g, w: (
        " (too low: allocate a node's output before freeing its inputs, keep a value alive while an alias of it "
        "is read, and keep the outputs alive to the end)" if g < w else
        " (too high: free each value after its last reader; views and in-place ops allocate nothing)"),
}


def as_number(value: Any) -> Any:
    """A number of any kind (numpy's too) as a Python int or float, so it travels as one; anything else as it is."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return int(value) if isinstance(value, numbers.Integral) else float(value)
    return value


AGAIN = (" (this graph was measured just before with inputs of other shapes: run ShapeProp on every call, so the "
         "shapes are this call's)")


def bytes_problems(fn_name: str, got: list, want: list[int], about: list[str], reveal: bool = True,
                   again: list[bool] | None = None, telling: list[dict] | None = None) -> list[str]:
    """Messages for the cases where a byte count is not the rule's; reveal=False keeps the expected numbers hidden;
    `again`: the cases measured a second time (after other inputs); `telling`: per case, wrong counts that tell a
    mistake apart (a count → what it suggests, see telling_counts)."""
    problems = []
    for g, w, what, twice, tells in zip(got, want, about, again or [False] * len(got), telling or [{}] * len(got)):
        if isinstance(g, str):
            hint = (" (a call node whose result is not a tensor, such as x.size(0), has no TensorMetadata: count it "
                    "as 0 bytes)") if "tensor_meta" in g or "'NoneType' object has no attribute" in g else \
                (" (a bool or integer tensor, such as the mask x > 0, has no torch.finfo: take the bytes per element "
                 "from meta.dtype.itemsize, 1 for a bool)") if "finfo" in g else ""
            problems.append(f"{fn_name} {g} on {what}{hint}.")
        elif not isinstance(g, (int, float)) or isinstance(g, bool):
            problems.append(f"{fn_name} should return a number of bytes; on {what} it returned a {type(g).__name__}.")
        elif g != w:
            said = f"on {what}: {g:,} bytes, expected {w:,}" if reveal else \
                f"on {what}: {g:,} bytes is {'too low' if g < w else 'too high'} for the rule"
            hint = AGAIN if twice else BYTES_HINTS[fn_name](g, w) + tells.get(g, "")
            problems.append(f"{said}{hint}.")
    return problems


def bytes_check(ctx: Context, fn_name: str, cases: list[BytesCase]) -> None:
    """Run the learner's byte count on every case (the inputs travel, the expected numbers stay here) and judge it."""
    got = ctx.probe(probe_bytes, fn_name, [(c.fn, c.inputs, c.before) for c in cases])
    fail_if(bytes_problems(fn_name, got, [c.want for c in cases], [c.about for c in cases], ctx.reveal,
                           [bool(c.before) for c in cases], [telling_counts(fn_name, c) for c in cases]))


SCALARS_READ = (" (it is the rule's count plus 4 bytes for every number a node reads: numbers such as the 1 of x + 1 "
                "or the -1 of view(-1) are free, they are not tensors in memory; count only the tensors a node reads)")
ALIVE_AT_END = (" (it equals the bytes of the graph's outputs alone, what is alive when the walk ends: is the last "
                "total returned instead of the largest one seen while walking?)")


def telling_counts(fn_name: str, case: BytesCase) -> dict:
    """Counts of the case's graph that tell a mistake apart from the rule's, each with what it suggests: for
    traffic_bytes, the rule's count plus 4 bytes for every number a call node reads (a scalar read as an fp32
    tensor); for estimate_peak_bytes, the bytes of the graph's outputs alone (what is alive when the walk ends)."""
    try:
        gm = fx.symbolic_trace(case.fn)
        calls_ = [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]
        if fn_name == "traffic_bytes":
            number = lambda a: isinstance(a, (int, float)) and not isinstance(a, bool)
            in_args = sum(number(a) for n in calls_ for a in n.args)
            in_all = in_args + sum(number(a) for n in calls_ for a in n.kwargs.values())
            return {case.want + 4 * k: SCALARS_READ for k in {in_args, in_all} if k}
        if fn_name == "estimate_peak_bytes":
            from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

            with torch.no_grad():
                ShapeProp(gm).propagate(*[t.clone() for t in case.inputs])
            out = next((n for n in reversed(gm.graph.nodes) if n.op == "output"), None)
            metas = [i.meta.get("tensor_meta") for i in (out.all_input_nodes if out else []) if i in calls_]
            final = sum(math.prod(m.shape) * m.dtype.itemsize for m in metas if isinstance(m, TensorMetadata))
            return {final: ALIVE_AT_END} if final != case.want else {}
    except Exception:       # a hint only: never in the way of the check
        pass
    return {}


def traffic_cases() -> list[BytesCase]:
    """Graphs whose traffic was worked out by hand from the notebook's rule."""
    f32, f16, n = 4, 2, 100 * 37
    return [
        BytesCase("chain_ops on a 100×37 fp32 tensor", chain_ops, tensors(1, (100, 37)), 5 * 2 * n * f32),
        BytesCase("(x + b).relu() * b with a broadcast bias b of 32 elements", bias_relu_scale, tensors(2, (64, 32), (32,)),
                  f32 * ((2048 + 32 + 2048) + (2048 + 2048) + (2048 + 32 + 2048))),
        BytesCase("(x * x).sigmoid() in fp16 (x is read once by x * x)", square_sigmoid,
                  tensors(3, (10, 10), dtype=torch.float16), f16 * (100 + 100 + 100 + 100)),
        BytesCase("Linear(16, 8) then ReLU as modules (the Linear reads its weight and bias)", seeded(linear_relu, 4),
                  tensors(4, (4, 16)), f32 * (64 + 32 + 8 * 16 + 8) + f32 * (32 + 32)),
        BytesCase("a BatchNorm1d(8) module (weight, bias and three buffers) times a parameter read by get_attr",
                  seeded(NormScale, 6), tensors(6, (4, 8)),
                  f32 * (32 + 32 + 4 * 8) + 8 + f32 * (32 + 8 + 32)),
        BytesCase("torch.cat([x, y]).sigmoid() * 2: a list of two inputs of one size, 10×6 each", cat_sigmoid,
                  tensors(7, (10, 6), (10, 6)), f32 * ((60 + 60 + 120) + (120 + 120) + (120 + 120))),
        BytesCase("one Linear(8, 8) called twice, fc(fc(x).relu()): each call reads its weight and bias",
                  seeded(TwiceLinear, 8), tensors(8, (4, 8)), f32 * (2 * (32 + 32 + 64 + 8) + (32 + 32))),
        BytesCase("chain_ops on 1000 fp32 elements, right after a call on 10 elements with the same graph", chain_ops,
                  tensors(9, (1000,)), 5 * 2 * 1000 * f32, before=tensors(10, (10,))),
        BytesCase("the empty graph", identity, tensors(5, (5,)), 0),
    ]


# Graphs every run judges, the notebook's and the grader's: what they ask follows from the rule alone (an input read
# in its own dtype, not the node's; a call node nobody reads still runs in eager, so it is counted).
EVERY_RUN_TRAFFIC = (
    BytesCase("(x.half() * y).relu() with x fp32 and y fp16, 6×10 each: one conversion reads 4 bytes an element and "
              "writes 2", half_mul_relu, (tensors(11, (6, 10))[0], tensors(12, (6, 10), dtype=torch.float16)[0]),
              4 * 60 + 2 * 60 + 3 * 2 * 60 + 2 * 2 * 60),
    BytesCase("x.exp() read by nothing, then (x.sigmoid() * 2).relu(), on 100 fp32 elements: a value nobody reads is "
              "still computed, so its kernel counts", dead_value, tensors(13, (100,)), 4 * 2 * 100 * 4),
    BytesCase("x.t().sigmoid() * 2 on a 6×10 fp32 x: x.t() is a call node, so by the rule it counts as a kernel "
              "(it reads x and writes its result) like any other", transpose_sigmoid, tensors(14, (6, 10)),
              3 * 2 * 60 * 4),
    BytesCase("h = x.exp(); h.mul_(y); h.sigmoid() on 6×10 fp32 x and y: the in-place h.mul_(y) is a call node like "
              "any other (it reads h and y, and writes its result, h, again)", scale_in_place, tensors(15, (6, 10), (6, 10)),
              (2 + 3 + 2) * 60 * 4),
    BytesCase("torch.where(x > 0, x, 0.0) * 2 on 60 fp32 elements: x > 0 writes a bool mask, 1 byte an element, which "
              "torch.where reads with x", where_positive, tensors(16, (6, 10)), 60 * ((4 + 1) + (1 + 4 + 4) + (4 + 4))),
)


@register("03.traffic", points=2, exercise="1", title="traffic_bytes counts the bytes every call node moves",
          cases=traffic_cases)
def _traffic(ctx: Context, cases: list[BytesCase]) -> str:
    cases = [*cases, *EVERY_RUN_TRAFFIC]
    bytes_check(ctx, "traffic_bytes", cases)
    return f"right on all {len(cases)} graphs"


# ---------------------------------------------------------------- 2a: chains
@dataclass(frozen=True)
class ChainCase:
    """A maker of a graph, and its facts by the lab's rules (None: by the notebook's own vocabulary cell)."""

    about: str
    make: Callable
    facts: dict | None = None


def graph_facts(gm: fx.GraphModule, elementwise_op: Callable, mutates: Callable) -> dict:
    """The graph as the chain rules see it: node order, inputs, readers, elementwise nodes, in-place nodes."""
    nodes = list(gm.graph.nodes)
    return {"nodes": [n.name for n in nodes],
            "what": {n.name: f"{n.op} {getattr(n.target, '__name__', n.target)}" for n in nodes},
            "inputs": {n.name: [i.name for i in n.all_input_nodes] for n in nodes},
            "users": {n.name: [u.name for u in n.users] for n in nodes},
            "fusible": [n.name for n in nodes if elementwise_op(gm, n) is not None],
            "mutating": [n.name for n in nodes if mutates(gm, n)]}


def probe_chains(learner: Learner, make: Callable, with_facts: bool) -> dict:
    """The learner's chains on a fresh trace, as lists of node names (or what went wrong); the graph's facts by the
    notebook's vocabulary when asked."""
    gm = trace(make)
    info: dict = {"facts": graph_facts(gm, learner.fn("elementwise_op"), learner.fn("mutates")) if with_facts else None}
    try:
        chains = learner.call("find_fusible_chains", gm)
    except CheckFailed:
        raise
    except Exception as err:
        info["found"] = f"raised {failure(err, 500)}"
        return info
    if not isinstance(chains, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in chains):
        info["found"] = f"returned a {type(chains).__name__}, not a list of lists of nodes"
    elif not all(isinstance(n, fx.Node) for chain in chains for n in chain):
        info["found"] = "returned a chain that holds something that is not an fx.Node"
    else:
        info["found"] = [[n.name for n in chain] for chain in chains]
    return info


def chain_problems(facts: dict, found: Any, about: str) -> list[str]:
    """What is wrong with `found` (lists of node names) as the fusible chains of the graph `facts` describe."""
    if isinstance(found, str):
        return [f"find_fusible_chains {found} on {about}."]
    order = {name: i for i, name in enumerate(facts["nodes"])}
    writes_at = [order[n] for n in facts["mutating"]]
    fusible, users, inputs = set(facts["fusible"]), facts["users"], facts["inputs"]

    def crosses(a: str, b: str) -> bool:
        return any(order[a] < m < order[b] for m in writes_at)

    def can_link(a: str, b: str) -> bool:
        return a in fusible and b in fusible and users[a] == [b] and not crosses(a, b)

    problems, owner = [], {}
    for names in found:
        where = f"on {about}, the chain {' → '.join(names)}"
        unknown = [n for n in names if n not in order]
        if unknown:
            return [f"{where} names nodes that are not in the graph ({', '.join(unknown)}): return the graph's own nodes."]
        if len(names) < 2:
            problems.append(f"{where} has one node: a chain has two or more (a single op has nothing to fuse with).")
        for n in names:
            if n in owner:
                problems.append(f"on {about}, node {n} is in two chains: chains must not share nodes.")
            owner[n] = names
            if n not in fusible:
                problems.append(f"{where} contains {n} ({facts['what'][n]}), which is not elementwise "
                                "(elementwise_op returns None).")
        if len(names) > 1 and all(b in inputs[a] for a, b in zip(names, names[1:])):
            problems.append(f"{where} is listed from its last node back to its first: list each chain in graph order, "
                            f"each node after the one it reads.")
            continue
        for a, b in zip(names, names[1:]):
            if a not in inputs[b]:
                problems.append(f"{where}: {b} does not read {a}; each node must read the one before it.")
            elif len(users[a]) != 1:
                output = " (the graph's output node is one of them: a returned value is read too)" \
                    if any(facts["what"].get(u, "").startswith("output") for u in users[a]) else ""
                problems.append(f"{where}: {a} has {len(users[a])} readers{output}, so it must be written to memory "
                                "and ends its chain.")
            elif crosses(a, b):
                problems.append(f"{where} reaches across an in-place op between {a} and {b} (rule 3; an in-place op "
                                "is any node mutates() says so, whatever its spelling: x.add_(1), torch.relu_(x), "
                                "F.relu(x, inplace=True)).")
    if problems:
        return problems
    first = {names[0]: names for names in found}
    for names in found:
        last, head = names[-1], names[0]
        if len(users[last]) == 1:
            nxt = users[last][0]
            if can_link(last, nxt) and (nxt not in owner or nxt in first):
                problems.append(f"on {about}, the chain ending at {last} could go on into {nxt}: chains must be maximal.")
        for prev in inputs[head]:
            if can_link(prev, head) and (prev not in owner or owner[prev][-1] == prev):
                problems.append(f"on {about}, the chain starting at {head} could start earlier, at {prev}.")
    for a in sorted(fusible - set(owner), key=order.get):
        for b in users[a]:
            if b not in owner and can_link(a, b):
                problems.append(f"on {about}, {a} → {b} is a chain that was not found.")
    return problems


CHAIN_CASES = [
    ChainCase("a model with every spelling (call_function, call_method, call_module), a two-input op and a value with "
              "two readers", Spellings),
    ChainCase("a fan-out and a join (one value read by two paths that meet again)", Branches),
    ChainCase("an in-place op between two elementwise ops", MutatesBetween),
    ChainCase("activation modules inside an nn.Sequential", Modules),
    ChainCase("a view between elementwise ops (x.relu().view(-1).sigmoid() * 2).exp()", Traced(view_between)),
    ChainCase("a chain that ends at a value with two readers, h = (x.relu() * 2).sigmoid(); h.exp() + h",
              Traced(two_readers_end)),
    ChainCase("a graph with a single op", Single),
    ChainCase("the empty graph", Empty),
    ChainCase("a graph that is already fused (two call_module nodes of fused chains)", already_fused),
]


# A graph every run judges, the notebook's and the grader's (its facts by the notebook's own vocabulary cell).
EVERY_RUN_CHAINS = (
    ChainCase("an in-place op spelled as a function, torch.relu_(y), between two elementwise ops",
              Traced(relu_inplace_between)),
    ChainCase("a view of another tensor, y.t(), between two ops of one chain (a view is not an in-place op: "
              "mutates() says no)", Traced(view_between_links)),
    ChainCase("a value that is returned and also read by the next op, h = x.relu() * 2; return h, h.sigmoid()",
              Traced(returned_and_read)),
    ChainCase("a chain whose ops are not next to each other in graph order, a = x.relu(); b = y.sigmoid(); "
              "(a * 2) * b (sigmoid comes between relu and its reader)", LateInput),
    ChainCase("h = x.relu(); (h * h).sigmoid(): h * h reads h twice but is one reader (len(h.users) == 1)",
              Traced(square_in_chain)),
)


@register("03.chains", points=2, exercise="2a", title="find_fusible_chains finds maximal chains, every spelling",
          cases=CHAIN_CASES)
def _chains(ctx: Context, cases: list[ChainCase]) -> str:
    problems = []
    cases = [*cases, *EVERY_RUN_CHAINS]
    for case in cases:
        info = ctx.probe(probe_chains, case.make, case.facts is None)
        problems += chain_problems(info["facts"] if case.facts is None else case.facts, info["found"], case.about)
    fail_if(problems)
    return f"maximal chains on all {len(cases)} graphs"


# ---------------------------------------------------------------- 2b: fuse
@dataclass(frozen=True)
class FuseCase:
    """A model, the chains (node names of its trace) to fuse in order, and its inputs."""

    about: str
    model: nn.Module
    chains: tuple
    inputs: tuple
    hint: str = ""      # what a failure on this case most likely means, added to its message

    def want(self) -> Any:
        """The model's own output, computed where the check is judged."""
        with torch.no_grad():
            return self.model(*[t.clone() for t in self.inputs])


def probe_fuse(learner: Learner, model: nn.Module, chains: list[list[str]], inputs: tuple) -> dict:
    """Fuse the named chains with the learner's fuse_chain; report what the graph became and what it computes, and
    the submodule names a second, fresh trace of the same model gets (they must not depend on earlier graphs)."""
    own = ("fuse_chain calls library_fuse, the notebook's stand-in for exercise 2b (torch.fx's fuse_by_partitions, run "
           "for you while fuse_chain was a stub): write the fusion yourself, as the steps above say (an fx.Graph of "
           "the chain, one call_module node).")
    with stand_in_refused(learner, "library_fuse", own):
        report = fuse_once(learner, model, chains, inputs)
        if not report["error"]:
            again = fuse_once(learner, model, chains, inputs)
            report["targets_again"] = [r.get("target") for r in again["returned"]]
    return report


def fuse_once(learner: Learner, model: nn.Module, chains: list[list[str]], inputs: tuple) -> dict:
    """One fresh trace of the model, its chains fused with the learner's fuse_chain."""
    gm = fx.symbolic_trace(model)
    nodes = {n.name: n for n in gm.graph.nodes}
    report: dict = {"before": calls(gm), "returned": [], "error": None}
    try:
        for names in chains:
            new = learner.call("fuse_chain", gm, [nodes[n] for n in names])
            sub = gm.get_submodule(new.target) if isinstance(new, fx.Node) and new.op == "call_module" else None
            report["returned"].append({
                "node": isinstance(new, fx.Node), "op": getattr(new, "op", type(new).__name__),
                "graph_module": isinstance(sub, fx.GraphModule), "target": str(getattr(new, "target", "")),
                "args": [a.name for a in new.args if isinstance(a, fx.Node)] if isinstance(new, fx.Node) else [],
                "sub_calls": calls(sub) if isinstance(sub, fx.GraphModule) else 0})
        gm.graph.lint()
        gm.recompile()
        with torch.no_grad():
            report["output"] = gm(*[t.clone() for t in inputs])
    except CheckFailed:
        raise
    except Exception as err:
        report["error"] = failure(err)
        return report
    report["after"] = calls(gm)
    return report


@contextlib.contextmanager
def stand_in_refused(learner: Learner, name: str, why: str):
    """While active, the notebook's stand-in `name` (imported from this module for while an exercise is a stub) fails
    the check with `why` when the learner's code calls it: the exercise is to write it."""
    def refuse(*args, **kwargs):
        raise CheckFailed(why)

    original = globals()[name]
    globals()[name] = refuse
    try:
        with learner.replacing(name, refuse) if name in learner.ns else contextlib.nullcontext():
            yield
    finally:
        globals()[name] = original


def fuse_problems(report: dict, chain_lengths: list[int], want: Any, about: str, reveal: bool = True,
                  hint: str = "") -> list[str]:
    """Why the fused graph is not one call_module node per chain computing what the model computes."""
    problems = []
    for length, r in zip(chain_lengths, report["returned"]):
        if not r["node"]:
            problems.append(f"on {about}, fuse_chain returned a {r['op']}: return the new fx.Node.")
        elif r["op"] != "call_module" or not r["graph_module"]:
            problems.append(f"on {about}, the new node is a {r['op']} node; make it a call_module node whose submodule "
                            f"is an fx.GraphModule of the chain (the backend needs to find it).")
        elif r["sub_calls"] != length:
            problems.append(f"on {about}, a fused submodule holds {r['sub_calls']} call nodes for a chain of {length}.")
        twice = sorted({a for a in r.get("args", []) if r["args"].count(a) > 1})
        if twice:
            problems.append(f"on {about}, the fused node passes " + (twice[0] if reveal else "an outside input")
                            + " more than once: make one placeholder per distinct outside input (in the order you "
                              "first meet them), so the kernel reads it once.")
    targets = [r.get("target") for r in report["returned"] if r["op"] == "call_module"]
    if len(set(targets)) < len(targets):
        problems.append(f"on {about}, two chains were fused into the same submodule name ({targets[0]}): the second "
                        f"replaced the first; give each fused submodule a name that is not taken yet.")
    elif "targets_again" in report and report["targets_again"] != [r.get("target") for r in report["returned"]]:
        problems.append(f"on {about}, fusing a fresh trace of the same model a second time named its submodules "
                        f"{', '.join(map(str, report['targets_again']))} instead of {', '.join(targets)}: the names "
                        f"depend on graphs fused before (a counter shared across graphs?). Pick the first name not "
                        f"taken in this graph, so every graph starts at fused_0 (run-4 and memfuse look them up).")
    case_todo, case_hint = hint, f" ({hint})" if hint else ""
    if report["error"]:
        hint = (" (the fused node reads an outside input made after the chain's first node: insert it where the "
                "chain's last node was, when every input exists)") if "before it has been defined" in report["error"] else ""
        return problems + [f"on {about}, fusing raised {report['error']}{hint}{case_hint}."]
    saved = sum(n - 1 for n in chain_lengths)
    if report["after"] != report["before"] - saved:
        hint = ("erase the chain's nodes" if report["after"] > report["before"] - saved else
                "erase the chain's nodes and nothing else: eliminate_dead_code would also drop in-place ops and "
                "values nobody reads")
        problems.append(f"on {about}, the graph went from {report['before']} to {report['after']} call nodes; fusing "
                        f"chains of {chain_lengths} nodes should leave {report['before'] - saved} ({hint}).")
    diff = close_all(report["output"], want, atol=1e-5, rtol=1e-5, reveal=reveal)
    if diff:
        todo = case_todo or "pass every outside input to the fused node, in the order of its placeholders"
        problems.append(f"on {about}, the fused graph's output {diff}: {todo}.")
    return problems


def fuse_cases() -> list[FuseCase]:
    return [
        FuseCase("a model with every spelling and a two-input op", seeded(Spellings, 300),
                 (("relu", "sigmoid", "act", "add", "silu"), ("exp", "add_1")), tensors(300, (3, 6), (3, 6))),
        FuseCase("a fan-out and a join", seeded(Branches, 301), (("sigmoid", "mul", "sub"), ("tanh", "add", "mul_1")),
                 tensors(301, (3, 6), (3, 6))),
        FuseCase("activation modules in a Sequential, and a value read twice", seeded(Modules, 302),
                 (("seq_1", "seq_2"), ("seq_4", "seq_5", "mul")), tensors(302, (3, 6), (3, 6))),
        FuseCase("a chain whose last op reads a value computed after its first op", LateInput(),
                 (("relu", "mul", "mul_1"),), tensors(303, (3, 6), (3, 6))),
        FuseCase("two chains on either side of an in-place op (y.add_(1))", MutatesBetween(),
                 (("sigmoid", "mul"), ("mul_1", "relu", "add")), tensors(304, (3, 6), (3, 6))),
        FuseCase("a chain read as the second operand of a matmul (x @ h), and one read by keyword "
                 "(torch.where(..., other=g))", SecondOperand(), (("relu", "mul", "tanh"), ("exp", "add", "sigmoid", "mul_1")),
                 tensors(307, (3, 6), (6, 6)),
                 hint="the fused node must take the place of the chain's last node wherever that was read, as any "
                      "argument or keyword (an fx.Node's replace_all_uses_with rewires every reader)"),
    ]


def every_run_fuse() -> list[FuseCase]:
    """Models every run fuses, the notebook's and the grader's: a chain whose ops take keyword arguments, and two
    chains whose fused names must differ though the graph's count of call_module nodes does not change."""
    return [FuseCase("a chain whose ops take keyword arguments, torch.sub(torch.add(x, x, alpha=2).relu(), other=y)"
                     ".clamp(min=-0.5) (y is read by keyword only)", KeywordChain(), (("add", "relu", "sub", "clamp"),),
                     tensors(305, (3, 6), (3, 6)),
                     hint="copy each chain node whole, its keyword arguments too: graph.node_copy(node, lambda n: "
                          "env[n]) keeps alpha=, other= and min=; and find the chain's outside inputs in its "
                          "keyword arguments too (node.all_input_nodes holds them all)"),
            FuseCase("two chains around a Linear, the first ending in an activation module (after the first fusion the "
                     "graph holds as many call_module nodes as before)", seeded(ModuleChains, 306),
                     (("relu", "act"), ("exp", "mul", "sigmoid")), tensors(306, (3, 6)))]


@register("03.fuse", points=2, exercise="2b", title="fuse_chain replaces a chain by one node that computes the same",
          cases=fuse_cases)
def _fuse(ctx: Context, cases: list[FuseCase]) -> str:
    problems = []
    cases = [*cases, *every_run_fuse()]
    for case in cases:
        report = ctx.probe(probe_fuse, case.model, [list(c) for c in case.chains], case.inputs)
        problems += fuse_problems(report, [len(c) for c in case.chains], case.want(), case.about, ctx.reveal,
                                  case.hint)
    fail_if(problems)
    return f"outputs equal and one node per chain on {len(cases)} models, with outside inputs passed on"


# ---------------------------------------------------------------- 3: the hand-written kernel
@dataclass(frozen=True)
class KernelCase:
    """An input of chain_triton (on the CPU; the probe moves it to the run's device), the block size to use, and the
    strided view of it the kernel is given (LAYOUTS)."""

    about: str
    x: torch.Tensor
    block: int
    layout: str = ""

    def input(self) -> torch.Tensor:
        return LAYOUTS[self.layout](self.x)


# A tensor → the strided view of it a kernel is given, made on the run's device (a strided tensor moved with .to()
# arrives contiguous on a GPU). Sliced and expanded views are not one block of memory: read them as one, and the
# kernel reads the wrong elements.
LAYOUTS = {
    "": lambda t: t,
    "sliced": lambda t: t[:, ::2],
    "expanded": lambda t: t[:1].expand(t.shape[0], *t.shape[1:]),
    "channels_last": lambda t: t.contiguous(memory_format=torch.channels_last),
    "every_other": lambda t: t.flatten()[::2],
}


def reference_chain(x: torch.Tensor) -> torch.Tensor:
    """chain_ops in fp32, rounded once to x's dtype."""
    return chain_ops(x.float()).to(x.dtype)


def probe_kernel(learner: Learner, inputs: list[tuple], bad_block: int) -> dict:
    """Run the learner's chain_triton on each (input, block, layout), recording ATen compute ops, dtype conversions,
    the programs launched and whether the input was left as it was; then two calls on inputs of one shape (the first
    result must survive the second), and a bad block size."""
    device = device_of(learner)
    outs = []
    for x, block, layout in inputs:
        guard = GuardSpace()            # under the interpreter: guard space after every tensor (see GuardSpace)
        with guard:
            x = LAYOUTS[layout](guard.guard(x.to(device)))
        before = x.clone()
        rec = Conversions()
        try:
            with watched_launches(device) as launches, rec, guard, guard.reads_watched():
                y = learner.call("chain_triton", x, block=block)
            if guard.overrun() or guard.overread:
                outs.append({"error": f"ran a kernel that {OVERRUN if guard.overrun() else OVERREAD}", "overrun": True})
                continue
            if isinstance(y, torch.Tensor) and y.device.type != x.device.type:
                outs.append({"wrong_device": True})
                continue
            outs.append({"out": y, "aten": rec.computed(), "converted": sorted(set(rec.converted)),
                         "programs": launches.programs, "watched": launches.watching, "launched": launches.launched,
                         "input_changed": not torch.equal(x, before) or (
                             isinstance(y, torch.Tensor) and y.numel() > 0 and
                             y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())})
        except CheckFailed:
            raise
        except WrongDevice:
            outs.append({"wrong_device": True})
        except Exception as err:
            outs.append({"error": failure(err)})
    return {"outs": outs, "reused": reused_output(learner, inputs[0][0], device), "whole_blocks": whole_blocks(
        learner, device), "bad_block": bad_block_refused(
        learner, inputs[0][0][:10].to(device), bad_block), "zero_block": bad_block_refused(
        learner, inputs[0][0][:10].to(device), 0), "device": str(device)}


WHOLE = (256, 128)      # every run: elements, block; the block divides the size, so cdiv is exactly 2 programs


def whole_blocks(learner: Learner, device: torch.device) -> int | None:
    """The programs chain_triton(x, block=128) launches for 256 elements, two whole blocks (under the interpreter,
    which counts them); None when it did not run or nothing was counted."""
    n, block = WHOLE
    guard = GuardSpace()
    try:
        with guard:
            x = guard.guard(torch.linspace(-3, 3, n).to(device))
        with watched_launches(device) as launches, guard:
            learner.call("chain_triton", x, block=block)
        return launches.programs[0] if launches.programs and not guard.overrun() else None
    except CheckFailed:
        raise
    except Exception:
        return None


def bad_block_refused(learner: Learner, x: torch.Tensor, bad_block: int) -> str | None:
    """None when chain_triton raises ValueError for a block that is not a power of two; what it did otherwise."""
    try:
        learner.function("chain_triton")(x, block=bad_block)
        return "returned normally"
    except ValueError:
        return None
    except Exception as err:
        return f"raised {type(err).__name__}, not ValueError"


def reused_output(learner: Learner, x: torch.Tensor, device: torch.device) -> bool | None:
    """Two calls of chain_triton on inputs of one shape: True when the second changed the first one's result (an
    output buffer kept from call to call); None when they did not run."""
    x = x.flatten()[:300].to(device)
    guard = GuardSpace()
    try:
        with guard:
            first = learner.call("chain_triton", guard.guard(x))
            kept = first.clone()
            second = learner.call("chain_triton", guard.guard(-x))
        if guard.overrun() or not all(isinstance(t, torch.Tensor) for t in (first, second)):
            return None
        return not torch.equal(first, kept) or first.untyped_storage().data_ptr() == second.untyped_storage().data_ptr()
    except CheckFailed:
        raise
    except Exception:
        return None


def kernel_problems(report: dict, cases: list[KernelCase], bad_block: int, reveal: bool = True) -> list[str]:
    """Wrong results, PyTorch ops run instead of the kernel, fp16 not computed in fp32, a bad block size accepted."""
    problems = []
    for case, r in zip(cases, report["outs"]):
        about, x = case.about, case.input()
        if r.get("overrun"):
            problems.append(f"on {about}, chain_triton {r['error']}.")
            continue
        if r.get("wrong_device"):
            problems.append(f"on {about}, chain_triton allocated a tensor on the default device, not on x's (a "
                            f"torch.empty(...) without device=): on a GPU the kernel would get a CPU pointer. Allocate "
                            f"with torch.empty_like(x), or pass device=x.device.")
            continue
        if "error" in r:
            hint = (" (every launch needs a BLOCK that is a power of two, as tl.arange does: launch with the block you "
                    "were given, or round a smaller one up with triton.next_power_of_2)"
                    if "power of 2" in r["error"] else "")
            problems.append(f"on {about}, chain_triton raised {r['error']}{hint}.")
            continue
        if r["aten"]:
            problems.append(f"on {about}, PyTorch ops ran ({', '.join(r['aten'])}): compute inside the Triton kernel, "
                            f"not with torch.")
        if r.get("converted"):
            problems.append(f"on {about}, the launcher converted with PyTorch ({', '.join(r['converted'])}): each "
                            f"conversion is one more pass over memory, the traffic fusing removes. Pass x as it is, "
                            f"convert the loaded values inside the kernel (.to(tl.float32)) and round once, at the "
                            f"store.")
        if r.get("input_changed"):
            problems.append(f"on {about}, chain_triton changed its input x (the result was written in place): "
                            f"return a new tensor and leave x as it was.")
        n = math.prod(x.shape)
        want_programs = -(-n // case.block)
        if n and r.get("watched") and not r.get("launched") and not r["aten"]:
            problems.append(f"on {about}, chain_triton launched no Triton kernel: the result came from somewhere else "
                            f"(torch.compile, or another compiler's kernel). Launch your own chain_kernel.")
        if n and r.get("programs") and want_programs not in r["programs"]:
            ran = r["programs"][0]
            problems.append(f"on {about}, chain_triton(x, block={case.block}) launched "
                            + (f"{ran:,} program{'s' * (ran != 1)}, not triton.cdiv({n:,}, {case.block}) = "
                               f"{want_programs:,}" if reveal else "a grid that does not fit the block it was given")
                            + ": launch (triton.cdiv(n, block),) programs with BLOCK=block.")
        want = reference_chain(x)
        diff = close(r["out"], want, atol=TOLERANCE[x.dtype], reveal=reveal)
        if not diff:
            problems += rounding_problems(r["out"], want, about)
        elif diff.startswith("returned shape"):
            problems.append(f"on {about}, the result {diff}: return a tensor of x's shape (a view of a flat output "
                            f"back to x.shape costs nothing).")
        elif case.layout in ("sliced", "expanded", "every_other"):
            problems.append(f"on {about}, the result {diff}. This input is not one block of memory: make it "
                            f".contiguous() before the kernel reads it as one.")
        else:
            problems.append(f"on {about}, the result {diff}. Check the masks (offsets < n_elements) and that the "
                            f"arithmetic is done in fp32 and rounded once, at the store."
                            + first_block_only(r["out"], want, case.block, TOLERANCE[x.dtype]))
    n, block = WHOLE
    if report.get("whole_blocks") not in (None, n // block):
        problems.append(f"on {n} elements with block={block} (two whole blocks), chain_triton launched "
                        f"{report['whole_blocks']} programs, not triton.cdiv({n}, {block}) = {n // block}: launch "
                        f"(triton.cdiv(n, block),) programs (n // block + 1 is one too many when the block divides n).")
    if report.get("reused"):
        problems.append("a second call of chain_triton on an input of the same shape changed the result of the first "
                        "(the same output tensor returned twice): allocate a new output on every call.")
    if report["bad_block"]:
        problems.append(f"block={bad_block} (not a power of two) {report['bad_block']}: raise ValueError and say why.")
    if report.get("zero_block"):      # every run: 0 is no power of two, though 0 & (0 - 1) == 0
        problems.append(f"block=0 {report['zero_block']}: 0 is not a power of two either (block & (block - 1) is 0 for "
                        f"it), so raise ValueError for any block < 1 too.")
    return problems


def rounding_problems(out: torch.Tensor, want: torch.Tensor, about: str) -> list[str]:
    """fp16 results that are close but not 'computed in fp32, rounded once' (`want`): the arithmetic ran in fp16."""
    if want.dtype != torch.float16 or not want.numel():      # (Triton's interpreter truncates to bf16)
        return []
    same = (out.cpu() == want).float().mean().item()
    if same >= 0.99:
        return []
    return [f"on {about}, only {same:.1%} of the results equal 'compute in fp32, round once': convert the loaded "
            f"values to fp32 (.to(tl.float32)) and round once, when storing."]


def first_block_only(got: Any, want: torch.Tensor, block: int, atol: float, rtol: float = 0.0) -> str:
    """A hint when a kernel's result is right on its first block (the first `block` elements in memory order) and
    wrong after it: programs past the first compute the wrong elements or none ("" otherwise)."""
    if not isinstance(got, torch.Tensor) or got.shape != want.shape or got.dtype != want.dtype or want.numel() <= block:
        return ""
    g, w = got.detach().cpu().reshape(-1).double(), want.detach().cpu().reshape(-1).double()
    bad = ~((g - w).abs() <= atol + rtol * w.abs())
    if not bool(bad.any()) or int(torch.nonzero(bad)[0]) < block:
        return ""
    return (" Its first block of BLOCK elements is right and later elements are not: program p must handle elements "
            "p·BLOCK to p·BLOCK + BLOCK − 1 (offsets from tl.program_id(0) · BLOCK), masked with offsets < n_elements, "
            "on a grid of triton.cdiv(n, BLOCK) programs.")


def kernel_cases() -> tuple[list[KernelCase], int]:
    """Awkward inputs and strided views, and a block size that is not a power of two."""
    big, one, empty, wide, short, odd = tensors(3, (131, 781), (1,), (0, 5), (37, 300), (1000,), (4097,))
    sliced, row, image, small = tensors(4, (64, 100), (40, 33), (2, 3, 5, 7), (3, 7))
    return ([KernelCase("a 131×781 fp32 tensor (not a multiple of the block: 100 blocks, the last of 935)", big, 1024),
             KernelCase("a single element", one, 1024),
             KernelCase("a 3×7 fp32 tensor, 21 elements: fewer than one block of 1024", small, 1024),
             KernelCase("an empty tensor", empty, 1024),
             KernelCase("a transposed (non-contiguous) 300×37 fp16 tensor", wide.half().t(), 1024),
             KernelCase("1000 bf16 elements with block=128", (short * 4).bfloat16(), 128),
             KernelCase("4097 fp32 elements with block=4096 (one element in the last block)", odd, 4096),
             KernelCase("every other column of a 64×100 fp32 tensor (a strided view)", sliced, 1024, "sliced"),
             KernelCase("one row expanded to 40 rows (stride 0)", row, 256, "expanded"),
             KernelCase("a channels-last 2×3×5×7 fp32 tensor", image, 128, "channels_last"),
             KernelCase("every other element of a 1000-element fp32 vector (a 1-D strided view)", short, 256,
                        "every_other")], 1000)


@register("03.triton_kernel", points=2, exercise="3", title="the hand-written Triton kernel is right on awkward sizes",
          cases=kernel_cases)
def _triton_kernel(ctx: Context, cases: tuple[list[KernelCase], int]) -> str:
    kernels, bad_block = cases
    report = ctx.probe(probe_kernel, [(c.x, c.block, c.layout) for c in kernels], bad_block, timeout=240)
    fail_if(kernel_problems(report, kernels, bad_block, ctx.reveal))
    return f"right on {len(kernels)} awkward inputs ({report['device']}), and a bad block size is refused"


# ---------------------------------------------------------------- 4: generated kernels
@dataclass(frozen=True)
class CodegenCase:
    """A chain (a function to trace), its inputs, and whether every op is in TRITON_EXPR (a kernel must be generated)."""

    about: str
    fn: Callable
    inputs: tuple
    supported: bool
    block: int = 1024        # TritonChain's block: the generated kernel must use the BLOCK it is launched with

    @property
    def dtype(self) -> torch.dtype:
        """The output's dtype: the inputs' dtypes promoted (fp16 with fp32 gives fp32), as TritonChain allocates it."""
        dtype = self.inputs[0].dtype
        for t in self.inputs[1:]:
            dtype = torch.promote_types(dtype, t.dtype)
        return dtype

    def want(self) -> torch.Tensor:
        """The chain in float64, rounded to the output's dtype."""
        return self.fn(*[t.double() for t in self.inputs]).to(self.dtype)

    def rounded_once(self) -> torch.Tensor:
        """The chain in fp32, rounded once to the output's dtype: what a kernel computing in fp32 stores."""
        return self.fn(*[t.float() for t in self.inputs]).to(self.dtype)


def probe_codegen(learner: Learner, fn: Callable, inputs: tuple, block: int = 1024) -> dict:
    """Build a TritonChain of the traced chain and run it on the run's device, recording ATen compute ops and launches
    (first, emit_triton asked for a kernel of a name of the probe's: is it called what it is asked to be?)."""
    device = device_of(learner)
    guard = GuardSpace()
    inputs = [guard.guard(t.to(device)) for t in inputs]
    gm = fx.symbolic_trace(fn)
    runner_cls = learner.value("TritonChain")
    try:
        source = learner.call("emit_triton", fx.symbolic_trace(fn), "kernel_under_test")
        if isinstance(source, str) and "def kernel_under_test(" not in source:
            return {"misnamed": True}
        with learner.running("emit_triton"):
            runner = runner_cls(gm, block=block)
        before = sum(runner_cls.launches.values())
        kept = [t.clone() for t in inputs]
        rec = OpRecorder()
        with rec, guard, guard.reads_watched():
            out = runner(*inputs)
        if guard.overrun() or guard.overread:
            return {"error": f"the generated kernel {OVERRUN if guard.overrun() else OVERREAD}", "overrun": True}
        return {"source": runner.source, "name": runner.name, "out": out, "aten": rec.computed(),
                "launched": sum(runner_cls.launches.values()) - before,
                "inputs_changed": not all(torch.equal(a, b) for a, b in zip(inputs, kept))}
    except CheckFailed:
        raise
    except Exception as err:
        return {"error": failure(err)}


def codegen_problems(r: dict, want: torch.Tensor, about: str, supported: bool, reveal: bool = True,
                     once: torch.Tensor | None = None, block: int = 1024) -> list[str]:
    """A generated kernel that is missing, not launched, helped by PyTorch ops, writing into its inputs, wrong (only its
    first block right, with `block` elements a program), or computing fp16 in fp16 (its results not `once`, the chain
    in fp32 rounded once); a fallback that is wrong."""
    if r.get("overrun") or "wrote past the end" in r.get("error", ""):
        return [f"on {about}, {r['error'].split(': ', 1)[-1] if not r.get('overrun') else r['error']}."]
    if "error" in r:
        hint = " (Triton's math functions take fp32: convert each load with .to(tl.float32))" \
            if "Expected dtype" in r["error"] else ""
        return [f"on {about}, building or running the kernel raised {r['error']}{hint}."]
    if r.get("misnamed"):
        return [f"on {about}, emit_triton's source does not define a function called by the name it is given "
                "(def {name}(...)): TritonChain imports the kernel by that name."]
    problems = []
    if r["source"] is not None:
        if not isinstance(r["source"], str) or f"def {r['name']}(" not in r["source"]:
            return [f"on {about}, emit_triton's source does not define a function called {r['name']!r}."]
        if r["aten"]:
            problems.append(f"on {about}, PyTorch ops ran ({', '.join(r['aten'])}) although a kernel was generated.")
        if not r["launched"]:
            problems.append(f"on {about}, the generated kernel was not launched.")
        if r.get("inputs_changed"):
            problems.append(f"on {about}, the generated kernel changed its input(s): it stored through an input's "
                            f"pointer. Store the result through out_ptr, the last pointer, and leave the inputs as "
                            f"they are.")
    elif supported:
        problems.append(f"on {about}, emit_triton returned None, but every op is in TRITON_EXPR: generate the kernel.")
    diff = close(r["out"], want, atol=TOLERANCE[want.dtype], rtol=1e-5, reveal=reveal)
    if diff:
        problems.append(f"on {about}, the {'generated kernel' if r['source'] else 'fallback'}'s result {diff}."
                        + (first_block_only(r["out"], want, block, TOLERANCE[want.dtype], 1e-5) if r["source"] else ""))
    elif r["source"] is not None and once is not None:
        problems += rounding_problems(r["out"], once, about)
    return problems


def codegen_cases() -> list[CodegenCase]:
    """Six chains codegen must generate, two it may decline."""
    return [
        CodegenCase("chain_ops", chain_ops, tensors(40, (523, 781)), True),
        CodegenCase("a two-input chain (x * y + 1).sigmoid() - y", two_input_chain, tensors(41, (33, 17), (33, 17)), True),
        CodegenCase("(x * x).tanh(): one input read twice", square_tanh, tensors(42, (1000,)), True),
        CodegenCase("F.gelu(x + b) * 0.5 with a broadcast bias b", gelu_bias, tensors(43, (64, 40), (40,)), True),
        CodegenCase("(2.0 - x).sigmoid() in fp16: a number on the left", number_on_left,
                    tensors(44, (513,), dtype=torch.float16), True),
        CodegenCase("(z * 3 + 1) + x.sigmoid() * y with x and z fp16, y fp32 (the result is fp32; z is used first)",
                    mixed_dtypes, (tensors(47, (257,), dtype=torch.float16)[0], tensors(48, (257,))[0],
                                   tensors(49, (257,), dtype=torch.float16)[0]), True),
        CodegenCase("torch.add(x, x, alpha=2).relu(): a keyword codegen may decline", add_alpha, tensors(45, (100,)), False),
        CodegenCase("x.clamp(0, 1).exp(): an op missing from TRITON_EXPR", clamp_exp, tensors(46, (100,)), False),
    ]


def every_run_codegen() -> list[CodegenCase]:
    """Chains every run generates, the notebook's and the grader's: activation modules (call_module nodes, whose
    targets are submodule names) and a division (operator.truediv), each op named by elementwise_op; and two values of
    one op alive at once (a variable named after its op would hold one of them only); and the same ops wired
    otherwise (a kernel kept from an earlier chain of the same ops would compute the other chain)."""
    return [CodegenCase("nn.Sequential(nn.SiLU(), nn.Tanh()) then a division by 3: call_module nodes and "
                        "operator.truediv, named by elementwise_op", ActDivide(), tensors(50, (300,)), True),
            CodegenCase("x.sigmoid() * y.sigmoid() run by TritonChain(..., block=64): two values of one op alive at "
                        "once, so each node needs a variable of its own (a name per node, not per op); and the "
                        "kernel's offsets use the BLOCK it is launched with", two_sigmoids, tensors(51, (200,), (200,)),
                        True, block=64),
            CodegenCase("x.sigmoid().sigmoid() * y: the same ops as x.sigmoid() * y.sigmoid() (sigmoid, sigmoid, mul), "
                        "wired otherwise, so another kernel", sigmoid_twice_times, tensors(52, (300,), (300,)), True)]


@register("03.codegen", points=3, exercise="4", title="emit_triton generates a working kernel for any supported chain",
          cases=codegen_cases)
def _codegen(ctx: Context, cases: list[CodegenCase]) -> str:
    problems = []
    cases = [*cases, *every_run_codegen()]
    kernels: dict[str, str] = {}      # each generated source, its kernel's name taken out → the case it was made for
    for case in cases:
        report = ctx.probe(probe_codegen, case.fn, case.inputs, case.block, timeout=240)
        found = codegen_problems(report, case.want(), case.about, case.supported, ctx.reveal, case.rounded_once(),
                                 case.block)
        source = report.get("source")
        if isinstance(source, str) and isinstance(report.get("name"), str):
            body = source.replace(report["name"], "<name>")
            if found and body in kernels and kernels[body] != case.about:
                found.append(f"on {case.about}, emit_triton returned the same kernel as for {kernels[body]}, but for "
                             f"its name, though the chains differ: is a source kept from an earlier call (a cache "
                             f"keyed by the ops alone)? A kernel depends on each node's operands too: generate it from "
                             f"this chain's own nodes.")
            kernels.setdefault(body, case.about)
        problems += found
    fail_if(problems)
    made = sum(c.supported for c in cases)
    return f"generated kernels match eager on {made} chains, and the {len(cases) - made} it may decline run correctly"


# ---------------------------------------------------------------- 5: the backend
@dataclass(frozen=True)
class BackendCase:
    """A function or model to compile with backend="memfuse", its inputs, and how many chains it holds."""

    about: str
    fn: Callable
    inputs: tuple
    chains: int
    grad_mode: bool = False      # compiled and run with gradients on (no input requires one): it must still fuse
    in_place: bool = False       # the function changes an input in place: the call must change it as eager does

    def want(self) -> torch.Tensor:
        """The function in fp32 (a generated kernel computes in fp32 and rounds once), in the inputs' dtype."""
        with torch.no_grad():
            if self.inputs[0].dtype == torch.float32:
                return self.fn(*[t.clone() for t in self.inputs])
            return self.fn(*[t.float() for t in self.inputs]).to(self.inputs[0].dtype)

    def inputs_after(self) -> list[torch.Tensor]:
        """The inputs as eager leaves them (an in-place op applied once)."""
        ins = [t.clone() for t in self.inputs]
        with torch.no_grad():
            self.fn(*ins)
        return ins


def probe_backend(learner: Learner, fn: Callable, inputs: tuple, grad_mode: bool = False) -> dict:
    """torch.compile(fn, backend="memfuse") on the run's device, under no_grad (or with gradients on, grad_mode):
    the output and the chains run (with the checker's own parts 2b and 4: part_5_alone); what memfuse handed
    TritonChain that a TritonChain cannot run (`misuse`), and whether a TritonChain built for an earlier compile ran
    (`stale`: the notebook's own TritonChain, which part_5_alone replaces, or a stand-in from an earlier case)."""
    real = learner.ns.get("TritonChain")
    real_launches = lambda: sum(real.launches.values()) if isinstance(getattr(real, "launches", None), Counter) else 0
    real_before = real_launches()
    EagerChain.generation[0] += 1
    EagerChain.misuse.clear()
    EagerChain.made.clear()
    EagerChain.stale[0] = False
    given_pass = learner.ns.get("fusion_pass")

    def noted_pass(gm, *args, **kwargs):      # the notebook's fusion_pass, noting the code of each chain it fused
        out = given_pass(gm, *args, **kwargs)
        fused = out if isinstance(out, nn.Module) else gm
        EagerChain.made.update(sub.code for _, sub in fused.named_children() if isinstance(sub, fx.GraphModule))
        return out

    with part_5_alone(learner), learner.replacing("fusion_pass", noted_pass) if callable(given_pass) else \
            contextlib.nullcontext():
        report = _probe_backend(learner, fn, inputs, grad_mode)
    report["misuse"] = list(EagerChain.misuse)
    report["stale"] = EagerChain.stale[0] or real_launches() > real_before
    return report


def _probe_backend(learner: Learner, fn: Callable, inputs: tuple, grad_mode: bool = False) -> dict:
    device = device_of(learner)
    report = {"registered": "memfuse" in torch._dynamo.list_backends(exclude_tags=())}
    if not report["registered"]:
        return report
    runner_cls = learner.value("TritonChain")
    fn = fn.to(device) if isinstance(fn, nn.Module) else fn
    inputs = [t.to(device).clone() for t in inputs]      # the case's own tensors stay as they are
    torch._dynamo.reset()
    before = sum(runner_cls.launches.values())
    try:
        with contextlib.nullcontext() if grad_mode else torch.no_grad():
            report["out"] = torch.compile(fn, backend="memfuse", dynamic=False)(*inputs)
        report["launched"] = sum(runner_cls.launches.values()) - before
        report["inputs_after"] = [t.detach().cpu() for t in inputs]
    except Exception as err:
        if not_written(err):
            raise NotImplementedYet(MEMFUSE_NOT_WRITTEN) from None
        report["error"] = failure(err)
    finally:
        torch._dynamo.reset()
    return report


def backend_problems(report: dict, about: str, want: torch.Tensor, chains: int, reveal: bool = True,
                     grad_mode: bool = False, inputs_after: list[torch.Tensor] | None = None,
                     inputs_before: tuple | None = None) -> list[str]:
    """No backend registered, an error, a wrong output, fewer generated kernels than chains, or (`inputs_after`:
    the inputs as eager leaves them) an input changed in place a different number of times than eager changes it."""
    if not report["registered"]:
        return ["no backend called 'memfuse' is registered: run the cell that calls register_backend."]
    if report.get("misuse"):
        return [f"on {about}, memfuse called TritonChain with what it cannot run: {'; '.join(report['misuse'])}."]
    if report.get("stale"):
        return [f"on {about}, a TritonChain built during an earlier compile ran in this graph: memfuse keeps chains "
                f"from one compile to the next (a cache or a list at module level?), and a fused child's name such as "
                f"fused_0 comes back in every graph. Build each graph's TritonChains from that graph's own fused "
                f"children."]
    if "error" in report:
        return [f"torch.compile(..., backend='memfuse') on {about} raised {report['error']}."]
    problems = []
    changed = inputs_after is not None and "inputs_after" in report and (
        len(report["inputs_after"]) != len(inputs_after) or
        any(close(got, want_in, atol=1e-6) for got, want_in in zip(report["inputs_after"], inputs_after)))
    untouched = changed and inputs_before is not None and len(inputs_before) == len(report["inputs_after"]) and \
        all(torch.equal(got, t) for got, t in zip(report["inputs_after"], inputs_before))
    if untouched:
        problems.append(f"on {about}, the compiled call left the inputs as they were: its in-place op on an input "
                        f"never ran. Keep every node of Dynamo's graph (an in-place op is read by nothing, so "
                        f"eliminate_dead_code drops it): fuse the chains and leave the rest as it is.")
        changed = False
    if changed:
        problems.append(f"on {about}, after one compiled call the inputs are not what one eager call leaves (its "
                        f"in-place op on an input ran more than once): a backend only builds the callable it returns. "
                        f"Do not run the graph yourself (a warm-up call on example_inputs runs on the caller's own "
                        f"tensors, in-place ops included).")
    diff = close(report["out"], want, atol=max(1e-5, TOLERANCE[want.dtype]), rtol=1e-5, reveal=reveal)
    if diff:
        problems.append(f"on {about}, the compiled output {diff}" + (" (the in-place op ran more than once)" if changed
                                                                     else "") + ".")
    if report["launched"] < chains:
        problems.append(f"on {about}, {report['launched']} fused chains ran through TritonChain; its {chains} fusible chain(s) should "
                        f"each run as a TritonChain (replace each fused submodule)."
                        + (" Gradients are on here, but no input requires one: fall back to eager only when an example "
                           "input (a tensor) requires grad." if grad_mode else ""))
    return problems


def backend_cases() -> tuple[list[BackendCase], PitfallCase]:
    """Graphs to fuse (fp32 and fp16), and the model that needs gradients and the sizes of a dynamic-shape compile."""
    return ([BackendCase("chain_ops", chain_ops, tensors(5, (2000,)), 1),
             BackendCase("a gated MLP block with a residual", seeded(GatedMLP, 5), tensors(6, (8, 16)), 2),
             BackendCase("chain_ops on 1000 fp16 elements", chain_ops, tensors(8, (1000,), dtype=torch.float16), 1),
             BackendCase("chain_ops with gradients on, on an input that requires none (inference outside no_grad)",
                         chain_ops, tensors(9, (500,)), 1, grad_mode=True)],
            pitfall_cases()[0])


# A graph every run compiles, the notebook's and the grader's: an input changed in place before a chain (no chain
# reaches across it, so a chain finder's rule 3 plays no part here).
EVERY_RUN_BACKEND = (
    BackendCase("y.mul_(2) then ((x + y).sigmoid() * 2): an input changed in place before a chain", in_place_then_chain,
                tensors(10, (300,), (300,)), 1, in_place=True),
)


# memfuse's own work beyond fusing (exercise 5, step 1): gradients fall back to eager, and SymInt example inputs
# (dynamic=True) are no tensors. Part 7's other cells re-run exercises 2a and 4 (03.pitfalls, not scored).
# ---------------------------------------------------------------- part 5 judged on its own
def library_fuse(gm: fx.GraphModule, chain: list) -> fx.GraphModule:
    """torch.fx's own fuser doing fuse_chain's job, in place: the chain's nodes become one submodule `fused_<k>_0`."""
    from torch.fx.passes.utils.fuser_utils import fuse_by_partitions

    k = sum(name.startswith("fused_") for name, _ in gm.named_children())
    current = {n.name: n for n in gm.graph.nodes}     # an earlier fusion's sort made new Node objects: find them by name
    return fuse_by_partitions(gm, [dict.fromkeys(current[n.name] for n in chain)], prefix=f"fused_{k}_")


def single_op_chains(elementwise_op: Callable) -> Callable:
    """What stands in for a find_fusible_chains that is still its stub: every elementwise op a chain of its own (no
    chain is found, and nothing is fused that should not be)."""
    return lambda gm: [[n] for n in gm.graph.nodes if n.op.startswith("call") and elementwise_op(gm, n)]


class EagerChain(nn.Module):
    """What 03.backend puts in TritonChain's place: each fused chain run in eager, its runs counted, so part 5's
    wiring is judged on its own (part 4's kernels are 03.codegen's to judge). Like a generated kernel it has no
    backward: its output carries no autograd graph, so a memfuse that fuses a graph needing gradients still shows."""

    launches: Counter = Counter()
    # What a TritonChain could not have been built from or run (memfuse handed it something else): noted, not raised,
    # so the check can say it in words. `generation` is bumped by each compile a probe makes: a chain built for an
    # earlier graph that runs in a later one is `stale` (a TritonChain kept from one compile to the next).
    misuse: list = []
    generation: list = [0]
    stale: list = [False]
    made: set = set()            # the code of every chain fused in this generation (a chain kept by its code is fine)

    def __init__(self, chain_gm: fx.GraphModule, block: int = 1024):
        super().__init__()
        self.chain_gm, self.kernel, self.source, self.name = chain_gm, None, None, "eager_chain"
        self.built_in = EagerChain.generation[0]
        problem = misfed(chain_gm, block)
        if problem and problem not in EagerChain.misuse:
            EagerChain.misuse.append(problem)

    def forward(self, *args):
        if self.built_in != EagerChain.generation[0] and getattr(self.chain_gm, "code", None) not in EagerChain.made:
            EagerChain.stale[0] = True
        EagerChain.launches[self.name] += 1
        with torch.no_grad():
            return self.chain_gm(*args)


def misfed(chain_gm: Any, block: Any) -> str | None:
    """What is wrong with TritonChain(chain_gm, block) as memfuse called it, in words (None when nothing): a
    TritonChain runs one fused chain (an fx.GraphModule of elementwise nodes) with a block that is a power of two."""
    if isinstance(chain_gm, nn.Module) and not isinstance(chain_gm, fx.GraphModule):
        what = "a TritonChain" if isinstance(chain_gm, EagerChain) else f"a {type(chain_gm).__name__}"
        return (f"TritonChain was given {what}, not a fused chain's fx.GraphModule (a chain wrapped twice?): wrap each "
                f"fused child of this graph once")
    if not isinstance(chain_gm, fx.GraphModule):
        return f"TritonChain was given a {type(chain_gm).__name__}, not a fused chain's fx.GraphModule"
    children = dict(chain_gm.named_modules())
    if any(n.op == "call_module" and isinstance(children.get(n.target), (fx.GraphModule, EagerChain))
           for n in chain_gm.graph.nodes):
        return ("TritonChain was given a whole graph that holds fused chains of its own, not one fused chain: a "
                "TritonChain runs one chain, so put one in place of each fused child and return the graph's forward")
    if isinstance(block, bool) or not isinstance(block, int) or block < 1 or block & (block - 1):
        given = f"block={block}" if isinstance(block, int) else f"a {type(block).__name__} as its block"
        return (f"TritonChain was given {given}, not a power of two: its second argument is the block size of the "
                f"chain's kernel (leave it out for the default)")
    return None


def noted_fuse(gm: fx.GraphModule, chain: list) -> fx.GraphModule:
    """library_fuse, noting the code of every fused chain it leaves in gm (see EagerChain.made)."""
    gm = library_fuse(gm, chain)
    EagerChain.made.update(sub.code for _, sub in gm.named_children() if isinstance(sub, fx.GraphModule))
    return gm


@contextlib.contextmanager
def part_5_alone(learner: Learner):
    """The learner's memfuse with the checker's own parts 2b and 4 (library fusion, chains run in eager), and every
    elementwise op a chain of its own while part 2a is a stub: an earlier part's mistake is not charged again."""
    with learner.replacing("TritonChain", EagerChain), learner.replacing("fuse_chain", noted_fuse), \
            learner.standing_in("find_fusible_chains", single_op_chains(learner.ns.get("elementwise_op", lambda *a: None))):
        yield


MEMFUSE_STEPS = ("grads", "dynamic")


@register("03.backend", points=3, exercise="5",
          title="backend='memfuse' fuses the chains, runs generated kernels, falls back to eager for gradients",
          cases=backend_cases)
def _backend(ctx: Context, cases: tuple[list[BackendCase], PitfallCase]) -> str:
    graphs, memfuse_case = cases
    problems = []
    for case in [*graphs, *EVERY_RUN_BACKEND]:
        report = ctx.probe(probe_backend, case.fn, case.inputs, case.grad_mode, timeout=240)
        problems += backend_problems(report, case.about, case.want(), case.chains, ctx.reveal, case.grad_mode,
                                     case.inputs_after() if case.in_place else None, case.inputs)
    report = ctx.probe(probe_pitfalls, memfuse_case, MEMFUSE_STEPS, True, timeout=300)
    problems += pitfall_problems(report, memfuse_case, ctx.reveal, MEMFUSE_STEPS)
    fail_if(problems)
    return ("memfuse puts a TritonChain in place of each chain (fp32 and fp16; judged here with the checker's eager "
            "stand-in for your kernels, which 03.codegen judges) and leaves the rest to eager, falls back to eager when "
            "gradients are needed, and compiles once under dynamic=True")


# ---------------------------------------------------------------- 6: peak memory
def peak_cases() -> list[BytesCase]:
    """Graphs whose peak was worked out by hand from the notebook's rule."""
    n = 4 * 1000
    return [
        BytesCase("chain_ops on 1000 fp32 elements (two values alive at once)", chain_ops, tensors(60, (1000,)), 2 * n),
        BytesCase("x.relu(): one output", relu_only, tensors(61, (1000,)), n),
        BytesCase("two outputs, (x.relu() + 1, x.sigmoid()): outputs are never freed", two_outputs,
                  tensors(62, (1000,)), 2 * n),
        BytesCase("x.relu().view(-1).sigmoid(): the view keeps relu's memory alive", view_then_sigmoid,
                  tensors(63, (10, 100)), 2 * n),
        BytesCase("x.exp().view(-1).sum(): the view allocates nothing", view_then_sum, tensors(67, (1000,)), n + 4),
        BytesCase("x.exp().unsqueeze(0).view(-1).sigmoid(): a view of a view keeps exp's memory alive", view_of_view,
                  tensors(68, (10, 100)), 2 * n),
        BytesCase("three outputs, (x.relu(), x.sigmoid(), x.tanh()): each stays alive to the end", three_outputs,
                  tensors(69, (1000,)), 3 * n),
        BytesCase("torch.relu_(x.sigmoid()) * 2: the in-place op allocates nothing", inplace_relu,
                  tensors(64, (1000,)), 2 * n),
        BytesCase("Linear(16, 32) → ReLU → Linear(32, 8) on a 4×16 input", seeded(small_mlp, 65), tensors(65, (4, 16)),
                  4 * 4 * 32 * 2),
        BytesCase("chain_ops on 1000 fp16 elements (2 bytes each)", chain_ops, tensors(70, (1000,), dtype=torch.float16),
                  2 * 2000),
        BytesCase("x.exp() read by nothing, then (x.sigmoid() * 2).relu(): a value nobody reads is freed at once",
                  dead_value, tensors(71, (1000,)), 2 * n),
        BytesCase("a BatchNorm1d(8) module times a parameter read by get_attr (a parameter is in memory already)",
                  seeded(NormScale, 72), tensors(72, (4, 8)), 2 * 4 * 32),
        BytesCase("x.exp().view(x.size(0), -1).sigmoid() on 10×100: x.size(0) is a number, not a tensor", size_view,
                  tensors(73, (10, 100)), 2 * n),
        BytesCase("x.relu().view(-1).sigmoid() on 10×100, right after a call on 2×5 with the same graph",
                  view_then_sigmoid, tensors(74, (10, 100)), 2 * n, before=tensors(75, (2, 5))),
        BytesCase("the empty graph", identity, tensors(66, (1000,)), 0),
    ]


# Graphs every run judges, the notebook's and the grader's: values read inside a list stay alive until the list's
# reader; an in-place function on an intermediate allocates nothing, and the intermediate lives on.
EVERY_RUN_PEAK = (
    BytesCase("torch.cat([x.exp(), x.tanh()]).sum() on 1000 fp32 elements: values read inside a list stay alive until "
              "the cat", cat_sum, tensors(76, (1000,)), 4 * 1000 * 4),
    BytesCase("a = x.exp(); b = torch.relu_(a); b * a on 1000 fp32 elements: b is a itself (an in-place function "
              "allocates nothing)",
              relu_in_place, tensors(77, (1000,)), 2 * 1000 * 4),
    BytesCase("x[:, None] * x read by nothing, then x.sigmoid() * 2, on 100 fp32 elements: the 100×100 outer product "
              "is still allocated (and freed at once), so it sets the peak", dead_outer, tensors(78, (100,)),
              100 * 100 * 4),
    BytesCase("(x.half() * y).relu() with x fp32 and y fp16, 6×10 each: every value made is fp16, 2 bytes an element "
              "(each value's own dtype, not an input's)", half_mul_relu,
              (tensors(79, (6, 10))[0], tensors(80, (6, 10), dtype=torch.float16)[0]), 2 * 60 * 2),
)


@register("03.peak_memory", points=2, exercise="6", title="estimate_peak_bytes follows liveness, views and outputs",
          cases=peak_cases)
def _peak_memory(ctx: Context, cases: list[BytesCase]) -> str:
    cases = [*cases, *EVERY_RUN_PEAK]
    bytes_check(ctx, "estimate_peak_bytes", cases)
    return f"right on all {len(cases)} graphs"


# ---------------------------------------------------------------- 7: the pitfalls
@dataclass(frozen=True)
class PitfallCase:
    """A model that needs gradients and its input, a function with an in-place op and its inputs, an fp16 input, and
    the sizes of one dynamic-shape compile."""

    model: nn.Module
    x: torch.Tensor
    mutate: Callable
    mutate_inputs: tuple
    x16: torch.Tensor
    sizes: tuple


def dynamic_input(n: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """The input of the dynamic-shape run at size n."""
    return torch.arange(n, dtype=torch.float32, device=device) / n - 0.5


PITFALLS = ("grads", "aliasing", "fp16", "dynamic")


def scaled_chain(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """A chain with a weight as its second input: only w requires grad in the gradient check."""
    return ((x * w).sigmoid() + 1) * x


def probe_pitfalls(learner: Learner, case: PitfallCase, parts: tuple[str, ...] = PITFALLS, alone: bool = False) -> dict:
    """Run memfuse on a model that needs gradients, on an in-place op, on fp16 and under dynamic shapes (`parts`);
    alone: with the checker's own parts 2b and 4 (03.backend judges part 5 on its own)."""
    with part_5_alone(learner) if alone else contextlib.nullcontext():
        return _probe_pitfalls(learner, case, parts)


def _probe_pitfalls(learner: Learner, case: PitfallCase, parts: tuple[str, ...]) -> dict:
    from torch._dynamo.testing import CompileCounterWithBackend

    device = device_of(learner)
    runner_cls = learner.value("TritonChain")
    run_chain = chain_ops
    report: dict = {}

    def grads():
        ours = copy.deepcopy(case.model).to(device)
        out = torch.compile(ours, backend="memfuse")(case.x.to(device))
        if out.grad_fn is None:
            return {"no_grad_fn": True}
        out.square().mean().backward()
        torch._dynamo.reset()
        x, w = case.x.to(device), case.x[0].to(device).clone().requires_grad_()   # only the second input needs one
        out = torch.compile(scaled_chain, backend="memfuse")(x, w)
        if out.grad_fn is None:
            return {"no_grad_fn_second": True}
        out.square().mean().backward()
        return {"grads": [p.grad for p in ours.parameters()], "second": w.grad}

    def aliasing():
        ins = tuple(t.clone().to(device) for t in case.mutate_inputs)
        with torch.no_grad():
            out = torch.compile(case.mutate, backend="memfuse")(*ins)
        return {"out": out, "mutated": ins}

    def fp16():
        before = sum(runner_cls.launches.values())
        with torch.no_grad():
            out = torch.compile(run_chain, backend="memfuse")(case.x16.to(device))
        return {"out": out, "launched": sum(runner_cls.launches.values()) - before}

    def dynamic():
        counter = CompileCounterWithBackend("memfuse")
        run = torch.compile(run_chain, backend=counter, dynamic=True)
        before = sum(runner_cls.launches.values())
        with torch.no_grad():
            outs = [run(dynamic_input(n, device)) for n in case.sizes]
        return {"outs": outs, "frames": counter.frame_count, "launched": sum(runner_cls.launches.values()) - before}

    bodies = {"grads": grads, "aliasing": aliasing, "fp16": fp16, "dynamic": dynamic}
    for key in parts:
        body = bodies[key]
        torch._dynamo.reset()
        try:
            report[key] = body()
        except Exception as err:
            if not_written(err):
                raise NotImplementedYet(MEMFUSE_NOT_WRITTEN) from None
            report[key] = {"error": failure(err)}
    torch._dynamo.reset()
    return report


def grad_problems(g: dict, case: PitfallCase) -> list[str]:
    """A model that needs gradients must run in eager through memfuse: a grad_fn, and eager's gradients."""
    if "error" in g:
        return [f"memfuse on a model that needs gradients raised {g['error']}: when gradients are needed, return "
                "gm.forward (eager) instead of fusing."]
    if g.get("no_grad_fn"):
        return ["memfuse on a model that needs gradients returned an output with no grad_fn: training would silently "
                "stop; fall back to eager when gradients are needed."]
    if g.get("no_grad_fn_second"):
        return ["memfuse on a function whose second input requires grad (its first does not) returned an output with "
                "no grad_fn: ask every example input that is a tensor for requires_grad (plain tensors as well as "
                "parameters), not only the first."]
    w = case.x[0].clone().requires_grad_()
    scaled_chain(case.x, w).square().mean().backward()
    if close(g.get("second"), w.grad, atol=1e-5, rtol=1e-4):
        return ["memfuse on a function whose second input requires grad gave a gradient that differs from eager's."]
    ref = copy.deepcopy(case.model)
    ref(case.x).square().mean().backward()
    if len(g["grads"]) != len(list(ref.parameters())) or \
            any(close(a, p.grad, atol=1e-5, rtol=1e-4) for a, p in zip(g["grads"], ref.parameters())):
        return ["memfuse on a model that needs gradients gave gradients that differ from eager's."]
    return []


def aliasing_problems(a: dict, case: PitfallCase) -> list[str]:
    """An in-place op between chains: eager's output, and the inputs mutated as eager mutates them."""
    if "error" in a:
        return [f"memfuse on a function with an in-place op raised {a['error']}."]
    ins = tuple(t.clone() for t in case.mutate_inputs)
    want = case.mutate(*ins)
    if close(a["out"], want, atol=1e-6) or len(a["mutated"]) != len(ins) or \
            any(close(p, q, atol=1e-6) for p, q in zip(a["mutated"], ins)):
        return ["memfuse on a function with an in-place op between two elementwise ops computed a different result "
                "from eager: a chain must not reach across an in-place op (rule 3 of exercise 2a)."]
    return []


def fp16_problems(h: dict, case: PitfallCase) -> list[str]:
    """fp16 through a generated kernel: launched, fp16 out, computed in fp32 and rounded once."""
    if "error" in h:
        return [f"memfuse on fp16 input raised {h['error']}."]
    if not h["launched"]:
        return ["memfuse on fp16 input ran no generated kernel: fuse fp16 chains too (their kernels compute in fp32 "
                "and round once), and fall back to eager only when gradients are needed."]
    out = h["out"]
    if not isinstance(out, torch.Tensor) or out.shape != case.x16.shape:
        return ["memfuse on fp16 input returned the wrong shape."]
    if out.dtype != torch.float16:
        return [f"memfuse on fp16 input returned {out.dtype}; store in the output's dtype."]
    same = (out == chain_ops(case.x16.float()).half()).float().mean().item()
    if same < 0.99:
        return [f"memfuse on fp16 input matches 'compute in fp32, round once' on only {same:.1%} of the elements: load "
                f"as fp32 (.to(tl.float32)) and convert once when storing."]
    return []


def dynamic_problems(d: dict, case: PitfallCase, reveal: bool) -> list[str]:
    """dynamic=True: one compile for every size, each output right."""
    if "error" in d:
        return [f"memfuse under dynamic=True raised {d['error']} (example_inputs can hold SymInts, which have no "
                f"requires_grad)."]
    problems = []
    if d["frames"] != 1:
        problems.append(f"under dynamic=True, {len(case.sizes)} sizes compiled {d['frames']} times instead of once.")
    if d.get("launched") == 0:
        problems.append("under dynamic=True, no fused chain ran through TritonChain: the graph ran unfused. A SymInt "
                        "example input has no requires_grad, but it is no reason to fall back: fuse dynamic-shape "
                        "graphs too (the kernels take n_elements at run time).")
    for n, out in zip(case.sizes, d["outs"]):
        diff = close(out, chain_ops(dynamic_input(n)), atol=1e-6, reveal=reveal)
        if diff:
            problems.append(f"under dynamic=True, the output for {n} elements {diff}.")
            break
    return problems


def pitfall_problems(report: dict, case: PitfallCase, reveal: bool = True, parts: tuple[str, ...] = PITFALLS) -> list[str]:
    """Gradients lost or wrong, in-place order broken, fp16 rounded twice, one compile per size (of `parts`)."""
    judges = {"grads": lambda r: grad_problems(r, case), "aliasing": lambda r: aliasing_problems(r, case),
              "fp16": lambda r: fp16_problems(r, case), "dynamic": lambda r: dynamic_problems(r, case, reveal)}
    return [problem for key in parts for problem in judges[key](report[key])]


def pitfall_cases() -> list[PitfallCase]:
    x, y0, y1, x16 = tensors(7, (4, 16), (6,), (6,), (5000,))
    return [PitfallCase(seeded(GatedMLP, 7, train=True), x, mutate_between, (y0, y1), x16.half(), (300, 700, 1100))]


@register("03.pitfalls", points=0, exercise="7",
          title="part 7 end to end: gradients, in-place ops, fp16, dynamic shapes (not scored: 03.chains, 03.codegen "
                "and 03.backend score this work)", cases=pitfall_cases)
def _pitfalls(ctx: Context, cases: list[PitfallCase]) -> str:
    problems = []
    for case in cases:
        problems += pitfall_problems(ctx.probe(probe_pitfalls, case, timeout=300), case, ctx.reveal)
    fail_if(problems)
    return "falls back for gradients, keeps in-place order, rounds fp16 once, one compile for every size"


# ================================================================ part 8: linear + bias + GELU, one Triton matmul
# Tolerance of a linear + GELU output against an fp64 reference, |got − ref| ≤ tol · (1 + |ref|): the inputs'
# dtype and the device decide it (a GPU's tl.dot on fp32 rounds the operands to tf32, 10 mantissa bits).
LINEAR_TOLERANCE = {torch.float32: 1e-4, torch.float16: 5e-3, torch.bfloat16: 3e-2}
TF32_TOLERANCE = 5e-3
# The ATen ops that would mean the matmul, the bias or the GELU ran in PyTorch rather than in the kernel.
LINEAR_OPS = COMPUTE_OPS | {"mm", "addmm", "matmul", "linear", "bmm", "baddbmm", "erf", "dot", "mv", "einsum"}
COPY_OPS = {"clone", "copy_", "contiguous", "_to_copy"}


@dataclass(frozen=True)
class LinearCase:
    """Inputs of linear_gelu (CPU tensors; the probe moves them to the run's device, keeping their strides).

    `epilogue`: x is all zeros, so the output is GELU(bias) whatever the matmul's precision: a tight test of the
    bias and of the exact (erf) GELU. `strided`: x or w is a view with strides of its own (no copy wanted).
    `blocks`: (block_m, block_n, block_k) passed to linear_gelu, tiles that are not square, as part 8b's autotuned
    configs are (a BLOCK_M written where BLOCK_N belongs is invisible with the default 32×32×32)."""

    about: str
    x: torch.Tensor
    w: torch.Tensor
    b: torch.Tensor
    epilogue: bool = False
    strided: bool = False
    blocks: tuple = ()


class InputCopies(Conversions):
    """An OpRecorder that also notes the copies made *from* the given tensors (a .contiguous() of a strided
    input), and the dtype conversions made outside the launch (Conversions). Under Triton's interpreter every launch
    copies its arguments to the host and back itself: with `launches_marked()` active, the copies made inside a
    launch are not noted."""

    def __init__(self, *inputs: torch.Tensor):
        super().__init__()
        self.storages = {t.untyped_storage().data_ptr() for t in inputs}
        self.copied: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if name in COPY_OPS and not IN_LAUNCH[0]:
            source = args[1] if name == "copy_" else args[0]
            if isinstance(source, torch.Tensor) and source.untyped_storage().data_ptr() in self.storages:
                self.copied.add(name)
        return super().__torch_dispatch__(func, types, args, kwargs)


def to_device_keeping_strides(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """The same view (sizes and strides) of a copy of t's storage on `device`."""
    if t.device == device:
        return t
    base = t.as_strided((t.untyped_storage().nbytes() // t.element_size(),), (1,), 0)
    return base.to(device).as_strided(t.shape, t.stride(), t.storage_offset())


def reference_linear_gelu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """GELU(x wᵀ + b) in fp64 from the inputs as given (already rounded to their dtype)."""
    return F.gelu(F.linear(x.double(), w.double(), b.double()), approximate=approximate)


BLOCK_ARGS = ("block_m", "block_n", "block_k")
TILE_NAMES = ("BLOCK_M", "BLOCK_N", "BLOCK_K")     # the kernel's constexprs the tile sizes are passed on as


def takes_blocks(fn: Callable) -> bool:
    """Whether linear_gelu takes the tile sizes as the stub's signature does (block_m=, block_n=, block_k=)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return all(k in params for k in BLOCK_ARGS) or any(p.kind == p.VAR_KEYWORD for p in params.values())


def probe_linear_gelu(learner: Learner, inputs: list[tuple], wrong_shapes: list[tuple]) -> dict:
    """Run linear_gelu on each case (recording the ATen ops it dispatches), then on shapes that do not fit. A case
    with tile sizes (a fourth item) passes them as block_m=, block_n=, block_k=, and is skipped where linear_gelu has
    no such parameters."""
    device = device_of(learner)
    outs = []
    for x, w, b, *rest in inputs:
        blocks = dict(zip(BLOCK_ARGS, rest[0])) if rest and rest[0] else {}
        if blocks and not takes_blocks(learner.function("linear_gelu")):
            outs.append({"skipped": True})
            continue
        x, w, b = (to_device_keeping_strides(t, device) for t in (x, w, b))
        guard = GuardSpace()      # under the interpreter: guard space after every tensor, so a store past the end
        with guard:               # is caught instead of corrupting (or killing) the process
            x, w, b = (guard.guard(t) for t in (x, w, b))
        rec = InputCopies(x, w)
        try:
            with poisoned_masked_loads(), launches_marked(), constexprs_launched() as launched, rec, guard, \
                    guard.reads_watched():
                y = learner.call("linear_gelu", x, w, b, **blocks)
            if guard.overrun():
                outs.append({"overrun": True})
                continue
            if guard.overread:
                outs.append({"overread": True})
                continue
            outs.append({"out": y.detach().cpu() if isinstance(y, torch.Tensor) else y,
                         "computed": sorted({op for op in rec.ops if op in LINEAR_OPS}),
                         "copied": sorted(rec.copied), "converted": sorted(set(rec.converted)),
                         "tiles": [[t.get(k) for k in TILE_NAMES] for t in launched if all(k in t for k in TILE_NAMES)]})
        except CheckFailed:
            raise
        except Exception as err:
            outs.append({"error": failure(err)})
    refused = []
    for x, w, b in wrong_shapes:
        try:
            learner.function("linear_gelu")(x.to(device), w.to(device), b.to(device))
            refused.append("returned normally")
        except ValueError:
            refused.append(None)
        except Exception as err:
            refused.append(f"raised {type(err).__name__}, not ValueError")
    return {"outs": outs, "refused": refused, "device": str(device)}


def tiles_given(launched: list, asked: tuple, sizes: tuple) -> bool:
    """Whether a launch's BLOCK_M, BLOCK_N, BLOCK_K are the tiles linear_gelu was asked for: each the one given, or,
    where the given one is larger than its dimension (M, N or K) rounded up to a power of two, any tile between the
    two (a launcher may clamp its tiles to a small problem)."""
    def fits(t, a, n):
        fitted = 1 << max(int(n) - 1, 0).bit_length()      # n rounded up to a power of two
        return t == a or (isinstance(t, int) and fitted < a and min(a, fitted) <= t <= a)

    return all(fits(t, a, n) for t, a, n in zip(launched, asked, sizes))


def linear_tolerance(dtype: torch.dtype, device: str, epilogue: bool) -> float:
    """How close an output of this dtype must be on this device (see LINEAR_TOLERANCE)."""
    if epilogue:
        return TOLERANCE[dtype]
    if dtype == torch.float32 and device.startswith("cuda"):
        return TF32_TOLERANCE
    return LINEAR_TOLERANCE[dtype]


def linear_error_hint(error: str) -> str:
    """What an exception linear_gelu raised on shapes that fit most likely means, in words ("" when unknown)."""
    if "Expected dtype" in error:
        return (" (tl.erf and Triton's other math functions take fp32: keep the bias and the GELU in the fp32 "
                "accumulator and round once, at the store)")
    if "power of 2" in error:
        return (" (every tile size must be a power of two, as tl.arange and tl.dot need: a launcher that fits a tile "
                "to a small M, N or K rounds it up with triton.next_power_of_2, never down to the size itself)")
    if "out_dtype" in error:
        return (" (accumulate in fp32: tl.dot's default out_dtype is tl.float32; an accumulator in the inputs' dtype "
                "rounds every K block's partial sum, and round once, at the store)")
    if error.startswith("ValueError"):
        return (" (these shapes fit together: raise ValueError only for shapes that do not; a size that is not a "
                "multiple of a block is what the masks, or the wrapped indices, are for)")
    return ""


def linear_gelu_problems(report: dict, cases: list[LinearCase], wrong_shapes: list[str], reveal: bool = True) -> list[str]:
    """Wrong values (with the likely cause), work done in PyTorch, copies of strided inputs, shapes not refused."""
    problems = []
    for case, r in zip(cases, report["outs"]):
        about = case.about
        if r.get("skipped"):
            continue
        tiles = (" These tiles are not square: check that BLOCK_M, BLOCK_N and BLOCK_K each stand where they belong "
                 "(rows, columns, K; in the launcher's grid and arguments too), which 32×32×32 tiles cannot show."
                 if case.blocks else "")
        if "error" in r:
            problems.append(f"on {about}, linear_gelu raised {r['error']}{linear_error_hint(r['error'])}.{tiles}")
            continue
        if r.get("overrun"):
            problems.append(f"on {about}, the kernel's store wrote past the end of the output (into guard space put "
                            f"there to catch it): the last block of rows or columns runs past M or N, so mask the "
                            f"store with (rows < M) & (columns < N); and address the output with each stride on its "
                            f"own dimension (stride_om with the rows, stride_on with the columns).{tiles}")
            continue
        if r.get("overread"):
            problems.append(f"on {about}, the kernel read past the end of an input (from guard space put there to "
                            f"catch it; on a GPU such a read can fault or read another tensor's memory): a last block "
                            f"of rows, columns or K runs past M, N or K, so its loads need masks (rows < M, columns "
                            f"< N, and k < K with other=0.0) or wrapped row and column indices (rm % M, rn % N); and "
                            f"each stride must go with its own dimension (the kernel's parameters in the order "
                            f"linear_gelu_args passes them: stride_wn before stride_wk).{tiles}")
            continue
        got = r["out"]
        if r["computed"]:
            problems.append(f"on {about}, PyTorch computed ({', '.join(r['computed'])}): the matmul, the bias and "
                            f"the GELU all belong in the Triton kernel.")
        if case.strided and r["copied"]:
            problems.append(f"on {about}, the launcher copied an input ({', '.join(r['copied'])}): pass the tensors' "
                            f"own strides (x.stride(0), x.stride(1), w.stride(0), w.stride(1)) to the kernel "
                            f"instead of making them contiguous; a copy of a weight moves it twice.")
        dims = (case.x.shape[0], case.w.shape[0], case.x.shape[1])      # M, N, K
        if case.blocks and r.get("tiles") and not any(tiles_given(t, case.blocks, dims) for t in r["tiles"]):
            got_tiles = "×".join(map(str, r["tiles"][0]))
            problems.append(f"on {about}, the kernel ran with BLOCK_M×BLOCK_N×BLOCK_K = {got_tiles}, not the tiles "
                            f"linear_gelu was given: pass block_m, block_n and block_k on, to the kernel and to the "
                            f"grid (the autotuned configs of 8b choose them).")
        if r.get("converted"):
            problems.append(f"on {about}, the launcher converted with PyTorch ({', '.join(r['converted'])}): each "
                            f"conversion is one more pass over memory, the very pass the epilogue saves. Allocate the "
                            f"output in x's dtype and let the kernel round the fp32 result once, at its store "
                            f"(y.to(out_ptr.dtype.element_ty)).")
        if not isinstance(got, torch.Tensor):
            problems.append(f"on {about}, linear_gelu returned a {type(got).__name__}, not a tensor.")
            continue
        want_shape = (case.x.shape[0], case.w.shape[0])
        if tuple(got.shape) != want_shape:
            problems.append(f"on {about}, the result has shape {tuple(got.shape)}, not (M, N)"
                            + (f" = {want_shape}." if reveal else " (x's rows by w's rows)."))
            continue
        if got.dtype != case.x.dtype:
            problems.append(f"on {about}, the result is {got.dtype}: store it in x's dtype ({case.x.dtype}), "
                            f"converting the fp32 accumulator once, at the store.")
            continue
        tol = linear_tolerance(case.x.dtype, report["device"], case.epilogue)
        ref = reference_linear_gelu(case.x, case.w, case.b)
        bad = lambda want: bool(((got.double() - want).abs() > tol * (1 + want.abs())).any() or got.isnan().any())
        if not bad(ref):
            continue
        if not bad(reference_linear_gelu(case.x, case.w, case.b, approximate="tanh")):
            problems.append(f"on {about}, the result is GELU's tanh approximation: GELU must be exact, "
                            f"0.5·y·(1 + erf(y/√2)) (F.gelu's default).")
        elif not bad(reference_linear_gelu(case.x, case.w, torch.zeros_like(case.b))):
            problems.append(f"on {about}, the result has no bias: add b[n] to every row before the GELU.")
        elif not bad(F.linear(case.x.double(), case.w.double(), case.b.double())):
            problems.append(f"on {about}, the result has no GELU: apply it in the epilogue, after the bias.")
        elif case.x.shape[0] <= case.b.shape[0] and not bad(
                F.gelu(F.linear(case.x.double(), case.w.double()) + case.b.double()[:case.x.shape[0], None])):
            problems.append(f"on {about}, the bias is added per row (b[m] to row m): it is per column, b[n] added to "
                            f"column n of every row.")
        else:
            diff = close(got, ref.to(got.dtype), atol=tol, rtol=tol, reveal=reveal)
            problems.append(f"on {about}, the result {diff}." + (tiles or " Check the masks on M, N and K (a K that is "
                            "not a multiple of BLOCK_K needs `other=0.0`), the strides, and that the accumulator is "
                            "fp32."))
    for about, outcome in zip(wrong_shapes, report["refused"]):
        if outcome:
            problems.append(f"{about}: linear_gelu {outcome}; check the shapes and raise ValueError saying what "
                            f"does not fit.")
    return problems


def linear_inputs(seed: int, m: int, k: int, n: int, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """x (m×k), w (n×k, scaled like nn.Linear's) and b (n) in `dtype`, drawn from `seed`."""
    x, w, b = tensors(seed, (m, k), (n, k), (n,))
    return x.to(dtype), (w / math.sqrt(k)).to(dtype), b.to(dtype)


def linear_cases() -> tuple[list[LinearCase], list[tuple], list[str]]:
    """Awkward shapes and layouts, three dtypes, an epilogue-only case; and shapes that must be refused."""
    x1, w1, b1 = linear_inputs(200, 17, 33, 29, torch.float32)
    x2, w2, b2 = linear_inputs(201, 1, 64, 48, torch.float16)
    x3, w3, b3 = linear_inputs(202, 40, 70, 24, torch.bfloat16)
    x4, wt4, b4 = linear_inputs(203, 19, 40, 23, torch.float32)
    x5, w5, b5 = linear_inputs(204, 9, 37, 30, torch.float32)
    b6 = torch.linspace(-5, 5, 40)
    cases = [LinearCase("x 17×33, w 29×33, fp32 (no size a multiple of a block)", x1, w1, b1),
             LinearCase("one row (M=1, a decode step), fp16", x2, w2, b2),
             LinearCase("x 40×70, w 24×70, bf16", x3, w3, b3),
             LinearCase("a transposed weight (w = wt.t(), strides (1, 23))", x4, wt4.t().contiguous().t(), b4,
                        strided=True),
             LinearCase("x sliced as x[:, ::2] (a stride of 2 along K)", torch.stack([x5, -x5], dim=2).flatten(1)[:, ::2],
                        w5, b5, strided=True),
             LinearCase("x all zeros with a bias from −5 to 5: the output is GELU(bias) exactly", torch.zeros(5, 16),
                        torch.randn(40, 16), b6, epilogue=True)]
    wrong = [(torch.zeros(4, 10), torch.zeros(6, 11), torch.zeros(6)), (torch.zeros(4, 10), torch.zeros(6, 10),
                                                                          torch.zeros(5)),
             (torch.zeros(2, 4, 10), torch.zeros(6, 10), torch.zeros(6))]
    about_wrong = ["x 4×10 with w 6×11 (K differs)", "w 6×10 with a bias of 5 (N differs)",
                   "a batched x of 2×4×10 (x must be M×K: linear_gelu takes 2-D x only)"]
    return cases, wrong, about_wrong


def cancelling_halves(m: int = 16, k: int = 128, n: int = 32) -> tuple[torch.Tensor, ...]:
    """fp16 x (1s and 2s, its two K halves equal) and w whose two K halves nearly cancel (+16 and −16, plus multiples of 1/64): the partial
    sums of a K loop reach a few thousand, where fp16's spacing is 2, while the result is a few units. Every value
    is exact in fp16, and every sum exact in fp32, so an fp32 accumulator gets the exact product (a GPU's tensor
    cores too); one that rounds a K block's partial sum to fp16 (out_dtype=tl.float16, an fp16 accumulator) is off
    by up to 1 per block."""
    gen = torch.Generator().manual_seed(208)
    half = torch.randint(1, 3, (m, k // 2), generator=gen)
    x = torch.cat([half, half], dim=1).to(torch.float16)         # the ±16 parts cancel exactly, row by row
    sign = torch.cat([torch.ones(k // 2), -torch.ones(k - k // 2)])
    w = (16 * sign + torch.randint(-32, 33, (n, k), generator=gen) / 64).to(torch.float16)
    b = (torch.randint(-64, 65, (n,), generator=gen) / 64).to(torch.float16)
    return x, w, b


def every_run_linear() -> list[LinearCase]:
    """Cases every run judges, the notebook's and the grader's: tiles that are not square, one each way (part 8b's
    autotuned configs are such tiles; with the default 32×32×32 a BLOCK_M written for a BLOCK_N cannot show); a K
    smaller than one block that is no power of two; and fp16 partial sums that only an fp32 accumulator keeps."""
    x1, w1, b1 = linear_inputs(206, 40, 50, 150, torch.float32)
    x2, w2, b2 = linear_inputs(207, 150, 40, 30, torch.float16)
    x3, w3, b3 = linear_inputs(209, 6, 12, 20, torch.float32)
    x4, w4, b4 = cancelling_halves()
    return [LinearCase("x 6×12, w 20×12, fp32: K = 12, less than one K block and no power of two (the tile stays a "
                       "power of two, masked past K)", x3, w3, b3),
            LinearCase("x 16×128 and w 32×128 in fp16 whose two K halves nearly cancel (partial sums in the thousands, "
                       "a result of a few units): only an fp32 accumulator keeps it (no out_dtype=tl.float16, no fp16 "
                       "accumulator)", x4, w4, b4),
            LinearCase("x 40×50, w 150×50, fp32, with tiles of 16 rows, 64 columns and BLOCK_K 16 (linear_gelu(x, w, b, "
                       "block_m=16, block_n=64, block_k=16))", x1, w1, b1, blocks=(16, 64, 16)),
            LinearCase("x 150×40, w 30×40, fp16, with tiles of 64 rows, 16 columns and BLOCK_K 32 (linear_gelu(x, w, b, "
                       "block_m=64, block_n=16, block_k=32))", x2, w2, b2, blocks=(64, 16, 32))]


@register("03.linear_gelu", points=2, exercise="8a",
          title="linear_gelu: one Triton matmul with bias and exact GELU in its epilogue", cases=linear_cases)
def _linear_gelu(ctx: Context, cases: tuple) -> str:
    linear, wrong, about_wrong = cases
    linear = [*linear, *every_run_linear()]
    report = ctx.probe(probe_linear_gelu, [(c.x, c.w, c.b, c.blocks) for c in linear], wrong, timeout=300)
    fail_if(linear_gelu_problems(report, linear, about_wrong, ctx.reveal))
    return f"right on {len(linear)} shapes, layouts and dtypes ({report['device']}), and wrong shapes are refused"


# ---------------------------------------------------------------- 8b: shared memory per config
# No reference formula here: each idea of the exercise's text is checked on its own (the A and B tiles at one byte
# per element, the bytes per element, the stages), each with its own message, and configs_that_fit is judged by the
# learner's own smem_bytes.
@dataclass(frozen=True)
class SmemCase:
    about: str
    configs: list[dict]
    itemsize: int
    limit: int


def probe_smem(learner: Learner, configs: list[dict], itemsize: int, limit: int) -> dict:
    def size(c: dict, stages: int, nbytes: int):
        return as_number(learner.call("smem_bytes", c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], stages, nbytes))

    try:
        sizes = [{"asked": size(c, c["num_stages"], itemsize), "one_stage": size(c, 1, itemsize), "one_stage_one_byte":
                  size(c, 1, 1)} for c in configs]
    except CheckFailed:
        raise
    except Exception as err:
        return {"raised": f"smem_bytes raised {failure(err)}"}
    given = [dict(c) for c in configs]
    try:
        fit = learner.call("configs_that_fit", given, limit, itemsize)
    except CheckFailed:
        raise
    except Exception as err:
        return {"sizes": sizes, "raised": f"configs_that_fit raised {failure(err)}"}
    return {"sizes": sizes, "fit": list(fit) if isinstance(fit, (list, tuple)) else repr(fit),
            "changed_input": given != [dict(c) for c in configs]}


def smem_problems(report: dict, case: SmemCase, reveal: bool = True) -> list[str]:
    if "sizes" not in report:
        return [f"{case.about}: {report['raised']}: smem_bytes counts from its arguments alone (the tile sizes, the "
                f"stages and the bytes per element)."]
    problems = []
    for c, got in zip(case.configs, report["sizes"]):
        name = f"BLOCK {c['BLOCK_M']}×{c['BLOCK_N']}×{c['BLOCK_K']}, {c['num_stages']} stages"
        if not all(isinstance(v, numbers.Number) and v == int(v) for v in got.values()):
            problems.append(f"{case.about}: smem_bytes for {name} gave {got['asked']!r}; it returns bytes, an int.")
            continue
        tiles = c["BLOCK_M"] * c["BLOCK_K"] + c["BLOCK_K"] * c["BLOCK_N"]      # elements of one A and one B tile
        if got["one_stage_one_byte"] != tiles:
            output_tile = got["one_stage_one_byte"] == c["BLOCK_M"] * c["BLOCK_N"]
            problems.append(f"{case.about}: smem_bytes({c['BLOCK_M']}, {c['BLOCK_N']}, {c['BLOCK_K']}, num_stages=1, "
                            f"itemsize=1) should be the elements of one A tile (BLOCK_M×BLOCK_K) and one B tile "
                            f"(BLOCK_K×BLOCK_N)" + (f", {tiles:,}; got {got['one_stage_one_byte']:,}" if reveal else "")
                            + (" (that is the output tile, which stays in registers)" if output_tile else "")
                            + (" (that is in KiB: return bytes, an int)" if got["one_stage_one_byte"] * 1024 == tiles
                               else "") + ".")
        elif got["one_stage"] != case.itemsize * got["one_stage_one_byte"]:
            problems.append(f"{case.about}: smem_bytes for {name} at {case.itemsize} bytes per element should be "
                            f"{case.itemsize}× its size at 1 byte per element (bytes, not elements).")
        elif got["asked"] != c["num_stages"] * got["one_stage"]:
            problems.append(f"{case.about}: smem_bytes for {name} should be {c['num_stages']}× its one-stage size "
                            "(every stage holds its own A and B tiles: multiply by num_stages).")
    if problems:
        return problems
    if "raised" in report:
        return [f"{case.about}: {report['raised']}: judge the configs against the limit and the itemsize it is given "
                f"(the caller reads the limit from its GPU; configs_that_fit itself needs none)."]
    if not isinstance(report["fit"], list):
        return [f"{case.about}: configs_that_fit returned {report['fit'][:80]}, not a list of the configs that fit."]
    if report.get("changed_input") or any(isinstance(c, dict) and c not in case.configs for c in report["fit"]):
        return [f"{case.about}: configs_that_fit changed the configs it was given (a key added or changed): return "
                f"the configs that fit as they are, without writing into them (autotune passes them on)."]
    want_fit = [c for c, got in zip(case.configs, report["sizes"]) if got["asked"] <= case.limit]
    if report["fit"] != want_fit:
        kept = [c for c in report["fit"] if c not in want_fit]
        dropped = [c for c in want_fit if c not in report["fit"]]
        words = []
        if kept:
            words.append(f"kept {len(kept)} that need more than the limit of {case.limit:,} bytes")
        if dropped:
            words.append(f"left out {len(dropped)} that fit (a config that needs exactly the limit fits)")
        if not words:
            words.append("changed the configs' order")
        problems.append(f"{case.about}: configs_that_fit {' and '.join(words)}; keep the configs that fit, in "
                        f"their order.")
    return problems


AUTOTUNE_CONFIGS = [
    {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3},
    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8, "num_stages": 4},
    {"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "num_warps": 4, "num_stages": 4},
    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "num_warps": 4, "num_stages": 4},
    {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "num_warps": 4, "num_stages": 4},
    {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_K": 128, "num_warps": 4, "num_stages": 4},
    {"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128, "num_warps": 8, "num_stages": 5},
]


def smem_cases() -> list[SmemCase]:
    return [SmemCase("the lab's configs in fp16 with an H100's 232,448-byte limit", AUTOTUNE_CONFIGS, 2, 232_448),
            SmemCase("the lab's configs in fp32 with a 101,376-byte limit (an RTX 4090)", AUTOTUNE_CONFIGS, 4,
                     101_376),
            SmemCase("the lab's configs in fp16 with a 131,072-byte limit, which one of them needs exactly",
                     AUTOTUNE_CONFIGS, 2, 131_072)]


@register("03.smem", points=1, exercise="8b",
          title="smem_bytes and configs_that_fit: which autotune configs a GPU can run", cases=smem_cases)
def _smem(ctx: Context, cases: list[SmemCase]) -> str:
    problems = []
    for case in cases:
        problems += smem_problems(ctx.probe(probe_smem, case.configs, case.itemsize, case.limit), case, ctx.reveal)
    fail_if(problems)
    return f"shared memory and the configs that fit right on {len(cases)} cases"


# ---------------------------------------------------------------- 8c: the roofline of the epilogue
# True while the learner's linear_gelu_cost or epilogue_saving runs: the checker's own counts are not theirs to call.
LEARNER_COUNTING = [False]
OWN_COUNTS = ("linear_gelu_cost or epilogue_saving called the checker's own count (helpers.checks.lab03: "
              "eager_kernels, measured_cost or measured_saving): count the FLOPs and bytes yourself, as the exercise's "
              "text says.")


def eager_kernels(m: int, n: int, k: int, itemsize: int) -> tuple[list[dict], int]:
    """What eager `gelu(linear(x, w, b))` runs, one aten op per kernel, counted rather than derived: each op's FLOPs
    from torch's FlopCounterMode and its bytes from the sizes of the tensors it reads and writes (views move
    nothing), on meta tensors, so nothing is computed; `itemsize` bytes per element. Also the bytes of the graph's
    own inputs and output, all that one fused kernel has to move."""
    if LEARNER_COUNTING[0]:
        raise CheckFailed(OWN_COUNTS)
    from torch.utils.flop_counter import FlopCounterMode
    from torch.utils._pytree import tree_leaves

    kernels: list[dict] = []

    class Traffic(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if not func.is_view:
                tensors = [t for t in tree_leaves((args, kwargs, out)) if isinstance(t, torch.Tensor)]
                with FlopCounterMode(display=False) as counter:
                    func(*args, **(kwargs or {}))
                kernels.append({"op": func.__name__, "flops": counter.get_total_flops(),
                                "bytes": sum(t.numel() for t in tensors) * itemsize})
            return out

    x, w, b = (torch.empty(shape, device="meta") for shape in ((m, k), (n, k), (n,)))
    with Traffic():
        y = F.gelu(F.linear(x, w, b))
    return kernels, sum(t.numel() for t in (x, w, b, y)) * itemsize


def measured_cost(m: int, n: int, k: int, itemsize: int, fused: bool) -> dict:
    """{"flops", "bytes"} of the eager kernels summed, or, fused, of one kernel: the same FLOPs, and bytes only for
    the graph's inputs read and its output written once."""
    kernels, graph_bytes = eager_kernels(m, n, k, itemsize)
    flops = sum(kn["flops"] for kn in kernels)
    return {"flops": flops, "bytes": graph_bytes if fused else sum(kn["bytes"] for kn in kernels)}


def measured_saving(m: int, n: int, k: int, itemsize: int, peak_flops: float, bandwidth: float) -> float:
    """1 − t_fused / t_unfused, each kernel (the fused one; each eager one) at its roofline time."""
    def roof(cost: dict) -> float:
        return max(cost["flops"] / peak_flops, cost["bytes"] / bandwidth)

    kernels, _ = eager_kernels(m, n, k, itemsize)
    return 1 - roof(measured_cost(m, n, k, itemsize, True)) / sum(roof(kn) for kn in kernels)


@dataclass(frozen=True)
class RooflineCase:
    about: str
    shape: tuple[int, int, int]      # M, N, K
    itemsize: int
    peak_flops: float
    bandwidth: float


def as_cost(cost: Any) -> Any:
    """A cost dict as plain data: its "flops" and "bytes" (other keys left out), or its repr when it is no dict."""
    if not isinstance(cost, dict):
        return repr(cost)
    return {k: as_number(v) for k, v in cost.items() if k in ("flops", "bytes")} if {"flops", "bytes"} <= set(cost) \
        else dict(cost)


def probe_roofline(learner: Learner, shapes: list[tuple], itemsize: int, peak: float, bandwidth: float) -> list:
    out = []
    for m, n, k in shapes:
        LEARNER_COUNTING[0] = True
        try:
            costs = {fused: learner.call("linear_gelu_cost", m, n, k, itemsize, fused) for fused in (True, False)}
            saving = learner.call("epilogue_saving", m, n, k, itemsize, peak, bandwidth)
        finally:
            LEARNER_COUNTING[0] = False
        out.append({"fused": as_cost(costs[True]), "unfused": as_cost(costs[False]),
                    "saving": as_number(saving)})
    return out


def roofline_problems(report: list, case: RooflineCase, reveal: bool = True) -> list[str]:
    m, n, k = case.shape
    measured = {fused: measured_cost(m, n, k, case.itemsize, fused) for fused in (True, False)}
    problems = []
    for r in report:
        for fused in (True, False):
            got, want = r["fused" if fused else "unfused"], measured[fused]
            label = "fused" if fused else "unfused"
            if not isinstance(got, dict) or not {"flops", "bytes"} <= set(got):      # other keys may come along
                problems.append(f"{case.about}: linear_gelu_cost(..., fused={fused}) should return "
                                f"{{'flops': ..., 'bytes': ...}}, got {str(got)[:80]}.")
                continue
            if got["flops"] != want["flops"]:
                problems.append(f"{case.about}: {label} FLOPs " + (f"{got['flops']:,}, expected {want['flops']:,}"
                                if reveal else "wrong") + " (a multiply-add is 2 FLOPs: 2·M·N·K; fusing does not "
                                                          "change the arithmetic).")
            if got["bytes"] != want["bytes"]:
                hint = ""
                if got["bytes"] == want["bytes"] // case.itemsize:
                    hint = " (those are elements: multiply by the bytes per element)"
                elif not fused and got["bytes"] == measured[True]["bytes"]:
                    hint = " (unfused, the GELU kernel reads the M×N result back and writes it again)"
                elif fused and got["bytes"] == measured[False]["bytes"]:
                    hint = " (fused, the M×N result is written once and never read back)"
                problems.append(f"{case.about}: {label} bytes " + (f"{got['bytes']:,}, expected {want['bytes']:,}"
                                                                   if reveal else "wrong") + hint + ".")
        want_s = measured_saving(m, n, k, case.itemsize, case.peak_flops, case.bandwidth)
        got_s = r["saving"]
        if not isinstance(got_s, numbers.Number) or not math.isclose(got_s, want_s, rel_tol=1e-6, abs_tol=1e-12):
            hint = " (a fraction between 0 and 1, not a percentage)" if isinstance(got_s, numbers.Number) and \
                math.isclose(got_s, 100 * want_s, rel_tol=1e-6) else \
                " (time each kernel at its own roofline, max(FLOPs / peak, bytes / bandwidth), and sum the unfused pair)"
            problems.append(f"{case.about}: epilogue_saving " + (f"{got_s!r}, expected {want_s:.6g}" if reveal else
                                                                 "wrong") + hint + ".")
        if problems:
            break
    return problems


def roofline_cases() -> list[RooflineCase]:
    h100 = dict(peak_flops=989e12, bandwidth=3.35e12)
    return [RooflineCase("a decode step, M=1, N=14336, K=4096, fp16, H100 peaks", (1, 14336, 4096), 2, **h100),
            RooflineCase("a prefill, M=4096, N=14336, K=4096, fp16, H100 peaks", (4096, 14336, 4096), 2, **h100),
            RooflineCase("a small matmul, M=64, N=256, K=128, fp32, made-up peaks", (64, 256, 128), 4, 50e12, 1e12)]


@register("03.linear_roofline", points=1, exercise="8c",
          title="linear_gelu_cost and epilogue_saving: what fusing the epilogue saves, by the roofline",
          cases=roofline_cases)
def _linear_roofline(ctx: Context, cases: list[RooflineCase]) -> str:
    problems = []
    for case in cases:
        problems += roofline_problems(ctx.probe(probe_roofline, [case.shape], case.itemsize, case.peak_flops,
                                                case.bandwidth), case, ctx.reveal)
    fail_if(problems)
    return f"FLOPs, bytes and the saving right on {len(cases)} shapes"
