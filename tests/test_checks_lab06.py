"""Lab 06's checks: the solution passes each one, public and hidden; the untouched lab fails each one with
"not written yet"; and a classic mistake per exercise fails the check that covers it, with a message that says
what to fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import checks
from tests.in_process_grader import notebook_namespace, run_hidden, run_public

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "06_compiling_training.ipynb"
LAB = ROOT / "labs" / "06_compiling_training.ipynb"
CELLS = ["parameters", "setup", "ex-a", "ex-b", "ex-b2", "run-c", "ex-c", "ex-d", "ex-d2", "ex-f", "ex-g", "ex-h"]
NAMES = [s.name for s in checks.load_lab("06")]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lab06")


@pytest.fixture(scope="module")
def solved(out) -> dict:
    return notebook_namespace(SOLUTION, out, CELLS)


@pytest.fixture(scope="module")
def untouched(out) -> dict:
    return notebook_namespace(LAB, out, CELLS)


def test_points():
    assert sum(s.points for s in checks.load_lab("06")) == 20


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_public_and_hidden(name, solved, out):
    for run in (run_public, run_hidden):
        result = run(name, solved, out)
        assert result.passed, (run.__name__, result.line())


@pytest.mark.parametrize("name", NAMES)
def test_untouched_lab_fails_as_not_written(name, untouched, out):
    result = run_public(name, untouched, out)
    assert not result.passed
    assert "not written yet" in result.message or "not filled in yet" in result.message, result.line()


def with_source(solved: dict, source: str) -> dict:
    ns = dict(solved)
    exec(source, ns)
    return ns


MISTAKES = {
    "06.two_graphs": [
        ("histogram keyed by the overload, not the packet", """
def op_histogram(gm):
    return dict(Counter(str(n.target) for n in gm.graph.nodes if n.op == "call_function"))
""", "overload packet"),
        ("no backward run", """
def record_train_graphs(model, idx, targets):
    torch._dynamo.reset()
    graphs = {"forward": [], "backward": []}
    def keeper(side):
        def compiler(gm, ex):
            graphs[side].append(gm)
            return make_boxed_func(gm.forward)
        return compiler
    torch.compile(loss_fn, backend=aot_autograd(fw_compiler=keeper("forward"), bw_compiler=keeper("backward")))(model, idx, targets)
    return graphs
""", "loss.backward()"),
    ],
    "06.saved": [
        ("tangents and parameters listed as saved", """
def saved_activations(fw_gm, bw_gm):
    return [{"name": n.name, "bytes": n.meta["val"].numel() * n.meta["val"].element_size()}
            for n in bw_gm.graph.nodes if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor)]
""", "tangents"),
        ("eager: every saved tensor counted, views twice", """
def eager_saved_bytes(model, idx, targets):
    total = [0]
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    def pack(t):
        if t.untyped_storage().data_ptr() not in params:
            total[0] += t.numel() * t.element_size()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss_fn(model, idx, targets)
    return total[0]
""", "storage once"),
        ("eager: parameters counted", """
def eager_saved_bytes(model, idx, targets):
    seen = {}
    def pack(t):
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss_fn(model, idx, targets)
    return sum(seen.values())
""", "parameters"),
    ],
    "06.recompute": [
        ("the difference taken the wrong way round", """
def recomputed_ops(bw_default, bw_mincut):
    a = Counter({k.split(".")[-1]: v for k, v in op_histogram(bw_default).items()})
    b = Counter({k.split(".")[-1]: v for k, v in op_histogram(bw_mincut).items()})
    return sorted(op for op in a if op not in VIEW_AND_COPY_OPS and a[op] > b[op])
""", "min-cut"),
    ],
    "06.backward_kernels": [
        ("picked by name", """
def derivative_kernels(kernels):
    return {k.name: [o for o in k.aten_ops if o.endswith("_backward") or o.endswith("_backward_data")] or ["?"]
            for k in kernels if "backward" in k.name}
""", "name"),
    ],
    "06.breaks": [
        ("no backward", """
def count_graphs(fn, *args):
    torch._dynamo.reset()
    n = [0]
    def backend(gm, ex):
        n[0] += 1
        return gm.forward
    torch.compile(fn, backend=backend)(*args)
    return n[0], n[0]
""", ".backward()"),
    ],
    "06.recompiles": [
        ("ops counted instead of frames", """
