"""Tests of helpers/inductor.py on real Inductor dumps (solutions/hidden/dumps/<device>-torch<ver>/<model>/).

New fixture folders (another torch version, a GPU) are picked up automatically; make them with
`python3 tools/capture_inductor_fixtures.py --out solutions/hidden/dumps [--device cuda]`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.inductor import (
    KINDS,
    GeneratedCode,
    Kernel,
    capture,
    kernel_name_ops,
    load_dump,
    parse_launch_order,
    parse_output_code,
)

FIXTURES = Path(__file__).resolve().parents[1] / "solutions" / "hidden" / "dumps"
DUMPS = sorted(p.parent for p in FIXTURES.glob("*/*/output_code.py") if not p.parent.name.endswith("_train"))
TRAIN_DUMPS = sorted(FIXTURES.glob("*/*_train"))   # a training step: a forward and a backward module in one file


def dumps(model: str | None = None) -> list:
    """Fixture folders (all, or one model's) as pytest params named <device>-torch<ver>/<model>."""
    chosen = [d for d in DUMPS if model is None or d.name == model]
    return [pytest.param(d, id=f"{d.parent.name}/{d.name}") for d in chosen]


def is_softmax(k: Kernel) -> bool:
    """A kernel that computes a softmax, however this torch version spells it."""
    ops = set(k.aten_ops)
    return "softmax" in k.name or bool(ops & {"_softmax", "prepare_softmax_online"}) or {"amax", "exp", "sum"} <= ops


def has_softmax_reductions(k: Kernel) -> bool:
    """A max-like and a sum-like reduction, or one online-softmax reduction."""
    r = set(k.reductions)
    return "online_softmax" in r or ({"max", "sum"} <= r)


def launch_index(code: GeneratedCode, pred) -> int:
    """Index of the first launch matching pred, with a readable failure."""
    for i, launch in enumerate(code.launches):
        if pred(launch):
            return i
    raise AssertionError(f"no matching launch in:\n{code.summary()}")


# ---------------------------------------------------------------------------------------------
# shared checks (fixtures and the live capture)


def check_tinyhead(code: GeneratedCode) -> None:
    """Extern matmul first, then one fused softmax kernel with exp and max/sum reductions."""
    softmax = [k for k in code.kernels if is_softmax(k)]
    assert len(softmax) == 1, f"expected one softmax kernel, got:\n{code.summary()}"
    k = softmax[0]
    assert "exp" in k.aten_ops, f"{k.name} ops {k.aten_ops} (from {k.aten_ops_source}) lack exp"
    assert has_softmax_reductions(k), f"{k.name} reductions {k.reductions} lack max+sum / online softmax"
    assert k.kind in ("persistent_reduction", "reduction", "cpp"), k.kind
    mm = launch_index(code, lambda l: l.extern and re.search(r"\b(addmm|mm)\b", l.name))
    assert mm < launch_index(code, lambda l: l.name == k.name), code.summary()
    assert k in code.fused_kernels()


def check_well_formed(code: GeneratedCode) -> None:
    """Every kernel has a kind, a device, source, loads and stores; launches name known kernels."""
    assert code.kernels, "no kernels parsed"
    names = {k.name for k in code.kernels}
    for k in code.kernels:
        assert k.kind in KINDS and k.kind != "unknown", (k.name, k.kind)
        assert k.device == code.device, (k.name, k.device, code.device)
        assert k.source.strip(), k.name
        assert k.loads and k.stores, f"{k.name}: loads {k.loads} stores {k.stores}"
        assert all(a.buffer and a.index for a in k.loads + k.stores), k.name
        assert not any("local_buffer" in a.buffer or "static_cast" in a.index for a in k.loads + k.stores), k.name
        assert k.aten_ops_source in ("comment", "provenance", "kernel_name")
    assert {l.name for l in code.launches if not l.extern} <= names
    assert names <= {l.name for l in code.launches}, "a kernel is never launched"


# ---------------------------------------------------------------------------------------------
# fixtures


def test_fixtures_exist():
    assert dumps("tinyhead") and dumps("chain") and dumps("minigpt"), f"no fixtures under {FIXTURES}"


@pytest.mark.parametrize("folder", dumps())
def test_dump_well_formed(folder):
    code = load_dump(folder)
    assert code.device == folder.parent.name.split("-")[0]
    assert code.debug_dir == folder
    check_well_formed(code)


@pytest.mark.parametrize("folder", dumps("tinyhead"))
def test_tinyhead(folder):
    check_tinyhead(load_dump(folder))


@pytest.mark.parametrize("folder", dumps("chain"))
def test_chain_is_one_pointwise_kernel(folder):
    code = load_dump(folder)
    assert len(code.kernels) == 1, code.summary()
    k = code.kernels[0]
    assert k.kind in ("pointwise", "cpp")
    assert {"add", "mul", "relu", "sigmoid"} <= set(k.aten_ops), k.aten_ops
    assert {"sub", "add"} & set(k.aten_ops)  # x - 0.5 may be written as add(-0.5)
    assert not k.reductions
    assert [l.name for l in code.launches] == [k.name]


@pytest.mark.parametrize("folder", dumps("minigpt"))
def test_minigpt(folder):
    code = load_dump(folder)
    assert len(code.kernels) >= 3, code.summary()
    assert any(is_softmax(k) and has_softmax_reductions(k) for k in code.kernels), code.summary()
    assert any(l.extern and re.search(r"mm\b", l.name) for l in code.launches), code.summary()
    assert len(code.fused_kernels()) >= 3


@pytest.mark.parametrize("folder", dumps())
def test_launch_order_is_the_order_in_call(folder):
    code = load_dump(folder)
    call = code.output_code.split("def call(", 1)[1]
    names = [k.name for k in code.kernels]
    pattern = r"\b(extern_kernels\.\w+|" + "|".join(map(re.escape, names)) + r")(?:\.run)?\("
    in_text = re.findall(pattern, call)
    assert [l.name for l in code.launches] == in_text


@pytest.mark.parametrize("folder", dumps())
def test_provenance_fallback_without_comments(folder):
    """With every comment stripped, provenance + the FX graph still name the fused ops."""
    code = load_dump(folder)
    if code.provenance is None:
        pytest.skip("no provenance file in this dump")
    bare = "\n".join(line for line in code.output_code.splitlines() if not line.strip().startswith("#"))
    fx = "\n".join(p.read_text() for p in sorted(folder.glob("fx_graph_*.py")))
    kernels = parse_output_code(bare, provenance=code.provenance, fx_graph=fx)
    assert [k.name for k in kernels] == [k.name for k in code.kernels]
    for k in kernels:
        assert k.aten_ops_source == "provenance" and k.aten_ops, (k.name, k.aten_ops_source)
    if folder.name == "tinyhead":
        assert {"sub", "exp", "div"} <= set(next(k for k in kernels if is_softmax(k)).aten_ops)


@pytest.mark.parametrize("folder", dumps("tinyhead"))
def test_lookup_and_summary(folder):
    code = load_dump(folder)
    k = code.kernels[0]
    assert code.kernel(k.name) is k
    with pytest.raises(KeyError, match=re.escape(k.name)):
        code.kernel("no_such_kernel")
    table = code.summary()
    assert all(l.name in table for l in code.launches)
    assert "exp" in table
    assert code.ir_pre_fusion and code.ir_post_fusion
    assert "output_code" not in repr(code)  # the repr stays short in a notebook


def test_cpu_accesses_and_reductions():
    """The TinyHead C++ kernel: index text cleaned, scratch buffer left out, max then sum."""
    folder = FIXTURES / "cpu-torch2.13" / "tinyhead"
    if not folder.exists():
        pytest.skip("no cpu-torch2.13 fixture")
    k = load_dump(folder).kernel("cpp_fused__softmax_0")
    assert ("in_ptr0", "x1 + 600L*x0") in [(a.buffer, a.index) for a in k.loads]
    assert ("out_ptr2", "x1 + 600L*x0") in [(a.buffer, a.index) for a in k.stores]
    assert k.reductions == ["max", "sum"]
    assert k.aten_ops == ["amax", "sub", "exp", "sum", "div"] and k.aten_ops_source == "provenance"


# ---------------------------------------------------------------------------------------------
# small sources written by hand


CPP = '''
cpp_fused_demo_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r\'\'\'
extern "C" void kernel(const float* in_ptr0, float* out_ptr0)
{
    float* local_buffer_data_0 = buf.get();
    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 8L*(static_cast<int64_t>(x0))), 16);
    tmp0.store(local_buffer_data_0 + static_cast<int64_t>(x1));
    auto tmp1 = in_ptr0[static_cast<int64_t>(x0)];
    out_ptr0[static_cast<int64_t>(x0)] = tmp1;
}
\'\'\')
'''

TRITON = """
triton_red_fused_var_mean_0 = async_compile.triton('triton_red_fused_var_mean_0', '''
import triton
@triton_heuristics.reduction(size_hints={'x': 8, 'r0_': 512})
@triton.jit
def triton_red_fused_var_mean_0(in_ptr0, out_ptr0, xnumel, r0_numel):
    tmp0 = tl.load(in_ptr0 + (r0_1 + 512*x0), r0_mask, other=0.0)
    tmp2_mean_next, tmp2_m2_next, tmp2_weight_next = triton_helpers.welford_reduce(tmp1, a, b, c, roffset == 0)
    tl.store(out_ptr0 + (x0), tmp3, xmask)
''', device_str='cuda')
"""


def test_cpp_snippet():
    [k] = parse_output_code(CPP)
    assert (k.kind, k.device) == ("cpp", "cpu")
    assert [(a.buffer, a.index) for a in k.loads] == [("in_ptr0", "x1 + 8L*(x0)"), ("in_ptr0", "x0")]
    assert [(a.buffer, a.index) for a in k.stores] == [("out_ptr0", "x0")]


def test_triton_snippet():
    [k] = parse_output_code(TRITON)
    assert (k.kind, k.device, k.reductions) == ("reduction", "cuda", ["welford"])
    assert k.source.startswith("@triton_heuristics.reduction")
    assert [(a.buffer, a.index) for a in k.loads] == [("in_ptr0", "r0_1 + 512*x0")]
    assert k.aten_ops == ["var_mean"] and k.aten_ops_source == "kernel_name"


@pytest.mark.parametrize("name, ops", [
    ("triton_poi_fused_add_mul_relu_sigmoid_sub_0", ["add", "mul", "relu", "sigmoid", "sub"]),
    ("triton_per_fused__softmax_exp_prepare_softmax_online_sub_0", ["_softmax", "exp", "prepare_softmax_online", "sub"]),
    ("cpp_fused__softmax_0", ["_softmax"]),
    ("cpp_fused_add_arange_embedding_native_layer_norm_view_4", ["add", "arange", "embedding", "native_layer_norm", "view"]),
    ("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1", ["_to_copy", "add", "mean", "mul", "pow", "rsqrt"]),
    ("triton_tem_fused_addmm_relu_0", ["addmm", "relu"]),
    ("triton_per_fused_native_layer_norm_native_layer_norm_backward_2", ["native_layer_norm", "native_layer_norm_backward"]),
    ("triton_poi_fused_masked_fill_bitwise_not_12", ["masked_fill", "bitwise_not"]),
    ("triton_poi_fused_0", []),
    ("extern_kernels.addmm", []),
    ("", []),
])
def test_kernel_name_ops(name, ops):
    assert kernel_name_ops(name) == ops


@pytest.mark.parametrize("text", [
    "", "garbage (((( [[[ '''", "def call(args):\n    foo.run(\n", "x = async_compile.triton('x', '''@triton.jit\ndef x(",
    "cpp_fused_0 = async_compile.cpp_pybinding([], r'''extern \"C\" void kernel(float* in_ptr0) { in_ptr0[",
    None, 42,
])
def test_garbage_does_not_raise(text):
    kernels = parse_output_code(text)
    launches = parse_launch_order(text)
    assert isinstance(kernels, list) and isinstance(launches, list)
    assert all(k.kind in KINDS for k in kernels)


@pytest.mark.parametrize("folder", dumps())
def test_truncated_dump_does_not_raise(folder):
    src = (folder / "output_code.py").read_text()
    for cut in range(0, len(src), max(1, len(src) // 40)):
        parse_output_code(src[:cut])
        parse_launch_order(src[:cut])


def test_load_dump_needs_output_code(tmp_path):
    with pytest.raises(FileNotFoundError, match="output_code.py"):
        load_dump(tmp_path)


# ---------------------------------------------------------------------------------------------
# live


@pytest.mark.slow
def test_capture_tinyhead_live(tmp_path):
    import torch
    import torch._inductor.config as inductor_config

    from helpers.models import TinyHead

    before = (inductor_config.force_disable_caches, inductor_config.trace.enabled)
    torch.manual_seed(0)
    code = capture(TinyHead().eval(), torch.randn(2, 64), debug_dir=tmp_path)
    assert (inductor_config.force_disable_caches, inductor_config.trace.enabled) == before
    assert code.device == "cpu"
    check_well_formed(code)
    check_tinyhead(code)
    assert code.debug_dir is not None and code.debug_dir.is_relative_to(tmp_path)
    assert (code.debug_dir / "ir_pre_fusion.txt").is_file()
    assert (code.debug_dir / "ir_post_fusion.txt").is_file()
    assert code.ir_post_fusion and code.provenance is not None


@pytest.mark.slow
@pytest.mark.gpu
def test_capture_tinyhead_live_cuda(tmp_path):
    import torch

    from helpers.models import TinyHead

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    torch.manual_seed(0)
    code = capture(TinyHead().eval().cuda(), torch.randn(2, 64, device="cuda"), debug_dir=tmp_path)
    assert code.device == "cuda"
    assert all(k.kind != "cpp" for k in code.kernels)
    check_well_formed(code)
    check_tinyhead(code)


def test_training_dumps_cover_cpu_and_gpu():
    assert {p.parent.name.split("-")[0] for p in TRAIN_DUMPS} >= {"cpu", "cuda"}, TRAIN_DUMPS


@pytest.mark.parametrize("folder", TRAIN_DUMPS, ids=lambda p: p.parent.name)
def test_training_dump_holds_forward_and_backward_kernels(folder):
    """Both modules parse: the forward's kernels and the backward's, whose ops name the derivatives they fuse."""
    code = load_dump(folder)
    assert code.output_code.count("def call(") == 2
    derivative = [k for k in code.kernels if any(o.endswith(("_backward", "_backward_data")) for o in k.aten_ops)]
    ops = {o for k in derivative for o in k.aten_ops}
    assert {"gelu_backward", "_softmax_backward_data", "embedding_dense_backward"} <= ops, code.summary()
    assert len(derivative) < len(code.kernels)
    assert any(l.extern and "mm" in l.name for l in code.launches)


@pytest.mark.parametrize("folder", TRAIN_DUMPS, ids=lambda p: p.parent.name)
def test_training_summary_and_ops_follow_the_code(folder):
    """A training step's summary heads its forward and backward launches; a kernel whose code only sums (a bias
    gradient) or has no erf is not said to compute GELU's derivative, whatever its name says (issue 33, item 4)."""
    code = load_dump(folder)
    table = code.summary()
    assert table.index("forward graph:") < table.index("backward graph:"), table
    assert {l.graph for l in code.launches} == {"forward", "backward"}
    for k in code.kernels:
        if "gelu_backward" in k.aten_ops:
            assert re.search(r"erf|exp|tanh", k.source), k.name
    refined = [k for k in code.kernels if k.aten_ops_source.endswith("+code")]
    assert refined and all("gelu_backward" not in k.aten_ops for k in refined)
