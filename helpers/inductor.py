"""Capture the code Inductor writes for a model and read it back as kernels (Labs 03 and 04).

`capture(fn, *args)` compiles `fn` fresh and returns a `GeneratedCode`: the output code,
its kernels (kind, fused ATen ops, loads, stores, reductions, source), the launch order of
`call()` and, when asked, the debug folder with the IR before and after fusion.
`load_dump(folder)` reads the same from a saved folder (the dumps in solutions/hidden/dumps/, which the grader and the tests use, are such folders).

The parser is deliberately loose: generated code changes between torch releases and between
CPU (C++ kernels) and GPU (Triton kernels). Whatever it does not recognise it leaves empty;
it never raises on odd input.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

KINDS = ("pointwise", "reduction", "persistent_reduction", "template", "cpp", "unknown")
PROVENANCE_FILE = "inductor_provenance_tracking_node_mappings.json"
DUMP_FILES = ("output_code.py", "ir_pre_fusion.txt", "ir_post_fusion.txt", PROVENANCE_FILE,
              "fx_graph_readable.py", "fx_graph_transformed.py")


@dataclass
class Access:
    """One load or store of a global buffer in a kernel."""

    buffer: str  # pointer name as written in the kernel: in_ptr0, out_ptr2, in_out_ptr0, ...
    index: str   # index expression as written, e.g. "x1 + 600L*x0"


@dataclass
class Kernel:
    """One kernel Inductor generated, with what it fuses, reads, writes and reduces."""

    name: str
    kind: str
    device: str
    aten_ops: list[str] = field(default_factory=list)
    aten_ops_source: str = "kernel_name"
    loads: list[Access] = field(default_factory=list)
    stores: list[Access] = field(default_factory=list)
    reductions: list[str] = field(default_factory=list)
    source: str = field(default="", repr=False)


@dataclass
class Launch:
    """One line of call() that launches work: a generated kernel or a library call."""

    name: str
    extern: bool
    line: str
    comment: str = field(default="", repr=False)  # the comment lines since the previous launch
    graph: str = ""   # whose call() runs it when the code holds several: "forward", "backward", "graph 3", ...


@dataclass
class GeneratedCode:
    """Everything captured from one compile: output code, kernels, launch order, debug files."""

    output_code: str = field(repr=False)
    kernels: list[Kernel]
    launches: list[Launch]
    device: str
    debug_dir: Path | None = None
    ir_pre_fusion: str | None = field(default=None, repr=False)
    ir_post_fusion: str | None = field(default=None, repr=False)
    provenance: dict | None = field(default=None, repr=False)

    def kernel(self, name: str) -> Kernel:
        """The kernel called `name`; the error lists the names there are."""
        for k in self.kernels:
            if k.name == name:
                return k
        names = ", ".join(k.name for k in self.kernels) or "none"
        raise KeyError(f"no kernel named {name!r}; the generated kernels are: {names}")

    def fused_kernels(self) -> list[Kernel]:
        """Kernels that fuse two or more ATen ops."""
        return [k for k in self.kernels if len(k.aten_ops) >= 2]

    def summary(self) -> str:
        """A small table of what call() runs, in order: kind and fused ops of each launch (a heading per graph
        when the code holds several, e.g. a training step's forward and backward)."""
        by_name = {k.name: k for k in self.kernels}
        rows = [("#", "launch", "kind", "ops")]
        headings = {}
        for i, launch in enumerate(self.launches):
            k = by_name.get(launch.name)
            if k is not None:
                kind, ops = k.kind, k.aten_ops
            else:
                kind, ops = ("extern" if launch.extern else "unknown"), _original_aten(launch.comment)
            if launch.graph and (i == 0 or self.launches[i - 1].graph != launch.graph):
                headings[len(rows)] = f"{launch.graph} graph:"
            rows.append((str(i), launch.name, kind, ", ".join(ops)))
        widths = [max(len(r[c]) for r in rows) for c in range(3)]
        lines = []
        for j, r in enumerate(rows):
            if j in headings:
                lines.append(headings[j])
            lines.append(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}".rstrip())
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# capture: compile fresh, collect the code and the debug folder


def capture(fn: Callable, *args: Any, debug_dir: str | Path | None = None, no_grad: bool = True,
            **compile_kwargs: Any) -> GeneratedCode:
    """Compile `fn` with torch.compile from a cold start, run it once on `args`, return the parsed code.

    Caches are off so the debug files are always written; every config changed is restored.
    With `debug_dir` the Inductor debug folder (IR before/after fusion, provenance) is kept there.
    """
    import torch
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    with tempfile.TemporaryDirectory(prefix="inductor_capture_") as tmp:
        root = Path(debug_dir) if debug_dir is not None else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        before = set(_dump_folders(root))
        grad = torch.no_grad() if no_grad else contextlib.nullcontext()
        with _capture_config(root), grad:
            _, codes = run_and_get_code(torch.compile(fn, **compile_kwargs), *args)
        folders = [f for f in _dump_folders(root) if f not in before]
        files = _read_dump_files(folders)
    code = "\n\n".join(codes)
    return _build(code, files, debug_dir=folders[0] if folders and debug_dir is not None else None,
                  device=_args_device(args))


def load_dump(folder: str | Path) -> GeneratedCode:
    """Read a saved Inductor debug folder (output_code.py plus whichever debug files it holds)."""
    folder = Path(folder)
    if not (folder / "output_code.py").is_file():
        raise FileNotFoundError(f"{folder} has no output_code.py; point load_dump at one debug folder "
                                "(.../torchinductor/<model>__N_inference_M.K/) or a fixture folder")
    files = _read_dump_files([folder])
    meta = _read_json(folder / "meta.json") or {}
    return _build(files.pop("output_code.py"), files, debug_dir=folder, device=meta.get("device"))


def _capture_config(root: Path) -> contextlib.ExitStack:
    """Patch Inductor/Dynamo config for one traced, uncached compile; undone on exit."""
    import torch._dynamo.config as dynamo_config
    import torch._inductor.config as inductor_config

    # The FX graph cache off (a hit writes no debug files), the C++/Triton code cache on: a fresh dump in
    # ~3 s instead of a cold ~12 s compile (TinyHead, 2-core CPU, torch 2.13).
    patch: dict[str, Any] = {"fx_graph_cache": False, "trace.enabled": True}
    if _has_config(inductor_config, "trace.provenance_tracking_level"):
        patch["trace.provenance_tracking_level"] = max(1, inductor_config.trace.provenance_tracking_level)
    elif _has_config(inductor_config, "trace.provenance_tracking"):
        patch["trace.provenance_tracking"] = True
    if _has_config(inductor_config, "trace.debug_dir"):
        patch["trace.debug_dir"] = None  # so the folder lands under debug_dir_root
    stack = contextlib.ExitStack()
    stack.enter_context(inductor_config.patch(patch))
    import torch._functorch.config as functorch_config

    if _has_config(functorch_config, "enable_autograd_cache"):
        stack.enter_context(functorch_config.patch(enable_autograd_cache=False))
    stack.enter_context(dynamo_config.patch(debug_dir_root=str(root)))
    stack.enter_context(_quiet())
    return stack


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Hide the 'debug trace: <folder>' log line and the caches-off warning while capturing."""
    log = logging.getLogger("torch._inductor.debug")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*force_disable_caches.*")
            yield
    finally:
        log.setLevel(level)


def _has_config(module: Any, dotted: str) -> bool:
    """True if the config module has the (dotted) setting in this torch version."""
    obj = module
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except (AttributeError, KeyError):
            return False
    return True


def _dump_folders(root: Path) -> list[Path]:
    """Inductor debug folders under root: run_*/torchinductor/<model>__N_inference_M.K/."""
    return sorted(p.parent for p in root.glob("**/torchinductor/*/output_code.py"))


def _read_dump_files(folders: list[Path]) -> dict[str, Any]:
    """Read the known debug files of one or more folders, joining text across folders."""
    files: dict[str, Any] = {}
    for folder in folders:
        for name in DUMP_FILES:
            path = folder / name
            if name == PROVENANCE_FILE:
                path = _provenance_path(folder)
            if path is None or not path.is_file():
                continue
            if name == PROVENANCE_FILE:
                files[name] = _merge_json(files.get(name), _read_json(path))
            else:
                text = path.read_text(errors="replace")
                files[name] = files[name] + "\n" + text if name in files else text
    return files


def _provenance_path(folder: Path) -> Path | None:
    """The provenance mapping JSON of a debug folder (its name varies between versions)."""
    exact = folder / PROVENANCE_FILE
    if exact.is_file():
        return exact
    found = sorted(folder.glob("*provenance*.json")) + sorted(folder.glob("*kernel_to_post_grad*.json"))
    return found[0] if found else None


def _read_json(path: Path) -> Any:
    """Parsed JSON, or None if the file is missing or not JSON."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _merge_json(a: Any, b: Any) -> Any:
    """Merge two provenance dicts (one per graph), one level deep."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return b if a is None else a
    out = dict(a)
    for key, value in b.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = {**out[key], **value}
        else:
            out.setdefault(key, value)
    return out


def _args_device(args: tuple) -> str | None:
    """'cuda' if any tensor argument lives on a GPU, 'cpu' if all are on CPU, else None."""
    devices = {getattr(getattr(a, "device", None), "type", None) for a in args} - {None}
    return "cuda" if "cuda" in devices else next(iter(devices), None)


def _build(code: str, files: dict[str, Any], debug_dir: Path | None, device: str | None) -> GeneratedCode:
    """Parse output code plus debug files into a GeneratedCode."""
    provenance = files.get(PROVENANCE_FILE)
    fx_graph = "\n".join(files[n] for n in ("fx_graph_transformed.py", "fx_graph_readable.py") if n in files)
    kernels = parse_output_code(code, provenance=provenance, fx_graph=fx_graph or None)
    if device is None:
        device = "cuda" if any(k.device == "cuda" for k in kernels) or "empty_strided_cuda(" in _call_text(code) else "cpu"
    return GeneratedCode(output_code=code, kernels=kernels, launches=parse_launch_order(code), device=device,
                         debug_dir=debug_dir, ir_pre_fusion=files.get("ir_pre_fusion.txt"),
                         ir_post_fusion=files.get("ir_post_fusion.txt"),
                         provenance=provenance if isinstance(provenance, dict) else None)


# ---------------------------------------------------------------------------------------------
# kernels: where they are defined in the output code


@dataclass
class _Def:
    name: str        # the Python name the wrapper binds the kernel to
    compiler: str    # async_compile.<compiler>: triton, cpp_pybinding, cpp, ...
    args: str        # the call's text outside the source string (device_str=..., arg types)
    body: str        # the source string
    comment: str     # the comment block just above the definition


_DEF_RE = re.compile(r"^(\w+)\s*=\s*async_compile\.(\w+)\(", re.M)
_STRING_RE = re.compile(r"[rRbBuU]?('''|\"\"\")")


def _kernel_defs(src: str) -> list[_Def]:
    """Every `name = async_compile.X(..., '''source''', ...)` in the output code."""
    defs = []
    matches = list(_DEF_RE.finditer(src))
    for m, after in zip(matches, matches[1:] + [None]):
        start = m.end()
        s = _STRING_RE.search(src, start, after.start() if after else len(src))
        if s is None:  # no source string (multi_kernel, truncated code, ...)
            body, rest = "", src[start:start + 500]
        else:
            end = src.find(s.group(1), s.end())
            end = len(src) if end < 0 else end
            body = src[s.end():end]
            line_end = src.find("\n", end)
            rest = src[start:s.start()] + src[end + 3:len(src) if line_end < 0 else line_end]
        defs.append(_Def(m.group(1), m.group(2), rest, body, _comment_above(src, m.start())))
    return defs


def _comment_above(src: str, pos: int) -> str:
    """The run of comment lines directly above the line that starts at pos."""
    lines = src[:pos].splitlines()
    block: list[str] = []
    for line in reversed(lines):
        if not line.strip().startswith("#"):
            break
        block.append(line.strip())
    return "\n".join(reversed(block))


# ---------------------------------------------------------------------------------------------
# parse_output_code: one Kernel per definition


def parse_output_code(src: str, provenance: dict | None = None, fx_graph: str | None = None) -> list[Kernel]:
    """Kernels defined in Inductor's output code, with kind, fused ops, accesses and reductions."""
    if not isinstance(src, str):
        return []
    launches = parse_launch_order(src)
    node_ops = _node_ops(fx_graph or "")
    node_ops.update({k: v for k, v in _node_ops(src).items() if k not in node_ops})
    kernels = []
    for d in _kernel_defs(src):
        try:
            kernels.append(_parse_kernel(d, launches, provenance, node_ops))
        except Exception:  # loose by design: an odd kernel must not break the rest
            kernels.append(Kernel(d.name, "unknown", "cpu" if d.compiler.startswith("cpp") else "unknown",
                                  source=d.body))
    return kernels


def _parse_kernel(d: _Def, launches: list[Launch], provenance: Any, node_ops: dict[str, tuple[int, str]]) -> Kernel:
    """One Kernel from its definition and the launches that call it."""
    is_cpp = d.compiler.startswith("cpp")
    source = d.body.strip("\n") if is_cpp else _triton_function(d.body)
    comments = [d.comment, source] + [l.comment for l in launches if l.name == d.name]
    ops, origin = _comment_ops(comments, node_ops), "comment"
    if not ops:
        ops, origin = _provenance_ops(d.name, comments, provenance, node_ops), "provenance"
    if not ops:
        ops, origin = kernel_name_ops(d.name), "kernel_name"
    if origin != "provenance" and _only_reduces(source, is_cpp):
        # The name (and the comment) list every op whose result fed the kernel's loop, computed here or not: a
        # kernel whose code only loads and sums computes none of them but the reduction (a bias gradient's sum).
        ops, origin = [op for op in ops if op in _REDUCTION_OPS or op in _VIEW_OPS] or ops, origin + "+code"
    elif origin != "provenance" and {"gelu", "gelu_backward"} & set(ops) and not re.search(r"erf|exp|tanh", source):
        # GELU and its derivative need erf (or tanh, or exp): code without any computes neither.
        ops, origin = [op for op in ops if op not in ("gelu", "gelu_backward")], origin + "+code"
    loads, stores = _cpp_accesses(source) if is_cpp else _triton_accesses(source)
    return Kernel(name=d.name, kind=_kind(d, source), device=_device(d, is_cpp), aten_ops=ops,
                  aten_ops_source=origin, loads=loads, stores=stores,
                  reductions=_reductions(source), source=source)


_REDUCTION_OPS = {"sum", "amax", "amin", "max", "min", "mean", "prod", "argmax", "argmin"}
_VIEW_OPS = {"view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "squeeze", "unsqueeze", "clone",
             "slice", "select", "alias"}


def _only_reduces(source: str, is_cpp: bool) -> bool:
    """True when the kernel's code does no arithmetic but its reductions: every temporary is a load (or a mask or
    broadcast of one) and something is reduced."""
    if is_cpp:
        values = re.findall(r"auto\s+tmp\d+\s*=\s*(.+?);\s*$", source, re.M)
        reduces = re.search(r"\btmp_acc\d+(?:_vec)?\s*=", source)
        plain = lambda e: "load" in e or re.fullmatch(r"\w+\[[^\]]*\]", e.strip()) is not None
    else:
        values = re.findall(r"^\s*tmp\d+\s*=\s*(.+?)\s*$", source, re.M)
        reduces = re.search(r"\btl\.sum\(", source)
        plain = lambda e: re.match(r"(tl\.load|tl\.broadcast_to|tl\.where\(\w*mask\w*, tmp\d+, 0\)|tl\.sum\()", e) is not None
    return bool(values) and reduces is not None and all(plain(e) for e in values)


def _triton_function(body: str) -> str:
    """The @decorated def of a Triton kernel string, without the imports above it."""
    m = re.search(r"^@", body, re.M)
    return body[m.start():].strip("\n") if m else body.strip("\n")


_PREFIX_KIND = {"triton_poi_": "pointwise", "triton_red_": "reduction", "triton_per_": "persistent_reduction",
                "triton_tem_": "template"}
_DECORATOR_KIND = {"pointwise": "pointwise", "reduction": "reduction", "persistent_reduction": "persistent_reduction",
                   "cooperative_reduction": "reduction", "template": "template"}


def _kind(d: _Def, source: str) -> str:
    """pointwise / reduction / persistent_reduction / template from the name or decorator; cpp; unknown."""
    for prefix, kind in _PREFIX_KIND.items():
        if d.name.startswith(prefix):
            return kind
    for deco in re.findall(r"^@(?:\w+\.)*(\w+)\(", source, re.M):
        if deco in _DECORATOR_KIND:
            return _DECORATOR_KIND[deco]
    return "cpp" if d.compiler.startswith("cpp") else "unknown"


def _device(d: _Def, is_cpp: bool) -> str:
    """The kernel's device: cpu for C++, else device_str / device_type as written, else cuda."""
    if is_cpp:
        return "cpu"
    m = re.search(r"device_str\s*=\s*['\"](\w+)", d.args) or re.search(r"'device_type':\s*'(\w+)'", d.body)
    return m.group(1) if m else ("cuda" if d.compiler == "triton" else "unknown")


# ---------------------------------------------------------------------------------------------
# fused ATen ops: comments, then provenance + FX graph, then the kernel name


def _original_aten(text: str) -> list[str]:
    """Op names from `Original ATen: [aten._softmax, prims.x, ...]` comments, in order."""
    ops: list[str] = []
    for group in re.findall(r"Original ATen:\s*\[([^\]]*)\]", text or ""):
        ops += [_short_op(x) for x in group.split(",") if x.strip()]
    return _dedup(ops)


def _comment_ops(comments: list[str], node_ops: dict[str, tuple[int, str]]) -> list[str]:
    """Original ATen ops, then the ops of the post-grad nodes named in 'Source node to ATen node mapping'."""
    text = "\n".join(c for c in comments if c)
    ops = _original_aten(text)
    mapped = [n.strip() for n in re.findall(r"^\s*#\s+[\w.]*\s*=>\s*(.+)$", _mapping_block(text), re.M)]
    nodes = [n.strip() for group in mapped for n in group.split(",") if n.strip()]
    return _dedup(ops + _nodes_to_ops(nodes, node_ops)) if ops else []


def _mapping_block(text: str) -> str:
    """The lines of every 'Source node to ATen node mapping:' block."""
    out, inside = [], False
    for line in text.splitlines():
        if "Source node to ATen node mapping" in line:
            inside = True
        elif inside and "=>" in line:
            out.append(line)
        else:
            inside = False
    return "\n".join(out)


def _provenance_ops(name: str, comments: list[str], provenance: Any, node_ops: dict[str, tuple[int, str]]) -> list[str]:
    """Ops of the post-grad nodes that the provenance JSON maps this kernel to."""
    if not isinstance(provenance, dict):
        return []
    handles = set(re.findall(rf"\b{re.escape(name)}:\d+", "\n".join(comments)))
    nodes: list[str] = []
    for mapping in [provenance] + [v for v in provenance.values() if isinstance(v, dict)]:
        for key, value in mapping.items():
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                continue
            if key == name or key in handles or (not handles and key.startswith(name + ":")):
                nodes += value
    return _nodes_to_ops(_dedup(nodes), node_ops)


_FX_NODE_RE = re.compile(r"^\s*(\w+)\s*(?::\s*\"[^\"]*\")?\s*=\s*torch\.ops\.(\w+)\.(\w+)", re.M)
_FRAGMENT_RE = re.compile(r"%(\w+)\s*:.*?target=torch\.ops\.(\w+)\.(\w+)")


def _node_ops(text: str) -> dict[str, tuple[int, str]]:
    """FX node name -> (position, op name), from FX graph code or 'Graph fragment' comments."""
    table: dict[str, tuple[int, str]] = {}
    for regex in (_FX_NODE_RE, _FRAGMENT_RE):
        for m in regex.finditer(text):
            table.setdefault(m.group(1), (m.start(), m.group(3)))
    return table


def _nodes_to_ops(nodes: list[str], node_ops: dict[str, tuple[int, str]]) -> list[str]:
    """Post-grad node names -> op names, in graph order where the graph is known (sum_1 -> sum)."""
    known = sorted((node_ops[n] for n in nodes if n in node_ops), key=lambda p: p[0])
    ops = [op for _, op in known] + [re.sub(r"_\d+$", "", n) for n in nodes if n not in node_ops]
    return _dedup([op for op in ops if op and op != "getitem"])


def _short_op(name: str) -> str:
    """'aten._softmax' / 'aten.sum.dim_IntList' / 'prims.iota' -> '_softmax' / 'sum' / 'iota'."""
    parts = name.strip().replace("torch.ops.", "").split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _dedup(items: list[str]) -> list[str]:
    """Items in first-seen order, without repeats."""
    return list(dict.fromkeys(items))


_NAME_PREFIX_RE = re.compile(r"^(?:triton|cpp|cuda|cutlass|halide|mps|xpu|pallas|rocm)_"
                             r"(?:(?:poi|red|per|tem|for|spl|mix|coop)_)?(?:fused(?:_|$))?")


def kernel_name_ops(name: str) -> list[str]:
    """Ops spelled in a kernel name, by greedy longest match against real op names.

    triton_poi_fused_add_mul_relu_sigmoid_sub_0 -> [add, mul, relu, sigmoid, sub];
    triton_per_fused__softmax_exp_prepare_softmax_online_sub_0 -> [_softmax, exp, prepare_softmax_online, sub].
    """
    text = re.sub(r"_\d+$", "", name or "")
    prefix = _NAME_PREFIX_RE.match(text)
    if prefix is None:
        return []
    text = text[prefix.end():]
    vocab = _op_vocabulary()
    ops, i = [], 0
    while i < len(text):
        match = max((w for w in _candidates(text, i, vocab)), key=len, default=None)
        if match is None:  # not a known op: keep the word up to the next underscore
            end = text.find("_", i + 1)
            match = text[i:] if end < 0 else text[i:end]
        ops.append(match)
        i += len(match) + 1  # skip the '_' separator
    return _dedup([op for op in ops if op.strip("_")])


def _candidates(text: str, i: int, vocab: frozenset[str]) -> Iterator[str]:
    """Vocabulary words that start at text[i] and end at an underscore or the end."""
    for j in range(len(text), i, -1):
        if (j == len(text) or text[j] == "_") and text[i:j] in vocab:
            yield text[i:j]


@functools.cache
def _op_vocabulary() -> frozenset[str]:
    """Names of aten and prims ops (no overloads, no in-place variants) for kernel-name tokenising."""
    names: set[str] = {"add", "sub", "mul", "div", "exp", "relu", "sigmoid", "sum", "amax", "_softmax",
                       "prepare_softmax_online", "native_layer_norm", "var_mean", "view", "clone"}
    try:
        import torch
        with contextlib.suppress(Exception):
            import torch._inductor.inductor_prims  # noqa: F401  registers prims.prepare_softmax_online
        for full in torch._C._dispatch_get_all_op_names():
            ns, _, op = full.partition("::")
            if ns in ("aten", "prims", "inductor_prims"):
                names.add(op.split(".")[0])
    except Exception:
        pass
    return frozenset(n for n in names if n and not (n.endswith("_") and not n.startswith("__")))


# ---------------------------------------------------------------------------------------------
# loads and stores


_PTR_RE = r"\b(?:in_out_ptr|in_ptr|out_ptr)\d+\b"


def _cpp_accesses(source: str) -> tuple[list[Access], list[Access]]:
    """Loads and stores of the kernel's pointer arguments in C++ (local scratch buffers left out)."""
    sig = re.search(r"\bkernel\s*\(([^)]*)\)", source)
    params = re.findall(r"\*\s*(\w+)", sig.group(1)) if sig else []
    names = [p for p in params if not p.startswith("local_")] or None
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b" if names else "(" + _PTR_RE + ")")
    body = source[sig.end():] if sig else source
    loads, stores = [], []
    for m in pattern.finditer(body):
        after = _skip_space(body, m.end())
        if after < len(body) and body[after] == "[":
            end = _scan(body, after + 1, "]")
            access = Access(m.group(1), _clean_index(body[after + 1:end]))
            is_store = re.match(r"\s*=(?!=)", body[end + 1:end + 4]) is not None
        elif after < len(body) and body[after] == "+":
            end = _scan(body, after + 1, ",)")
            access = Access(m.group(1), _clean_index(body[after + 1:end]))
            is_store = re.search(r"\.store\(\s*$", body[max(0, m.start() - 20):m.start()]) is not None
        else:
            continue
        (stores if is_store else loads).append(access)
    return _dedup_access(loads), _dedup_access(stores)


def _triton_accesses(source: str) -> tuple[list[Access], list[Access]]:
    """Loads and stores in Triton: the first argument of tl.load / tl.store / tl.atomic_*."""
    loads, stores = [], []
    for m in re.finditer(r"\btl\.(load|store|atomic_\w+)\(", source):
        end = _scan(source, m.end(), ",)")
        pointer = source[m.end():end].strip()
        p = re.match(r"(\w+)\s*\+\s*(.*)$", pointer, re.S)
        access = Access(p.group(1), _clean_index(p.group(2))) if p else Access(pointer, "")
        (loads if m.group(1) == "load" else stores).append(access)
    return _dedup_access(loads), _dedup_access(stores)


def _dedup_access(items: list[Access]) -> list[Access]:
    """Accesses without repeats (the same load appears in main and tail loops)."""
    seen, out = set(), []
    for a in items:
        if (a.buffer, a.index) not in seen:
            seen.add((a.buffer, a.index))
            out.append(a)
    return out


def _skip_space(text: str, i: int) -> int:
    """Index of the first non-space character at or after i."""
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _scan(text: str, i: int, stops: str) -> int:
    """Index of the first character in `stops` at bracket depth 0 from i (or the end of text)."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in stops and depth == 0:
            return i
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return i
        i += 1
    return len(text)


def _clean_index(text: str) -> str:
    """Index text without static_cast<...>(...) wrappers, outer parentheses or extra spaces."""
    text = " ".join(text.split())
    while (m := re.search(r"static_cast<[\w:\s]+>\(", text)) is not None:
        end = _scan(text, m.end(), ")")
        text = text[:m.start()] + text[m.end():end] + text[end + 1:]
    text = text.strip()
    while text.startswith("(") and _scan(text, 1, ")") == len(text) - 1:
        text = text[1:-1].strip()
    return text


# ---------------------------------------------------------------------------------------------
# reductions


_REDUCTION_PATTERNS = [
    (r"\btl\.sum\(", "sum"), (r"\btl\.max\(|\bmax2\(", "max"), (r"\btl\.min\(|\bmin2\(", "min"),
    (r"online_softmax_\w+\(", "online_softmax"), (r"\bwelford\w*\(|Welford<", "welford"),
    (r"\bmax_with_index\(|\btl\.argmax\(|argmax_combine", "argmax"),
    (r"\bmin_with_index\(|\btl\.argmin\(|argmin_combine", "argmin"),
    (r"triton_helpers\.any\(", "any"), (r"triton_helpers\.prod\(|\btl\.prod\(", "prod"),
    (r"\btl\.reduce\(", "reduce"), (r"\btl\.(?:cumsum|cumprod|associative_scan)\(", "scan"),
    (r"\bmax_propagate_nan\(", "max"), (r"\bmin_propagate_nan\(", "min"),
    (r"\b(max|min|sum|prod)_masked_reduce\(", None),
    (r"\btmp_acc\d+(?:_vec)?\s*=\s*tmp_acc\d+(?:_vec)?\s*\+", "sum"),
    (r"\btmp_acc\d+(?:_vec)?\s*=\s*at::vec::maximum\(", "max"),
    (r"\btmp_acc\d+(?:_vec)?\s*=\s*at::vec::minimum\(", "min"),
]


def _reductions(source: str) -> list[str]:
    """Reduction kinds a kernel uses (max, sum, online_softmax, welford, ...), in source order."""
    found: list[tuple[int, str]] = []
    for pattern, kind in _REDUCTION_PATTERNS:
        for m in re.finditer(pattern, source):
            found.append((m.start(), kind or m.group(1)))
    for m in re.finditer(r"vec_reduce_all<[^>]*>\(\s*\[\]\([^)]*\)\s*\{\s*return\s+([^;]*);", source):
        found.append((m.start(), _lambda_kind(m.group(1))))
    return _dedup([kind for _, kind in sorted(found)])


def _lambda_kind(body: str) -> str:
    """The reduction a vec_reduce_all lambda computes: max, min, sum, prod or 'reduce'."""
    for needle, kind in (("maximum", "max"), ("minimum", "min"), ("+", "sum"), ("*", "prod")):
        if needle in body:
            return kind
    return "reduce"


# ---------------------------------------------------------------------------------------------
# launch order: the lines of call() (and the partitions it calls) that launch work


_EXTERN_RE = re.compile(r"^(?:[\w\s,]+=\s*)?((?:extern_kernels|torch\.ops\.\w+|aten|prims)\.[\w.]+)\(")
_RUN_RE = re.compile(r"^(?:[\w\s,]+=\s*)?(\w+)\.run\(")
_CALL_RE = re.compile(r"^(?:[\w\s,]+=\s*)?(\w+)\(")
_NOT_WORK = ("reinterpret_tensor", "alloc_from_pool", "empty_strided")


def parse_launch_order(src: str) -> list[Launch]:
    """Launches in the order call() runs them: generated kernels and library calls (extern)."""
    if not isinstance(src, str):
        return []
    names = {d.name for d in _kernel_defs(src)}
    modules = re.split(r"(?=^from ctypes import c_void_p)|(?=^# AOT ID: )", src, flags=re.M)
    modules = [m for m in modules if re.search(r"^[ \t]*def call\(", m, re.M)] or [src]
    out: list[Launch] = []
    for i, module in enumerate(modules):
        partitions = {int(m.group(2)): _function_body(module, m.group(1))
                      for m in re.finditer(r"def (partition_(\d+))\(", module)}
        launches = _launches(_function_body(module, "call"), names, partitions)
        if len(modules) > 1:
            for launch in launches:
                launch.graph = _graph_role(module, i)
        out += launches
    return out


def _graph_role(module: str, i: int) -> str:
    """'backward' when call() unpacks tangents (AOTAutograd's backward), 'forward' when it unpacks primals."""
    unpack = next((line for line in _function_body(module, "call") if "= args" in line), "")
    return "backward" if "tangents" in unpack else "forward" if "primals" in unpack else f"graph {i + 1}"


def _launches(lines: list[str], names: set[str], partitions: dict[int, list[str]]) -> list[Launch]:
    """Launch lines of a function body, splicing in the partitions it calls."""
    out: list[Launch] = []
    comment: list[str] = []
    for raw in lines:
        line = raw.strip()
        if line.startswith("#"):
            comment.append(line)
            continue
        part = re.search(r"partitions\[(\d+)\]\(|\bpartition_(\d+)\(", line)
        if part:
            out += _launches(partitions.pop(int(part.group(1) or part.group(2)), []), names, partitions)
            continue
        launch = _launch(line, names, "\n".join(comment))
        if launch is not None:
            out.append(launch)
            comment = []
    return out


def _launch(line: str, names: set[str], comment: str) -> Launch | None:
    """A Launch if this line of call() runs a kernel or a library op, else None."""
    m = _EXTERN_RE.match(line)
    if m and not any(word in m.group(1) for word in _NOT_WORK):
        return Launch(m.group(1), True, line, comment)
    m = _RUN_RE.match(line)
    if m and m.group(1) not in ("self", "runner"):
        return Launch(m.group(1), False, line, comment)
    m = _CALL_RE.match(line)
    if m and m.group(1) in names:
        return Launch(m.group(1), False, line, comment)
    return None


def _function_body(src: str, name: str) -> list[str]:
    """The lines of `def name(...)` (a method or a function), by indentation."""
    m = re.search(rf"^([ \t]*)def {re.escape(name)}\(", src, re.M)
    if m is None:
        return []
    indent = len(m.group(1))
    lines = src[m.end():].splitlines()[1:]
    body = []
    for line in lines:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return body


def _call_text(src: str) -> str:
    """The text of call(), for quick checks such as which allocator it uses."""
    return "\n".join(_function_body(src, "call"))
