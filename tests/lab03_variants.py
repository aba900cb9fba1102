"""Lab 03 exercise cells written other ways: a correct alternative for every exercise, and the classic mistakes.

ALTERNATIVE holds correct code that differs from the solution in approach (chains grown backwards, fusion by
torch's own fuse_by_partitions, another liveness simulation), to prove the checks accept any correct answer.
BROKEN holds one mistake per check, each a bug a learner (or this lab's source page) really makes: check name →
(what the code gets wrong, the exercise cell it replaces, the code).
"""

ALTERNATIVE = {
    "ex-1": '''
def traffic_bytes(gm, *inputs):
    """Bytes per kernel, summed: distinct tensor inputs read, output written, module state read."""
    ShapeProp(gm).propagate(*inputs)
    size = lambda n: (n.meta["tensor_meta"].dtype.itemsize * n.meta["tensor_meta"].shape.numel()
                      if isinstance(n.meta.get("tensor_meta"), TensorMetadata) else 0)
    kernels = [n for n in gm.graph.nodes if n.op.startswith("call_")]
    moved = sum(size(n) + sum(map(size, set(n.all_input_nodes))) for n in kernels)
    state = sum(p.nbytes for n in kernels if n.op == "call_module"
                for p in list(gm.get_submodule(n.target).parameters()) + list(gm.get_submodule(n.target).buffers()))
    return moved + state
''',
    "ex-2a": '''
def find_fusible_chains(gm):
    """Chains grown backwards from the end of the graph: a different, equally valid answer at joins."""
    nodes = list(gm.graph.nodes)
    index = {n: k for k, n in enumerate(nodes)}
    writes = [index[n] for n in nodes if mutates(gm, n)]
    clear = lambda a, b: not any(index[a] < w < index[b] for w in writes)
    used, result = set(), []
    for node in reversed(nodes):
        if node in used or not elementwise_op(gm, node):
            continue
        chain = [node]
        while True:
            feeders = [p for p in chain[0].all_input_nodes if p not in used and elementwise_op(gm, p)
                       and set(p.users) == {chain[0]} and clear(p, chain[0])]
            if not feeders:
                break
            chain.insert(0, feeders[0])
            used.add(feeders[0])
        if len(chain) >= 2:
            used.update(chain)
            result.insert(0, chain)
    return result
''',
    "ex-2b": '''
from torch.fx.passes.utils.fuser_utils import erase_nodes, fuse_as_graphmodule, insert_subgm


def fuse_chain(gm, chain):
    """torch's fuser utilities do the surgery (fuse_by_partitions would also re-sort, and so re-create, every node)."""
    name = f"fused_{sum(1 for _ in gm.children())}"
    sub, outside, outputs = fuse_as_graphmodule(gm, list(chain), name)
    insert_subgm(gm, sub, outside, outputs)
    erase_nodes(gm, list(chain))
    return next(n for n in gm.graph.nodes if n.op == "call_module" and n.target == name)
''',
    "ex-3": '''
@triton.jit
def chain_kernel(src, dst, total, BLOCK: tl.constexpr):
    """The chain in fp32, one block per program."""
    idx = BLOCK * tl.program_id(axis=0) + tl.arange(0, BLOCK)
    inside = idx < total
    v = tl.load(src + idx, mask=inside, other=0.0).to(tl.float32)
    v = 2.0 * v + 2.0
    v = tl.where(v > 0.0, v, 0.0) - 0.5
    v = 1.0 / (1.0 + tl.exp(-v))
    tl.store(dst + idx, v.to(dst.dtype.element_ty), mask=inside)


def chain_triton(x, block=1024):
    """One launch; refuses blocks that are not powers of two."""
    if block <= 0 or (block & (block - 1)) != 0:
        raise ValueError(f"{block} is not a power of two")
    flat = x.reshape(-1).contiguous() if not x.is_contiguous() else x.reshape(-1)
    out = torch.empty_like(flat)
    if flat.numel() > 0:
        grid = lambda meta: (triton.cdiv(flat.numel(), meta["BLOCK"]),)
        chain_kernel[grid](flat, out, flat.numel(), BLOCK=block)
    return out.view(x.shape)
''',
    "ex-4": '''
def emit_triton(chain_gm, name):
    """Source built as a list of statements, names chosen per node."""
    params = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]
    env, body = {}, []
    for k, p in enumerate(params):
        env[p] = f"x{k}"
        body.append(f"x{k} = tl.load(in{k}_ptr + offs, mask=m).to(tl.float32)")
    out = None
    for n in chain_gm.graph.nodes:
        if n.op == "placeholder":
            continue
        if n.op == "output":
            out = env.get(n.args[0])
            continue
        expr, ops = TRITON_EXPR.get(elementwise_op(chain_gm, n)), operands(chain_gm, n)
        if expr is None or ops is None:
            return None
        parts = []
        for a in ops:
            parts.append(env.get(a) if isinstance(a, fx.Node) else literal(a))
        wanted = 1 + ("{1}" in expr)
        if any(p is None for p in parts) or len(parts) != wanted:
            return None
        env[n] = "t_" + n.name
        body.append(f"{env[n]} = " + expr.format(*parts))
    if out is None:
        return None
    body.append(f"tl.store(out_ptr + offs, {out}.to(out_ptr.dtype.element_ty), mask=m)")
    signature = "".join(f"in{k}_ptr, " for k in range(len(params)))
    head = [f"def {name}({signature}out_ptr, n_elements, BLOCK: tl.constexpr):",
            "offs = BLOCK * tl.program_id(0) + tl.arange(0, BLOCK)", "m = offs < n_elements"]
    return "@triton.jit\\n" + head[0] + "\\n" + "".join(f"    {line}\\n" for line in head[1:] + body)
''',
    "ex-5": '''
def memfuse(gm, example_inputs):
    """Eager when autograd needs the graph; otherwise generated kernels for every chain."""
    if torch.is_grad_enabled() and any(getattr(t, "requires_grad", False) for t in example_inputs):
        print("[memfuse] gradients are needed: no fusion, eager instead")
        return gm
    fusion_pass(gm)
    fused = [(n.target, gm.get_submodule(n.target)) for n in gm.graph.nodes if n.op == "call_module"]
    for target, sub in fused:
        if isinstance(sub, fx.GraphModule):
            gm.add_submodule(target, TritonChain(sub))
    return gm
''',
    "ex-6": '''
def estimate_peak_bytes(gm, *inputs):
    """Event simulation: each storage is allocated by its first producer and dies after its last reader."""
    ShapeProp(gm).propagate(*inputs)
    order = list(gm.graph.nodes)
    root = {}
    for n in order:
        view = n.op.startswith("call") and aliases_input(gm, n) and isinstance(n.args[0], fx.Node)
        root[n] = root[n.args[0]] if view else n
    dies = {}
    for k, n in enumerate(order):
        for src in n.all_input_nodes:
            dies[root[src]] = k
    for src in order[-1].all_input_nodes:
        dies[root[src]] = len(order)
    total, best, owned = 0, 0, {}
    for k, n in enumerate(order):
        if n.op.startswith("call") and root[n] is n:
            meta = n.meta.get("tensor_meta")
            owned[n] = meta.shape.numel() * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0
            total += owned[n]
            best = max(best, total)
        for storage in [s for s in owned if dies.get(s, k) <= k]:
            total -= owned.pop(storage)
    return best
''',
}