def count_compiles(fn, script):
    from torch._dynamo.testing import CompileCounter
    torch._dynamo.reset()
    counter = CompileCounter()
    script(torch.compile(fn, backend=counter), fn)
    return counter.op_count
""", "frame_count"),
    ],
    "06.predictions": [
        ("a guess that nothing recompiles", 'PREDICTED_COMPILES = {"eval": 1, "requires_grad": 1, "autocast": 1, "int_branch": 1}',
         "you predicted"),
    ],
    "06.checkpoint": [
        ("wrapped, never checkpointed", """
def checkpoint_blocks(model):
    class Wrapped(nn.Module):
        def __init__(self, block):
            super().__init__()
            self.block = block
        def forward(self, x):
            return self.block(x)
    for i, b in enumerate(model.blocks):
        model.blocks[i] = Wrapped(b)
    return model
""", "checkpoint"),
        ("a fresh model", """
def checkpoint_blocks(model):
    return MiniGPT(vocab=model.tok.num_embeddings, d_model=model.tok.embedding_dim, n_heads=2, n_layers=len(model.blocks),
                   max_len=model.max_len)
""", "arithmetic"),
    ],
    "06.mixed_precision": [
        ("dtype ignored", """
def train_losses(model, batches, dtype, compiled, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    step = torch.compile(loss_fn) if compiled else loss_fn
    out = []
    for xb, yb in batches:
        opt.zero_grad()
        loss = step(model, xb, yb)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out
""", "autocast"),
    ],
    "06.payoff": [
        ("rounded down", """
def steps_to_pay_off(compile_s, eager_ms, compiled_ms):
    saved = eager_ms - compiled_ms
    return math.inf if saved <= 0 else int(compile_s * 1000 // saved)
""", "smallest whole number"),
        ("None when it never pays", """
def steps_to_pay_off(compile_s, eager_ms, compiled_ms):
    saved = eager_ms - compiled_ms
    return None if saved <= 0 else math.ceil(compile_s * 1000 / saved)
""", "math.inf"),
    ],
}
CASES = [(name, about, src, words) for name, items in MISTAKES.items() for about, src, words in items]


def test_every_check_has_a_mistake():
    assert set(MISTAKES) == set(NAMES)


@pytest.mark.parametrize("name,about,source,words", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_classic_mistake_fails_with_a_message_that_says_why(name, about, source, words, solved, out):
    ns = with_source(solved, source)
    public = run_public(name, ns, out)
    assert not public.passed and words in public.message, public.line()
    assert public.status == "failed", public.line()
    assert not run_hidden(name, ns, out).passed


def test_graphs_kept_from_an_earlier_compile_fail_the_hidden_check(solved, out):
    """The notebook's own model has the public case's shape; the grader's has two blocks, and graphs recorded once
    and handed back whatever model comes in are caught by their op counts."""
    ns = with_source(solved, """
_kept = {}
def record_train_graphs(model, tokens, next_tokens):
    if not _kept:
        torch._dynamo.reset()
        graphs = {"forward": [], "backward": []}
        def keeper(side):
            def compiler(gm, ex):
                graphs[side].append(gm)
                return make_boxed_func(gm.forward)
            return compiler
        backend = aot_autograd(fw_compiler=keeper("forward"), bw_compiler=keeper("backward"))
        torch.compile(loss_fn, backend=backend)(small, idx, targets).backward()   # the notebook's model and batch
        _kept.update(graphs)
    loss_fn(model, tokens, next_tokens).backward()
    return _kept
""")
    result = run_hidden("06.two_graphs", ns, out)
    assert not result.passed and "earlier compile" in result.message, result.line()


@pytest.mark.parametrize("source", [
    """
def checkpoint_blocks(model):
    for block in model.blocks:
        plain_forward = block.forward
        block.forward = lambda x, f=plain_forward: checkpoint(f, x, use_reentrant=False)
    return model
""", """
def checkpoint_blocks(model):
    class Wrap(nn.Module):
        def __init__(self, block):
            super().__init__()
            self.block = block
        def forward(self, x):
            return checkpoint(self.block, x, use_reentrant=True)
    model.blocks = nn.ModuleList(Wrap(b) for b in model.blocks)
    return model
"""], ids=["forward patched on the instance", "reentrant, a new ModuleList"])
def test_checkpointing_written_another_way_passes(source, solved, out):
    ns = with_source(solved, source)
    for run in (run_public, run_hidden):
        result = run("06.checkpoint", ns, out)
        assert result.passed, (run.__name__, result.line())