BROKEN = {
    "03.traffic": ("counts only what each node writes", "ex-1", '''
def traffic_bytes(gm, *inputs):
    ShapeProp(gm).propagate(*inputs)
    total = 0
    for n in gm.graph.nodes:
        meta = n.meta.get("tensor_meta")
        if n.op.startswith("call") and isinstance(meta, TensorMetadata):
            total += meta.shape.numel() * meta.dtype.itemsize
    return total
'''),
    "03.chains": ("the source page's search: call_function only, and across in-place ops", "ex-2a", '''
def find_fusible_chains(gm):
    chains, seen = [], set()
    for node in gm.graph.nodes:
        if node in seen or node.op != "call_function" or elementwise_op(gm, node) is None:
            continue
        chain = [node]
        while len(chain[-1].users) == 1:
            nxt = next(iter(chain[-1].users))
            if nxt.op != "call_function" or elementwise_op(gm, nxt) is None:
                break
            chain.append(nxt)
        if len(chain) > 1:
            seen.update(chain)
            chains.append(chain)
    return chains
'''),
    "03.fuse": ("the source page's fused node: only the first input is passed on", "ex-2b", '''
def fuse_chain(gm, chain):
    first = chain[0].all_input_nodes[0]
    graph = fx.Graph()
    env = {first: graph.placeholder("x")}
    for n in chain:
        env[n] = graph.node_copy(n, lambda a: env.get(a, env[first]))
    graph.output(env[chain[-1]])
    name = f"fused_{len(list(gm.children()))}"
    gm.add_submodule(name, fx.GraphModule(gm, graph))
    with gm.graph.inserting_after(chain[-1]):
        new = gm.graph.call_module(name, (first,))
    chain[-1].replace_all_uses_with(new)
    for n in reversed(chain):
        gm.graph.erase_node(n)
    return new
'''),
    "03.triton_kernel": ("fp16 arithmetic: no conversion to fp32", "ex-3", '''
@triton.jit
def chain_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    one = x * 0 + 1
    y = tl.sigmoid(tl.maximum((x + one) * (one + one), x * 0) - one / 2)
    tl.store(out_ptr + offsets, y, mask=mask)


def chain_triton(x, block=1024):
    if block & (block - 1):
        raise ValueError("block must be a power of two")
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out
'''),
    "03.codegen": ("declines every chain", "ex-4", '''
def emit_triton(chain_gm, name):
    return None
'''),
    "03.backend": ("fuses the graph but never runs a generated kernel", "ex-5", '''
def memfuse(gm, example_inputs):
    return fusion_pass(gm).forward
'''),
    "03.peak_memory": ("frees a value when its view is made, not when the view is last read", "ex-6", '''
def estimate_peak_bytes(gm, *inputs):
    ShapeProp(gm).propagate(*inputs)
    nodes = list(gm.graph.nodes)
    last = {}
    for k, n in enumerate(nodes):
        for i in n.all_input_nodes:
            last[i] = k
    outputs = set(nodes[-1].all_input_nodes)
    live, peak, sizes = 0, 0, {}
    for k, n in enumerate(nodes):
        if n.op.startswith("call") and not aliases_input(gm, n):
            meta = n.meta.get("tensor_meta")
            sizes[n] = meta.shape.numel() * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0
            live += sizes[n]
            peak = max(peak, live)
        for m in [m for m in sizes if m not in outputs and last.get(m, k) <= k]:
            live -= sizes.pop(m)
    return peak
'''),
    "03.pitfalls": ("fuses even when gradients are needed", "ex-5", '''
def memfuse(gm, example_inputs):
    gm = fusion_pass(gm)
    for name, sub in list(gm.named_children()):
        if isinstance(sub, fx.GraphModule):
            setattr(gm, name, TritonChain(sub))
    return gm.forward
'''),
}
