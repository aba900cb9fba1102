"""Lab 03's wrong answers (see tests/wrong_answers/__init__.py): one plausible mistake each; part 8's are in
lab03_part8.py. ALTERNATIVE is a correct solution written another way for every exercise of parts 1-6 (chains grown
backwards, fusion by torch's own fuser utilities, another liveness simulation); the grading test of
tests/test_checks_lab03.py grades it too."""

from helpers import notebooks
from tests.wrong_answers import ROOT, Edit, lab03_part8, right, wrong

SOLUTION = ROOT / "solutions" / "03_operator_fusion.ipynb"
# ex-4 runs before p4-table, whose TritonChain calls emit_triton: a function finds the names it calls in the namespace
# it was defined in, so a cell re-run for a mistake must come before the cells that define its callers.
CELLS = ["parameters", "setup", "ex-1", "p2-vocab", "ex-2a", "ex-2b", "p2-pass", "ex-3", "ex-4", "p4-table", "ex-5",
         "p5-register", "ex-6", *lab03_part8.CELLS]
# Words the hidden messages must never show: the grader's models and functions.
HIDDEN_NAMES = ("HDeep", "HInplace", "HJoins", "HMatmul", "HBatchNorm", "HResidual", "h_mutate", "broadcast_three",
                "half_inside", "transpose_later", "neg_div_silu", "three_inputs_int", "gelu_sigmoid_tanh",
                "gelu_tanh_approx", "h_views", "h_dead", "HShared", "h_cat_kwargs", "h_size_reshape", "h_mixed")

# p2-pass without its demo (which needs a working find_fusible_chains and fuse_chain), for the mistakes that break it.
PASS = next(c.source for c in notebooks.read(SOLUTION).cells if c.id == "p2-pass")
NO_DEMO = Edit("p2-pass", source=PASS.split("\n\n\nmodel = ")[0])

KERNEL_ARITHMETIC = '''    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)          # read N·s bytes
    y = tl.sigmoid(tl.maximum((x + 1.0) * 2.0, 0.0) - 0.5)         # five ops, no memory traffic
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)   # write N·s bytes, rounded once'''
PEAK_ALLOCATES = '        if n.op.startswith("call") and not aliases_input(gm, n):'

PEAK_REFCOUNT = """
def estimate_peak_bytes(gm, *inputs):
    \"\"\"Reference counts: every storage counts its pending readers and is freed when the last one has run.\"\"\"
    ShapeProp(gm).propagate(*inputs)
    nodes = list(gm.graph.nodes)
    base = {}
    for n in nodes:
        alias = n.op.startswith("call") and aliases_input(gm, n) and isinstance(n.args[0], fx.Node)
        base[n] = base[n.args[0]] if alias else n
    pending = Counter()
    for n in nodes:
        for b in {base[i] for i in n.all_input_nodes}:
            pending[b] += 1
    kept = {base[i] for i in nodes[-1].all_input_nodes} if nodes and nodes[-1].op == "output" else set()
    held, live, peak = {}, 0, 0
    for n in nodes:
        if n.op.startswith("call") and base[n] is n:
            meta = n.meta.get("tensor_meta")
            held[n] = meta.shape.numel() * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0
            live += held[n]
            peak = max(peak, live)
        for b in {base[i] for i in n.all_input_nodes}:
            pending[b] -= 1
        for b in [b for b in held if pending[b] == 0 and b not in kept]:
            live -= held.pop(b)
    return peak
"""

# Round 3: the solution's lines the mistakes below edit.
TRAFFIC_ITEMSIZE = 'return math.prod(meta.shape) * meta.dtype.itemsize if'
TRAFFIC_STATE = ('        if node.op == "call_module":\n            mod = gm.get_submodule(node.target)\n'
                 '            total += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])\n')
SHAPEPROP = '    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n'
CHAIN_BREAK = 'if nxt in taken or elementwise_op(gm, nxt) is None or crosses:'
KERNEL_LOAD = '    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)'
KERNEL_MATH = 'y = tl.sigmoid(tl.maximum((x + 1.0) * 2.0, 0.0) - 0.5)'
BLOCK_TEST = '    if block < 1 or block & (block - 1):\n'
LAUNCH = '    if x.numel():\n        chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)\n'

CODEGEN_LAZY_LOADS = """
def emit_triton(chain_gm, name):
    \"\"\"Each input loaded right before its first use.\"\"\"
    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]
    signature = "".join(f"in{i}_ptr, " for i in range(len(inputs)))
    body = ["@triton.jit", f"def {name}({signature}out_ptr, n_elements, BLOCK: tl.constexpr):",
            "    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)", "    mask = offsets < n_elements"]
    names = {}
    for node in chain_gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            if node.args[0] not in names:
                return None
            body.append(f"    tl.store(out_ptr + offsets, {names[node.args[0]]}.to(out_ptr.dtype.element_ty), mask=mask)")
            continue
        template, args = TRITON_EXPR.get(elementwise_op(chain_gm, node)), operands(chain_gm, node)
        if template is None or args is None or len(args) != (2 if "{1}" in template else 1):
            return None
        texts = []
        for a in args:
            if isinstance(a, fx.Node) and a.op == "placeholder" and a not in names:
                names[a] = f"x{inputs.index(a)}"
                body.append(f"    {names[a]} = tl.load(in{inputs.index(a)}_ptr + offsets, mask=mask).to(tl.float32)")
            texts.append(names.get(a) if isinstance(a, fx.Node) else literal(a))
        if None in texts:
            return None
        names[node] = f"t{len(names)}"
        body.append(f"    {names[node]} = " + template.format(*texts))
    return "\\n".join(body) + "\\n"
"""

WRONG = [
    # ---- 1: traffic
    wrong('03.traffic', 'counts only what each node writes', 'ex-1',
          ('total += sum(nbytes(i) for i in node.all_input_nodes) + nbytes(node)', 'total += nbytes(node)'),
          says='count both the reads and the write'),
    wrong('03.traffic', "forgets the module's parameters and buffers", 'ex-1',
          ('            total += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])\n',
           '            pass\n'),
          says='too low|expected'),
    wrong('03.traffic', 'four bytes per element, whatever the dtype', 'ex-1',
          ('return math.prod(meta.shape) * meta.dtype.itemsize if', 'return math.prod(meta.shape) * 4 if'),
          says='fp16'),
    wrong('03.traffic', 'elements counted, not bytes (the itemsize left out)', 'ex-1',
          ('return math.prod(meta.shape) * meta.dtype.itemsize if', 'return math.prod(meta.shape) if'),
          says='elements, not bytes'),
    wrong('03.traffic', 'an input read twice by one node (x * x) counted twice', 'ex-1',
          ('sum(nbytes(i) for i in node.all_input_nodes)', 'sum(nbytes(i) for i in node.args if isinstance(i, fx.Node))'),
          says='read once'),
    wrong('03.traffic', "every input taken to be the output's size (no broadcast)", 'ex-1',
          ('sum(nbytes(i) for i in node.all_input_nodes)', 'len(node.all_input_nodes) * nbytes(node)'),
          says='broadcast'),

    wrong('03.traffic', "a module's parameters counted, its buffers (a batch norm's running statistics) forgotten", 'ex-1',
          ('[*mod.parameters(), *mod.buffers()]', '[*mod.parameters()]'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', 'get_attr nodes counted as kernels that write the parameter they fetch', 'ex-1',
          ('if node.op not in ("call_function", "call_method", "call_module"):',
           'if node.op not in ("call_function", "call_method", "call_module", "get_attr"):'),
          says='too high|expected', hidden_says='too high'),
    wrong('03.traffic', 'distinct inputs found by their byte counts (a set of sizes): x + y of equal sizes reads one of them', 'ex-1',
          ('sum(nbytes(i) for i in node.all_input_nodes)', 'sum({nbytes(i) for i in node.all_input_nodes})'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', 'tensor inputs taken from node.args only: a list argument (torch.cat) or a keyword (other=y) is missed', 'ex-1',
          ('sum(nbytes(i) for i in node.all_input_nodes)',
           'sum(nbytes(i) for i in dict.fromkeys(a for a in node.args if isinstance(a, fx.Node)))'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', "a module called twice has its weights counted once (as if they stayed in the cache between kernels)", 'ex-1',
          ('        if node.op == "call_module":\n            mod = gm.get_submodule(node.target)\n',
           '        if node.op == "call_module" and node.target not in state_read:\n            state_read.add(node.target)\n'
           '            mod = gm.get_submodule(node.target)\n'),
          ('    total = 0\n', '    total, state_read = 0, set()\n'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', 'nn.Module layers (call_module nodes) are not counted as kernels', 'ex-1',
          ('if node.op not in ("call_function", "call_method", "call_module"):', 'if node.op not in ("call_function", "call_method"):'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', 'every node but placeholders and get_attr counted: the output node reads the result again', 'ex-1',
          ('if node.op not in ("call_function", "call_method", "call_module"):', 'if node.op in ("placeholder", "get_attr"):'),
          says='too high|expected', hidden_says='too high'),
    wrong('03.traffic', 'ShapeProp run only when the graph has no shapes yet: a second call with other inputs reuses the first call\'s shapes', 'ex-1',
          ('    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n',
           '    if not any("tensor_meta" in n.meta for n in gm.graph.nodes):   # shapes known already: skip\n'
           '        ShapeProp(gm).propagate(*inputs)\n'),
          says='measured just before', hidden_says='measured just before'),

    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.traffic', "elements read and written summed, then priced at the node's own bytes per element (a conversion's input read at its output's dtype)", 'ex-1',
          ('        total += sum(nbytes(i) for i in node.all_input_nodes) + nbytes(node)\n',
           '        size = node.meta["tensor_meta"].dtype.itemsize if isinstance(node.meta.get("tensor_meta"), TensorMetadata) else 0\n'
           '        elements = sum(nbytes(i) // i.meta["tensor_meta"].dtype.itemsize for i in node.all_input_nodes if nbytes(i))\n'
           '        total += elements * size + nbytes(node)\n'),
          says='too low|too high|expected', hidden_says='too low|too high'),
    wrong('03.traffic', 'ShapeProp run on float32 copies of the inputs (so that it never meets a half tensor)', 'ex-1',
          ('ShapeProp(gm).propagate(*inputs)', 'ShapeProp(gm).propagate(*[t.float() for t in inputs])'),
          says='expected|too high', hidden_says='too high|too low'),
    wrong('03.traffic', 'dead code dropped first (gm.graph.eliminate_dead_code()): a value nobody reads is not counted, and the caller\'s graph loses it', 'ex-1',
          ('    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n',
           '    gm.graph.eliminate_dead_code()     # a value nobody reads needs no kernel\n    gm.recompile()\n'
           '    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n'),
          says='too low|expected', hidden_says='too low'),

    # ---- 2a: chains
    wrong('03.chains', "the source page's search: call_function only, and across in-place ops", 'ex-2a',
          ('if node in taken or elementwise_op(gm, node) is None:', 'if node in taken or node.op != "call_function" or elementwise_op(gm, node) is None:'),
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:', 'if nxt in taken or nxt.op != "call_function" or elementwise_op(gm, nxt) is None:'),
          also=(NO_DEMO,), says='could go on|not found|could start earlier'),
    wrong('03.chains', 'chains reach across an in-place op (rule 3 ignored)', 'ex-2a',
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:', 'if nxt in taken or elementwise_op(gm, nxt) is None:'),
          says='in-place'),
    wrong('03.chains', 'a chain goes on through a value that has two readers', 'ex-2a',
          ('        while len(chain[-1].users) == 1:\n            nxt = next(iter(chain[-1].users))',
           '        while chain[-1].users:\n            nxt = next(iter(chain[-1].users))'),
          says='readers'),
    wrong('03.chains', 'single ops returned as chains of one', 'ex-2a',
          ('        if len(chain) > 1:\n            taken.update(chain)', '        if chain:\n            taken.update(chain)'),
          says='has one node'),
    wrong('03.chains', 'chains of three or more only: two ops are left unfused', 'ex-2a',
          ('        if len(chain) > 1:\n            taken.update(chain)', '        if len(chain) > 2:\n            taken.update(chain)'),
          also=(NO_DEMO,), says='not found'),
    wrong('03.chains', 'only call_method nodes count as elementwise: functions and modules are missed', 'ex-2a',
          ('if node in taken or elementwise_op(gm, node) is None:', 'if node in taken or node.op != "call_method" or elementwise_op(gm, node) is None:'),
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:', 'if nxt in taken or nxt.op != "call_method" or elementwise_op(gm, nxt) is None or crosses:'),
          also=(NO_DEMO,), says='could go on|not found|could start earlier'),

    wrong('03.chains', 'a chain goes on through a view (a view moves no data, so it is taken as free)', 'ex-2a',
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:',
           'if nxt in taken or (elementwise_op(gm, nxt) is None and nxt.target not in VIEW_METHODS) or crosses:'),
          says='not elementwise', hidden_says='not elementwise'),
    wrong('03.chains', 'a chain grows into a node another chain already took (where two chains join)', 'ex-2a',
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:', 'if elementwise_op(gm, nxt) is None or crosses:'),
          says='two chains', hidden_says='two chains'),
    wrong('03.chains', 'chains start only at a node with no elementwise input: an op after a value with two readers starts nothing', 'ex-2a',
          ('if node in taken or elementwise_op(gm, node) is None:',
           'if node in taken or elementwise_op(gm, node) is None or any(elementwise_op(gm, i) for i in node.all_input_nodes):'),
          says='not found|could start earlier', hidden_says='not found|could start earlier'),
    wrong('03.chains', 'a value with two readers cannot even end a chain (the one-reader rule applied to the next node too)', 'ex-2a',
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:',
           'if nxt in taken or elementwise_op(gm, nxt) is None or crosses or len(nxt.users) != 1:'),
          says='could go on', hidden_says='could go on'),

    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.chains', "in-place ops found by a method name ending in '_' (torch.relu_ and inplace=True missed)", 'ex-2a',
          ('mutation_at = [order[n] for n in gm.graph.nodes if mutates(gm, n)]',
           'mutation_at = [order[n] for n in gm.graph.nodes if n.op == "call_method" and n.target.endswith("_")]'),
          says='in-place', hidden_says='in-place'),
    wrong('03.chains', 'chains capped at four ops (a long kernel was thought to run out of registers)', 'ex-2a',
          ('        while len(chain[-1].users) == 1:\n', '        while len(chain[-1].users) == 1 and len(chain) < 4:\n'),
          says='could go on|could start earlier|not found', hidden_says='could go on|could start earlier|not found'),

    # ---- 2b: fuse
    wrong('03.fuse', "the source page's fused node: only the first input is passed on", 'ex-2b',
          ('    outside = list(dict.fromkeys(i for n in chain for i in n.all_input_nodes if i not in members))\n',
           '    outside = [chain[0].all_input_nodes[0]]\n'),
          ('    env = {i: sub_graph.placeholder(i.name) for i in outside}\n',
           '    env = {i: sub_graph.placeholder(i.name) for i in outside}\n'
           '    env.update({i: env[outside[0]] for n in chain for i in n.all_input_nodes if i not in members})\n'),
          also=(NO_DEMO,), says='pass every outside input'),
    wrong('03.fuse', "the chain's nodes are left in the graph", 'ex-2b',
          ('    for n in reversed(chain):\n        gm.graph.erase_node(n)\n', ''),
          also=(NO_DEMO,), says="erase the chain's nodes"),
    wrong('03.fuse', 'returns the last node of the chain, not the new node', 'ex-2b',
          ('    return fused\n', '    return chain[-1]\n'),
          also=(NO_DEMO,), says='call_module node'),
    wrong('03.fuse', 'every fused submodule called fused_0: the second chain replaces the first', 'ex-2b',
          ('    while hasattr(gm, f"fused_{k}"):\n        k += 1\n', ''),
          also=(NO_DEMO,), says='same submodule name'),
    wrong('03.fuse', 'one counter for every graph: a second graph starts at fused_3, and run-4 finds no fused_0', 'ex-2b',
          ('    k = 0\n    while hasattr(gm, f"fused_{k}"):\n        k += 1\n', '    k = next(FUSED_IDS)\n'),
          ('def fuse_chain(', 'import itertools\n\nFUSED_IDS = itertools.count()\n\n\ndef fuse_chain('),
          also=(NO_DEMO,), says='counter shared across graphs'),
    wrong('03.fuse', 'the fused graph returns the first node of the chain', 'ex-2b',
          ('sub_graph.output(env[chain[-1]])', 'sub_graph.output(env[chain[0]])'),
          also=(NO_DEMO,), says='differs'),
    wrong('03.fuse', 'placeholders made in sorted order, the call passes the inputs in the order found', 'ex-2b',
          ('    env = {i: sub_graph.placeholder(i.name) for i in outside}',
           '    env = {i: sub_graph.placeholder(i.name) for i in sorted(outside, key=lambda n: n.name)}'),
          also=(NO_DEMO,), says='in the order of its placeholders'),

    wrong('03.fuse', 'the fused node inserted before the chain\'s first node: an outside input made later is read before it exists', 'ex-2b',
          ('    with gm.graph.inserting_after(chain[-1]):', '    with gm.graph.inserting_before(chain[0]):'),
          also=(NO_DEMO,), says='before'),
    wrong('03.fuse', "the chain's nodes removed by eliminate_dead_code, which also drops the graph's in-place ops", 'ex-2b',
          ('    for n in reversed(chain):\n        gm.graph.erase_node(n)\n',
           '    gm.graph.eliminate_dead_code()   # the chain is dead now: let fx remove it\n'),
          also=(NO_DEMO,), says='call nodes|differs|in-place', hidden_says='call nodes|differs|in-place'),
    wrong('03.fuse', 'the fused GraphModule built on an empty nn.Module: a copied call_module node finds no submodule', 'ex-2b',
          ('fx.GraphModule(gm, sub_graph)', 'fx.GraphModule(nn.Module(), sub_graph)'),
          also=(NO_DEMO,), says='raised', hidden_says='raised'),
    wrong('03.fuse', 'the chain erased first node first: it still has a reader', 'ex-2b',
          ('    for n in reversed(chain):\n', '    for n in chain:\n'),
          also=(NO_DEMO,), says='raised', hidden_says='raised'),
    wrong('03.fuse', 'one placeholder per read, not per outside input: a value the chain reads twice is passed twice', 'ex-2b',
          ('    outside = list(dict.fromkeys(i for n in chain for i in n.all_input_nodes if i not in members))\n',
           '    outside = [i for n in chain for i in n.all_input_nodes if i not in members]\n'),
          ('    env = {i: sub_graph.placeholder(i.name) for i in outside}',
           '    env = {i: sub_graph.placeholder(f"in_{k}") for k, i in enumerate(outside)}'),
          also=(NO_DEMO,), says='more than once', hidden_says='more than once'),
    wrong('03.fuse', "fuse_chain hands the work to the notebook's stand-in, library_fuse", 'ex-2b',
          ('    members = set(chain)\n',
           '    k = sum(name.startswith("fused_") for name, _ in gm.named_children())\n'
           '    library_fuse(gm, chain)\n'
           '    return next(n for n in gm.graph.nodes if n.op == "call_module" and n.target == f"fused_{k}_0")\n'
           '    members = set(chain)\n'),
          also=(NO_DEMO,), says='library_fuse', hidden_says='library_fuse'),

    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.fuse', "chain nodes rebuilt from their op, target and positional args: keyword arguments (alpha=, other=, min=) dropped", 'ex-2b',
          ('        env[n] = sub_graph.node_copy(n, lambda a: env[a])\n',
           '        env[n] = sub_graph.create_node(n.op, n.target, tuple(env[a] if isinstance(a, fx.Node) else a for a in n.args))\n'),
          also=(NO_DEMO,), says='keyword|raised|differs', hidden_says='keyword|raised|differs'),

    # ---- 3: the hand-written kernel
    wrong('03.triton_kernel', 'fp16 arithmetic: no conversion to fp32', 'ex-3',
          ('    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)', '    x = tl.load(x_ptr + offsets, mask=mask)'),
          ('    y = tl.sigmoid(tl.maximum((x + 1.0) * 2.0, 0.0) - 0.5)', '    one = x * 0 + 1\n    y = tl.sigmoid(tl.maximum((x + one) * (one + one), x * 0) - one / 2)'),
          says='fp32'),
    wrong('03.triton_kernel', 'skips .contiguous(): a sliced or expanded input is read as if it were one block', 'ex-3',
          ('    x = x.contiguous()\n', ''),
          says='contiguous'),
    wrong('03.triton_kernel', 'a grid of numel // block programs: the last partial block never runs', 'ex-3',
          ('chain_kernel[(triton.cdiv(x.numel(), block),)]', 'chain_kernel[(max(1, x.numel() // block),)]'),
          says='masks'),
    wrong('03.triton_kernel', 'no masks: the last block reads and writes past the end (it killed the interpreter)', 'ex-3',
          ('tl.load(x_ptr + offsets, mask=mask)', 'tl.load(x_ptr + offsets)'),
          ('tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)',
           'tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty))'),
          says='wrote past the end.*mask'),
    wrong('03.triton_kernel', 'the load is masked, the store is not: the last block writes past the end', 'ex-3',
          ('tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)',
           'tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty))'),
          says='wrote past the end.*mask'),
    wrong('03.triton_kernel', 'the output always fp32', 'ex-3',
          ('    out = torch.empty_like(x)\n', '    out = torch.empty_like(x, dtype=torch.float32)\n'),
          says='dtype'),
    wrong('03.triton_kernel', 'block sizes never checked', 'ex-3',
          ('    if block < 1 or block & (block - 1):\n', '    if block < 1:\n'),
          says='ValueError'),
    wrong('03.triton_kernel', 'computes the chain with torch, launching nothing', 'ex-3',
          ('    x = x.contiguous()\n', '    return chain_ops(x.float()).to(x.dtype)\n'),
          says='PyTorch ops ran'),

    wrong('03.triton_kernel', 'the store is masked, the load is not: the last block reads past the end of x', 'ex-3',
          ('tl.load(x_ptr + offsets, mask=mask)', 'tl.load(x_ptr + offsets)'),
          says='read past the end.*mask', hidden_says='read past the end.*mask'),
    wrong('03.triton_kernel', 'mask = offsets <= n_elements: one element past the end is written', 'ex-3',
          ('    mask = offsets < n_elements ', '    mask = offsets <= n_elements'),
          says='wrote past the end', hidden_says='wrote past the end'),
    wrong('03.triton_kernel', "the output allocated before .contiguous(): a channels-last input gets a channels-last output the kernel fills in flat order", 'ex-3',
          ('    x = x.contiguous()\n    out = torch.empty_like(x)\n', '    out = torch.empty_like(x)\n    x = x.contiguous()\n'),
          says='differs', hidden_says='differs'),
    wrong('03.triton_kernel', 'the result stored over x itself (no new output): the caller\'s tensor is overwritten', 'ex-3',
          ('    out = torch.empty_like(x)\n', '    out = x   # in place: saves allocating an output\n'),
          says='in place|changed', hidden_says='in place|changed'),
    wrong('03.triton_kernel', 'fp32 arithmetic by converting in the launcher (x.float(), then .to(x.dtype)): two extra passes over memory', 'ex-3',
          ('    x = x.contiguous()\n    out = torch.empty_like(x)\n    if x.numel():\n'
           '        chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)\n    return out\n',
           '    dtype = x.dtype\n    x = x.contiguous().float()        # compute in fp32\n    out = torch.empty_like(x)\n'
           '    if x.numel():\n        chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)\n'
           '    return out.to(dtype)\n'),
          says='convert', hidden_says='convert'),
    wrong('03.triton_kernel', 'the output buffer allocated once per shape and reused: a second call overwrites the first result', 'ex-3',
          ('    out = torch.empty_like(x)\n',
           '    key = (tuple(x.shape), x.dtype, x.device)\n    if key not in OUTPUTS:       # a new output costs time (part 1)\n'
           '        OUTPUTS[key] = torch.empty_like(x)\n    out = OUTPUTS[key]\n'),
          ('\ndef chain_triton(', '\nOUTPUTS = {}\n\n\ndef chain_triton('),
          says='second call|overwr', hidden_says='second call|overwr'),
    wrong('03.triton_kernel', "the output allocated on the default device (torch.empty(x.shape, dtype=x.dtype)): a CPU tensor for a GPU kernel", 'ex-3',
          ('    out = torch.empty_like(x)\n', '    out = torch.empty(x.shape, dtype=x.dtype)\n'),
          says='device', hidden_says='device'),
    wrong('03.triton_kernel', 'x flattened with x.reshape(-1) instead of made contiguous: a sliced x stays a strided view', 'ex-3',
          ('    x = x.contiguous()\n', '    x = x.reshape(-1)       # one dimension: the kernel sees a flat array\n'),
          ('    return out\n', '    return out.view(shape)\n'),
          ('    if block < 1 or', '    shape = x.shape\n    if block < 1 or'),
          says='not one block of memory', hidden_says='not one block of memory'),
    wrong('03.triton_kernel', 'the block argument checked but never used: every launch uses 1024', 'ex-3',
          ('chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)',
           'chain_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)'),
          says='block', hidden_says='block'),

    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.triton_kernel', 'block checked with block & (block - 1) alone: block=0 passes the test (0 & -1 is 0) and fails later', 'ex-3',
          ('    if block < 1 or block & (block - 1):\n', '    if block & (block - 1):\n'),
          says='ValueError', hidden_says='ValueError'),
    wrong('03.triton_kernel', 'made contiguous only when x has two or more dimensions (a 1-D view is taken to be flat already)', 'ex-3',
          ('    x = x.contiguous()\n', '    if x.dim() > 1:\n        x = x.contiguous()\n'),
          says='contiguous|one block of memory', hidden_says='contiguous|one block of memory'),

    # ---- 4: generated kernels
    wrong('03.codegen', 'declines every chain', 'ex-4',
          ('    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n',
           '    return None\n    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n'),
          says='returned None'),
    wrong('03.codegen', 'a number is always put second: 2.0 - x becomes x - 2.0', 'ex-4',
          ('            names = [var.get(a) if isinstance(a, fx.Node) else literal(a) for a in args]',
           '            names = [var.get(a) for a in args if isinstance(a, fx.Node)] + [literal(a) for a in args if not isinstance(a, fx.Node)]'),
          says='number on the left'),
    wrong('03.codegen', 'loads without converting to fp32: fp16 chains are computed in fp16', 'ex-4',
          ('mask=mask).to(tl.float32)" for i in range(len(inputs))]', 'mask=mask)" for i in range(len(inputs))]'),
          says='fp32'),
    wrong('03.codegen', 'keyword arguments ignored: add(x, x, alpha=2) is generated as x + x', 'ex-4',
          ('            args = operands(chain_gm, node)\n', '            args = list(node.args)\n'),
          says='alpha'),
    wrong('03.codegen', 'generated kernels without masks: the last block writes past the end', 'ex-4',
          ('mask=mask).to(tl.float32)" for i in range(len(inputs))]', ').to(tl.float32)" for i in range(len(inputs))]'),
          ('.to(out_ptr.dtype.element_ty), mask=mask)")', '.to(out_ptr.dtype.element_ty))")'),
          says='wrote past the end.*mask'),
    wrong('03.codegen', 'every input loaded from the first pointer', 'ex-4',
          ('f"    a{i} = tl.load(in{i}_ptr + offsets', 'f"    a{i} = tl.load(in0_ptr + offsets'),
          says='two-input'),
    wrong('03.codegen', 'the kernel is always called kernel, not the name it is given', 'ex-4',
          ('f"def {name}({ptrs}, out_ptr', 'f"def kernel({ptrs}, out_ptr'),
          says='by the name it is given'),

    wrong('03.codegen', 'generated loads without a mask (the store has one): the last block reads past the end of every input', 'ex-4',
          ('mask=mask).to(tl.float32)" for i in range(len(inputs))]', ').to(tl.float32)" for i in range(len(inputs))]'),
          says='read past the end.*mask', hidden_says='read past the end.*mask'),
    wrong('03.codegen', 'only the first input converted to fp32 (the others are left to promote when they meet it)', 'ex-4',
          ('lines += [f"    a{i} = tl.load(in{i}_ptr + offsets, mask=mask).to(tl.float32)" for i in range(len(inputs))]',
           'lines += [f"    a{i} = tl.load(in{i}_ptr + offsets, mask=mask)" + (".to(tl.float32)" if i == 0 else "") for i in range(len(inputs))]'),
          says='fp32|round|differs', hidden_says='fp32|round|differs'),
    wrong('03.codegen', "the result rounded to the first input's dtype, not the output's (an fp16 and an fp32 input)", 'ex-4',
          ('.to(out_ptr.dtype.element_ty), mask=mask)")', '.to(in0_ptr.dtype.element_ty), mask=mask)")'),
          says='differs|dtype', hidden_says='differs|dtype'),
    wrong('03.codegen', 'operand count taken from the braces in the template: silu and gelu (which repeat {0}) are declined', 'ex-4',
          ('len(names) != (2 if "{1}" in template else 1)', 'len(names) != template.count("{")'),
          says='returned None', hidden_says='returned None'),
    wrong('03.codegen', "pointers numbered in the order the inputs are first used, not in the placeholders' order", 'ex-4',
          ('    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n',
           '    inputs = list(dict.fromkeys(a for n in chain_gm.graph.nodes if n.op not in ("placeholder", "output")\n'
           '                                for a in n.all_input_nodes if a.op == "placeholder"))\n'),
          says='differs', hidden_says='differs'),

    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.codegen', "the op's name taken from the node's target (its __name__ or method name) instead of elementwise_op", 'ex-4',
          ('            template = TRITON_EXPR.get(elementwise_op(chain_gm, node))\n',
           '            template = TRITON_EXPR.get(node.target if isinstance(node.target, str) else node.target.__name__)\n'),
          says='returned None', hidden_says='returned None'),
    wrong('03.codegen', 'operands looked up in var[...] inside try/except: a number operand raises KeyError, swallowed into None (declined)', 'ex-4',
          ('            names = [var.get(a) if isinstance(a, fx.Node) else literal(a) for a in args]\n',
           '            try:\n                names = [var[a] for a in args]       # every operand is a node we have named\n'
           '            except KeyError:\n                return None                          # leave it to eager\n'),
          says='returned None', hidden_says='returned None'),

    # ---- 5: the backend
    wrong('03.backend', 'fuses the graph but never runs a generated kernel', 'ex-5',
          ('    for name, sub in list(gm.named_children()):\n', '    for name, sub in []:\n'),
          says='TritonChain'),
    wrong('03.backend', 'returns the graph in eager, never fused', 'ex-5',
          ('    gm = fusion_pass(gm)\n', '    return gm.forward\n'),
          says='TritonChain'),
    wrong('03.backend', 'only the first fused chain runs its kernel', 'ex-5',
          ('            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel',
           '            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n            break'),
          says='fusible chain'),
    wrong('03.backend', "fuses a copy of the graph (to leave Dynamo's alone) but returns the original", 'ex-5',
          ('    gm = fusion_pass(gm)\n', '    original, gm = gm, fusion_pass(copy.deepcopy(gm))\n'),
          ('    return gm.forward\n    ### END SOLUTION', '    return original.forward\n    ### END SOLUTION'),
          says='TritonChain'),
    wrong('03.backend', 'fuses even when gradients are needed', 'ex-5',
          ('    if needs_grad:\n', '    if False:\n'),
          says='gradients'),
    wrong('03.backend', 'asks every example input for requires_grad: SymInts under dynamic=True have none', 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n        isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)',
           '    needs_grad = any(t.requires_grad for t in example_inputs)'),
          says='SymInt'),
    wrong('03.backend', 'falls back whenever the graph module is in training mode (a GraphModule always is)', 'ex-5',
          ('    if needs_grad:\n', '    if needs_grad or gm.training:\n'),
          says='TritonChain'),
    wrong('03.backend', 'falls back for any dtype but fp32', 'ex-5',
          ('    if needs_grad:\n', '    if needs_grad or any(isinstance(t, torch.Tensor) and t.dtype != torch.float32 for t in example_inputs):\n'),
          says='fp16 elements'),

    wrong('03.backend', 'falls back whenever an example input requires grad, even under torch.no_grad (parameters always do)', 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n', '    needs_grad = any(\n'),
          says='TritonChain', hidden_says='TritonChain'),
    wrong('03.backend', 'falls back whenever grad mode is on, though no input needs a gradient', 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n        isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)',
           '    needs_grad = torch.is_grad_enabled()'),
          says='TritonChain', hidden_says='TritonChain'),
    wrong('03.backend', "asks the graph module's own parameters for requires_grad (Dynamo passes them as inputs: there are none)", 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n        isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)',
           '    needs_grad = torch.is_grad_enabled() and any(p.requires_grad for p in gm.parameters())'),
          says='grad', hidden_says='grad'),
    wrong('03.backend', 'asks only the first example input for requires_grad', 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n        isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)',
           '    needs_grad = torch.is_grad_enabled() and getattr(example_inputs[0], "requires_grad", False)'),
          says='grad', hidden_says='grad'),
    wrong('03.backend', 'replaces a fused child only when type(sub) is fx.GraphModule (every GraphModule has a class of its own)', 'ex-5',
          ('if name.startswith("fused_") and isinstance(sub, fx.GraphModule):', 'if name.startswith("fused_") and type(sub) is fx.GraphModule:'),
          says='TritonChain', hidden_says='TritonChain'),

    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.backend', 'falls back to eager whenever an example input is not a tensor (a SymInt): every dynamic-shape graph runs unfused', 'ex-5',
          ('    if needs_grad:\n', '    if needs_grad or not all(isinstance(t, torch.Tensor) for t in example_inputs):\n'),
          says='dynamic=True', hidden_says='dynamic=True'),
    wrong('03.backend', 'asks only nn.Parameter example inputs for requires_grad (a plain tensor that requires grad is missed)', 'ex-5',
          ('isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)',
           'isinstance(t, nn.Parameter) and t.requires_grad for t in example_inputs)'),
          says='grad', hidden_says='grad'),

    # ---- 7: part 7 end to end (not scored: it re-runs exercises 2a, 4 and 5)
    wrong('03.pitfalls', 'through torch.compile, a chain across an in-place op changes what memfuse computes', 'ex-2a',
          ('if nxt in taken or elementwise_op(gm, nxt) is None or crosses:', 'if nxt in taken or elementwise_op(gm, nxt) is None:'),
          says='in-place'),

    # ---- 6: peak memory
    wrong('03.peak_memory', 'frees a value when its view is made, not when the view is last read', 'ex-6',
          ('        while n.op.startswith("call") and aliases_input(gm, n) and isinstance(n.args[0], fx.Node):\n            n = n.args[0]\n', ''),
          says='alive while an alias'),
    wrong('03.peak_memory', 'a view counted as an allocation of its own', 'ex-6',
          (PEAK_ALLOCATES, '        if n.op.startswith("call"):'),
          says='views and in-place ops allocate nothing'),
    wrong('03.peak_memory', 'follows one view back, not a view of a view', 'ex-6',
          ('        while n.op.startswith("call") and aliases_input(gm, n)', '        if n.op.startswith("call") and aliases_input(gm, n)'),
          says='alias'),
    wrong('03.peak_memory', 'the outputs freed like any value: the output node is not counted as a reader', 'ex-6',
          ('    for n in nodes:\n        for i in n.all_input_nodes:', '    for n in nodes[:-1]:\n        for i in n.all_input_nodes:'),
          ('            if m not in outputs and last_read', '            if last_read'),
          says='too low'),
    wrong('03.peak_memory', "frees a node's inputs before allocating its output", 'ex-6',
          ('''        if n.op.startswith("call") and not aliases_input(gm, n):
            meta = n.meta.get("tensor_meta")
            sizes[n] = math.prod(meta.shape) * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0
            live += sizes[n]
            peak = max(peak, live)
        for m in list(sizes):
            if m not in outputs and last_read.get(m, position[m]) <= i:
                live -= sizes.pop(m)''', '''        for m in list(sizes):
            if m not in outputs and last_read.get(m, position[m]) <= i:
                live -= sizes.pop(m)
        if n.op.startswith("call") and not aliases_input(gm, n):
            meta = n.meta.get("tensor_meta")
            sizes[n] = math.prod(meta.shape) * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0
            live += sizes[n]
            peak = max(peak, live)'''),
          says='allocate a node'),
    wrong('03.peak_memory', 'never frees anything: the sum of every allocation', 'ex-6',
          ('                live -= sizes.pop(m)', '                pass'),
          says='too high'),
    wrong('03.peak_memory', "counts the graph's inputs as allocations", 'ex-6',
          (PEAK_ALLOCATES, '        if (n.op.startswith("call") and not aliases_input(gm, n)) or n.op == "placeholder":'),
          says='too high'),
    wrong('03.peak_memory', 'every value sized at four bytes per element, whatever its dtype', 'ex-6',
          ('sizes[n] = math.prod(meta.shape) * meta.dtype.itemsize if', 'sizes[n] = math.prod(meta.shape) * 4 if'),
          says='too high|too low', hidden_says='too high|too low'),
    wrong('03.peak_memory', 'a value nobody reads is never freed (only values in last_read are)', 'ex-6',
          ('if m not in outputs and last_read.get(m, position[m]) <= i:', 'if m not in outputs and m in last_read and last_read[m] <= i:'),
          says='too high', hidden_says='too high'),
    wrong('03.peak_memory', 'frees a value one node after its last reader (< instead of <=)', 'ex-6',
          ('if m not in outputs and last_read.get(m, position[m]) <= i:', 'if m not in outputs and last_read.get(m, position[m]) < i:'),
          says='too high', hidden_says='too high'),
    wrong('03.peak_memory', 'a parameter read through get_attr counted as an allocation', 'ex-6',
          (PEAK_ALLOCATES, '        if (n.op.startswith("call") and not aliases_input(gm, n)) or n.op == "get_attr":'),
          says='too high', hidden_says='too high'),
    wrong('03.peak_memory', "every call node taken to output a tensor: a size query (x.size(0)) has no tensor_meta", 'ex-6',
          ('            meta = n.meta.get("tensor_meta")\n            sizes[n] = math.prod(meta.shape) * meta.dtype.itemsize if isinstance(meta, TensorMetadata) else 0\n',
           '            meta = n.meta["tensor_meta"]\n            sizes[n] = math.prod(meta.shape) * meta.dtype.itemsize\n'),
          says='raised', hidden_says='raised'),
    wrong('03.peak_memory', 'a value freed after its first reader, not its last', 'ex-6',
          ('            last_read[owner(i)] = position[n]', '            last_read.setdefault(owner(i), position[n])'),
          says='too low', hidden_says='too low'),
    wrong('03.peak_memory', "ShapeProp run only when the graph has no shapes yet: a second call with other inputs reuses the first call's shapes", 'ex-6',
          ('    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n',
           '    if not any("tensor_meta" in n.meta for n in gm.graph.nodes):   # shapes known already: skip\n'
           '        ShapeProp(gm).propagate(*inputs)\n'),
          says='measured just before', hidden_says='measured just before'),
    wrong('03.peak_memory', "measures the peak with the package's profiler (helpers.profiling.peak_allocated_bytes) instead of estimating it from the graph", 'ex-6',
          ('    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n',
           '    from helpers.profiling import peak_allocated_bytes\n    return peak_allocated_bytes(gm, *inputs)\n'),
          says='too low|too high|profil', hidden_says='too low|too high|profil'),
    # fair-grades round: mistakes the earlier checks let through, or new ones
    wrong('03.peak_memory', 'last readers found in node.args only: a value read inside a list (torch.cat) or by keyword is freed at once', 'ex-6',
          ('    for n in nodes:\n        for i in n.all_input_nodes:',
           '    for n in nodes:\n        for i in [a for a in n.args if isinstance(a, fx.Node)]:'),
          says='too low', hidden_says='too low'),
    wrong('03.peak_memory', 'views and in-place ops recognised by method name only (VIEW_METHODS), not by aliases_input', 'ex-6',
          ('        while n.op.startswith("call") and aliases_input(gm, n) and', '        while n.op == "call_method" and n.target in VIEW_METHODS and'),
          ('        if n.op.startswith("call") and not aliases_input(gm, n):', '        if n.op.startswith("call") and not (n.op == "call_method" and n.target in VIEW_METHODS):'),
          says='too high|too low', hidden_says='too high|too low'),
    wrong('03.peak_memory', 'measures the graph after fusing it (fusion_pass(gm) first): the fused graph, not the one given, and the caller\'s graph changed', 'ex-6',
          ('    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n',
           '    gm = fusion_pass(gm)               # memory after fusion is what matters\n'
           '    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n'),
          says='too low', hidden_says='too low'),

    # fair-grades round 2 (let through before, public or hidden, unless marked "caught before")
    wrong('03.traffic', 'views (view, reshape, t, transpose, flatten) skipped as moving no data, though the rule counts every call node', 'ex-1',
          ('        if node.op not in ("call_function", "call_method", "call_module"):\n            continue\n',
           '        if node.op not in ("call_function", "call_method", "call_module"):\n            continue\n'
           '        if node.op == "call_method" and node.target in ("view", "reshape", "t", "transpose", "flatten", "expand"):\n'
           '            continue   # a view moves no data\n'),
          says='counts as a kernel', hidden_says='too low'),
    wrong('03.traffic', "a module's parameters and buffers priced at 4 bytes an element, whatever their dtype (caught before)", 'ex-1',
          ('sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])',
           'sum(t.numel() * 4 for t in [*mod.parameters(), *mod.buffers()])'),
          says='too low|too high|expected', hidden_says='too low|too high'),
    wrong('03.traffic', 'every tensor counted once over the whole graph: an intermediate written by one kernel is not read again by the next (caught before)', 'ex-1',
          ('        total += sum(nbytes(i) for i in node.all_input_nodes) + nbytes(node)\n',
           '        for t in [*node.all_input_nodes, node]:\n            if t not in seen:\n                seen.add(t)\n                total += nbytes(t)\n'),
          ('    total = 0\n', '    total, seen = 0, set()\n'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', 'a parameter fetched by get_attr taken to be in memory already, so not counted as read (caught before)', 'ex-1',
          ('sum(nbytes(i) for i in node.all_input_nodes)', 'sum(nbytes(i) for i in node.all_input_nodes if i.op != "get_attr")'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.chains', 'views taken for in-place ops (aliases_input instead of mutates): a view of another tensor between two ops cuts the chain', 'ex-2a',
          ('mutation_at = [order[n] for n in gm.graph.nodes if mutates(gm, n)]',
           'mutation_at = [order[n] for n in gm.graph.nodes if aliases_input(gm, n)]'),
          says='could start earlier', hidden_says='could start earlier|not found'),
    wrong('03.chains', 'the output node not counted as a reader: a value that is returned and read by the next op is fused away', 'ex-2a',
          ('        while len(chain[-1].users) == 1:\n            nxt = next(iter(chain[-1].users))',
           '        while len([u for u in chain[-1].users if u.op != "output"]) == 1:\n'
           '            nxt = next(u for u in chain[-1].users if u.op != "output")'),
          says="output node is one of them", hidden_says="output node is one of them"),
    wrong('03.chains', 'a chain grown only into the next node in graph order (node.next), not into its reader wherever it is', 'ex-2a',
          ('            nxt = next(iter(chain[-1].users))\n',
           '            nxt = chain[-1].next                 # the next node in graph order\n'
           '            if nxt not in chain[-1].users:\n                break\n'),
          says='could start earlier', hidden_says='could start earlier|not found'),
    wrong('03.chains', 'rule 3 applied to every in-place op before the next node, even one before the chain starts (caught before)', 'ex-2a',
          ('crosses = any(order[node] < m < order[nxt] for m in mutation_at)', 'crosses = any(m < order[nxt] for m in mutation_at)'),
          says='not found|could go on|could start', hidden_says='not found|could go on|could start'),
    wrong('03.fuse', 'the fused name numbered by the call_module nodes in the graph: after fusing a chain that held a module the count repeats', 'ex-2b',
          ('    k = 0\n    while hasattr(gm, f"fused_{k}"):\n        k += 1\n',
           '    k = sum(n.op == "call_module" for n in gm.graph.nodes)\n'),
          also=(NO_DEMO,), says='same submodule name', hidden_says='same submodule name'),
    wrong('03.fuse', 'the fused node inserted at the end of the graph (before the output): a later op reads it before it exists (caught before)', 'ex-2b',
          ('    with gm.graph.inserting_after(chain[-1]):', '    with gm.graph.inserting_before(next(n for n in gm.graph.nodes if n.op == "output")):'),
          also=(NO_DEMO,), says='raised|before', hidden_says='raised|before'),
    wrong('03.triton_kernel', 'n_elements passed as x.shape[0] (the rows), not x.numel() (caught before)', 'ex-3',
          ('(x, out, x.numel(), BLOCK=block)', '(x, out, x.shape[0], BLOCK=block)'),
          says='differs', hidden_says='differs'),
    wrong('03.triton_kernel', 'the 0.5 subtracted before the relu, not after it (caught before)', 'ex-3',
          ('y = tl.sigmoid(tl.maximum((x + 1.0) * 2.0, 0.0) - 0.5)', 'y = tl.sigmoid(tl.maximum((x + 1.0) * 2.0 - 0.5, 0.0))'),
          says='differs', hidden_says='differs'),
    wrong('03.codegen', 'the generated store is not masked (the loads are): the last block writes past the end (caught before)', 'ex-4',
          ('.to(out_ptr.dtype.element_ty), mask=mask)")', '.to(out_ptr.dtype.element_ty))")'),
          says='wrote past the end', hidden_says='wrote past the end'),
    wrong('03.codegen', 'the generated store always rounds to fp16 (caught before)', 'ex-4',
          ('.to(out_ptr.dtype.element_ty), mask=mask)")', '.to(tl.float16), mask=mask)")'),
          says='differs', hidden_says='differs'),
    wrong('03.backend', 'runs the fused graph once on the example inputs (a warm-up that compiles the kernels): an in-place op on an input runs twice', 'ex-5',
          ('    return gm.forward\n    ### END SOLUTION',
           '    gm(*example_inputs)   # warm-up: every kernel compiled before the first real call\n    return gm.forward\n    ### END SOLUTION'),
          says='warm-up', hidden_says='warm-up'),
    wrong('03.backend', 'needs_grad asks whether all example inputs require grad (all instead of any) (caught before)', 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n', '    needs_grad = torch.is_grad_enabled() and all(\n'),
          says='grad', hidden_says='grad'),
    wrong('03.peak_memory', 'dead code dropped first (gm.graph.eliminate_dead_code()): a value nobody reads is never allocated', 'ex-6',
          ('    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n',
           '    gm.graph.eliminate_dead_code()     # a value nobody reads is never made\n    gm.recompile()\n'
           '    ShapeProp(gm).propagate(*inputs)   # fills node.meta["tensor_meta"]\n'),
          says='sets the peak', hidden_says='sets the peak'),
    wrong('03.peak_memory', 'a node nobody reads allocates nothing (only values with users are counted)', 'ex-6',
          (PEAK_ALLOCATES, '        if n.op.startswith("call") and not aliases_input(gm, n) and n.users:'),
          says='sets the peak', hidden_says='sets the peak'),
    wrong('03.peak_memory', 'ShapeProp run on float32 copies of the inputs: fp16 values sized at 4 bytes (let through by hidden)', 'ex-6',
          ('ShapeProp(gm).propagate(*inputs)', 'ShapeProp(gm).propagate(*[t.float() for t in inputs])'),
          says='too high', hidden_says='too high'),
    wrong('03.peak_memory', "the peak taken after the node's frees, not right after its allocation (caught before)", 'ex-6',
          ('            live += sizes[n]\n            peak = max(peak, live)\n        for m in list(sizes):\n'
           '            if m not in outputs and last_read.get(m, position[m]) <= i:\n                live -= sizes.pop(m)\n',
           '            live += sizes[n]\n        for m in list(sizes):\n'
           '            if m not in outputs and last_read.get(m, position[m]) <= i:\n                live -= sizes.pop(m)\n'
           '        peak = max(peak, live)\n'),
          says='too low', hidden_says='too low'),

    # fair-grades round 3 (let through before, public or hidden, unless marked "caught before")
    wrong('03.traffic', "an in-place method (a name ending in '_') counted as reading only: it makes no new tensor", 'ex-1',
          ('total += sum(nbytes(i) for i in node.all_input_nodes) + nbytes(node)',
           'total += sum(nbytes(i) for i in node.all_input_nodes) + '
           '(0 if node.op == "call_method" and node.target.endswith("_") else nbytes(node))'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.traffic', "module state counted once for the whole graph (gm's parameters and buffers), not per call_module node (caught before)", 'ex-1',
          (TRAFFIC_STATE, ''),
          ('    return total\n',
           '    total += sum(t.numel() * t.element_size() for t in [*gm.parameters(), *gm.buffers()])\n    return total\n'),
          says='too low|too high|expected', hidden_says='too low|too high'),
    wrong('03.traffic', "every tensor priced at the first input's bytes per element, inputs[0].element_size() (caught before)", 'ex-1',
          (TRAFFIC_ITEMSIZE, 'return math.prod(meta.shape) * inputs[0].element_size() if'),
          says='too high|expected', hidden_says='too high|too low'),
    wrong('03.traffic', 'counts kept in a dict keyed by the graph module: a second call with other inputs gets the first count (caught before)', 'ex-1',
          ('def traffic_bytes(', 'TRAFFIC_SEEN = {}\n\n\ndef traffic_bytes('),
          (SHAPEPROP, '    if gm in TRAFFIC_SEEN:   # counted before\n        return TRAFFIC_SEEN[gm]\n' + SHAPEPROP),
          ('    return total\n', '    TRAFFIC_SEEN[gm] = total\n    return total\n'),
          says='measured just before', hidden_says='measured just before'),
    wrong('03.traffic', 'returns MiB (total / 2**20) instead of bytes (caught before)', 'ex-1',
          ('    return total\n', '    return total / 2**20\n'),
          says='too low|expected', hidden_says='too low'),
    wrong('03.chains', 'readers counted per argument (h * h counts h twice), not as distinct nodes (caught before, by another case only)', 'ex-2a',
          ('        while len(chain[-1].users) == 1:\n', '        while sum(u.args.count(chain[-1]) for u in chain[-1].users) == 1:\n'),
          says='could start earlier|not found|could go on|readers', hidden_says='could start earlier|not found|could go on|readers'),
    wrong('03.chains', 'chains returned as lists of node names, not nodes (caught before)', 'ex-2a',
          ('            chains.append(chain)\n', '            chains.append([n.name for n in chain])\n'),
          also=(NO_DEMO,), says='fx.Node', hidden_says='fx.Node'),
    wrong('03.chains', 'a chain goes on only into a node of the same spelling (node.op): relu() then nn.Tanh() is cut (caught before)', 'ex-2a',
          (CHAIN_BREAK, 'if nxt in taken or elementwise_op(gm, nxt) is None or crosses or nxt.op != node.op:'),
          says='could go on|not found|could start', hidden_says='could go on|not found|could start'),
    wrong('03.chains', "only one-input ops extend a chain, as the page's one-input fused function needs: h + y ends it (caught before)", 'ex-2a',
          (CHAIN_BREAK, 'if nxt in taken or elementwise_op(gm, nxt) is None or crosses or len(nxt.all_input_nodes) > 1:'),
          says='could go on|not found|could start', hidden_says='could go on|not found|could start'),
    wrong('03.chains', 'a chain stops before a node the graph returns, as if an output could not be fused (caught before)', 'ex-2a',
          (CHAIN_BREAK, 'if nxt in taken or elementwise_op(gm, nxt) is None or crosses or any(u.op == "output" for u in nxt.users):'),
          says='could go on|not found', hidden_says='could go on|not found'),
    wrong('03.chains', "dead code dropped first (gm.graph.eliminate_dead_code()): the caller's graph loses its in-place ops (caught before)", 'ex-2a',
          ('    order = {node: i for i, node in enumerate(gm.graph.nodes)}\n',
           '    gm.graph.eliminate_dead_code()   # nothing to fuse in values nobody reads\n'
           '    order = {node: i for i, node in enumerate(gm.graph.nodes)}\n'),
          says='in-place', hidden_says='in-place'),
    wrong('03.fuse', "the last node's readers rewired by their first argument only (user.args = (fused, *rest))", 'ex-2b',
          ('    chain[-1].replace_all_uses_with(fused)\n',
           '    for user in list(chain[-1].users):\n        user.args = (fused, *user.args[1:])   # the chain\'s result feeds its reader\n'),
          also=(NO_DEMO,), says='raised|differs', hidden_says='raised|differs'),
    wrong('03.fuse', "the page's fused node: a call_function of a closure running the chain's graph, not a call_module (caught before)", 'ex-2b',
          ('    gm.add_submodule(f"fused_{k}", fx.GraphModule(gm, sub_graph))\n    with gm.graph.inserting_after(chain[-1]):\n'
           '        fused = gm.graph.call_module(f"fused_{k}", tuple(outside))\n',
           '    sub = fx.GraphModule(gm, sub_graph)\n\n    def make_fused(*args, _sub=sub):   # the page\'s fused function, every input passed on\n'
           '        return _sub(*args)\n\n    with gm.graph.inserting_after(chain[-1]):\n'
           '        fused = gm.graph.call_function(make_fused, tuple(outside))\n'),
          also=(NO_DEMO,), says='call_module', hidden_says='call_module'),
    wrong('03.fuse', "the fused graph returns a 1-tuple, output((value,)): the chain's readers get a tuple (caught before)", 'ex-2b',
          ('sub_graph.output(env[chain[-1]])', 'sub_graph.output((env[chain[-1]],))'),
          also=(NO_DEMO,), says='raised|differs', hidden_says='raised|differs'),
    wrong('03.triton_kernel', "the block shrunk to the input's size when that is smaller, min(block, n): not a power of two", 'ex-3',
          ('    x = x.contiguous()\n', '    x = x.contiguous()\n    block = min(block, x.numel())   # no lanes wasted on a small input\n'),
          says='power of two', hidden_says='power of two'),
    wrong('03.triton_kernel', "the result stored as fp16 whatever the output's dtype, the page's result.to(tl.float16) (caught before)", 'ex-3',
          ('y.to(out_ptr.dtype.element_ty)', 'y.to(tl.float16)'),
          says='differs', hidden_says='differs'),
    wrong('03.triton_kernel', 'converted to fp32 only after (x + 1) * 2: the first two ops run in fp16 (caught before)', 'ex-3',
          (KERNEL_LOAD, '    x = tl.load(x_ptr + offsets, mask=mask)'),
          (KERNEL_MATH, 'y = tl.sigmoid(tl.maximum(((x + 1.0) * 2.0).to(tl.float32), 0.0) - 0.5)'),
          says='fp32', hidden_says='fp32'),
    wrong('03.triton_kernel', 'a power of two tested as an even number, block % 2 (caught before)', 'ex-3',
          (BLOCK_TEST, '    if block < 1 or block % 2:\n'),
          says='ValueError', hidden_says='ValueError'),
    wrong('03.triton_kernel', "the output allocated on 'cuda', the only device the author had (caught before)", 'ex-3',
          ('    out = torch.empty_like(x)\n', '    out = torch.empty_like(x, device="cuda")\n'),
          says='raised', hidden_says='raised'),
    wrong('03.codegen', "each value's variable named after its op (t_sigmoid): two values of one op overwrite each other", 'ex-4',
          ('            var[node] = f"v{len(var)}"', '            var[node] = f"t_{elementwise_op(chain_gm, node)}"'),
          says='differs', hidden_says='differs'),
    wrong('03.codegen', 'the generated source has no @triton.jit line (caught before)', 'ex-4',
          ('lines = ["@triton.jit", f"def {name}', 'lines = [f"def {name}'),
          says='raised', hidden_says='raised'),
    wrong('03.codegen', 'out_ptr first in the signature, though TritonChain passes the inputs first (caught before)', 'ex-4',
          ('f"def {name}({ptrs}, out_ptr, n_elements', 'f"def {name}(out_ptr, {ptrs}, n_elements'),
          says='differs', hidden_says='differs'),
    wrong('03.codegen', 'BLOCK not declared tl.constexpr in the signature (caught before)', 'ex-4',
          ('n_elements, BLOCK: tl.constexpr):"', 'n_elements, BLOCK):"'),
          says='constexpr', hidden_says='constexpr'),
    wrong('03.backend', "caches its result by the graph's code, ahead of the gradient test (caught before)", 'ex-5',
          ('def memfuse(', 'MEMFUSED = {}\n\n\ndef memfuse('),
          ('    needs_grad = torch.is_grad_enabled() and any(\n',
           '    key = gm.code\n    if key in MEMFUSED:   # this graph was compiled before\n        return MEMFUSED[key]\n'
           '    needs_grad = torch.is_grad_enabled() and any(\n'),
          ('    return gm.forward\n    ### END SOLUTION', '    MEMFUSED[key] = gm.forward\n    return gm.forward\n    ### END SOLUTION'),
          says='grad', hidden_says='grad'),
    wrong('03.backend', 'falls back to eager unless every example tensor is on CUDA, Triton taken to need a GPU (caught before)', 'ex-5',
          ('    if needs_grad:\n', '    if needs_grad or not all(t.is_cuda for t in example_inputs if isinstance(t, torch.Tensor)):\n'),
          says='TritonChain', hidden_says='TritonChain'),
    wrong('03.peak_memory', "every value sized at the first input's bytes per element", 'ex-6',
          ('sizes[n] = math.prod(meta.shape) * meta.dtype.itemsize if', 'sizes[n] = math.prod(meta.shape) * inputs[0].element_size() if'),
          says='too high', hidden_says='too high'),
    wrong('03.peak_memory', 'returns megabytes (peak / 1e6), as the page prints (caught before)', 'ex-6',
          ('    return peak\n', '    return peak / 1e6\n'),
          says='too low', hidden_says='too low'),
    wrong('03.peak_memory', "peaks kept by the graph's code: the same code with other shapes or dtypes gets an old number (caught before)", 'ex-6',
          ('def estimate_peak_bytes(', 'PEAKS = {}\n\n\ndef estimate_peak_bytes('),
          (SHAPEPROP, '    if gm.code in PEAKS:   # estimated before\n        return PEAKS[gm.code]\n' + SHAPEPROP),
          ('    return peak\n', '    PEAKS[gm.code] = peak\n    return peak\n'),
          says='too high|too low|measured just before', hidden_says='too high|too low|measured just before'),

    # fair-grades round 4 (let through before, public or hidden, unless marked "caught before")
    wrong('03.triton_kernel', 'a grid of numel // block + 1 programs: one program too many when the block divides the size', 'ex-3',
          ('triton.cdiv(x.numel(), block)', 'x.numel() // block + 1'),
          says='one too many', hidden_says='one too many'),
    wrong('03.traffic', 'bytes per element from torch.finfo(dtype).bits // 8: a bool or integer tensor has no finfo', 'ex-1',
          ('meta.dtype.itemsize', 'torch.finfo(meta.dtype).bits // 8'),
          says='no torch.finfo', hidden_says='no torch.finfo'),
    wrong('03.traffic', "a module's state counted as mod.weight and mod.bias: a module without them raises, a batch norm's "
          "buffers are missed (caught before)", 'ex-1',
          ('sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])',
           'sum(t.numel() * t.element_size() for t in (mod.weight, mod.bias) if t is not None)'),
          says='weight', hidden_says='weight'),
    wrong('03.chains', 'each chain listed from its last node back to its first (grown backwards, never reversed)', 'ex-2a',
          ('            chains.append(chain)', '            chains.append(chain[::-1])'),
          says='graph order', hidden_says='graph order'),
    wrong('03.chains', "the nodes of a found chain never marked as taken: the chain's tail starts a second chain (caught before)", 'ex-2a',
          ('            taken.update(chain)\n', ''),
          says='two chains', hidden_says='two chains'),
    wrong('03.fuse', "outside inputs gathered from node.args only: an input read by keyword (other=y) is missed", 'ex-2b',
          ('outside = list(dict.fromkeys(i for n in chain for i in n.all_input_nodes if i not in members))',
           'outside = list(dict.fromkeys(i for n in chain for i in n.args if isinstance(i, fx.Node) and i not in members))'),
          says='keyword arguments too', hidden_says='keyword arguments too'),
    wrong('03.codegen', "the generated offsets hard-code 1024 (TritonChain's default block) instead of BLOCK", 'ex-4',
          ('"    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)"', '"    offsets = tl.program_id(0) * 1024 + tl.arange(0, BLOCK)"'),
          says='BLOCK it is launched with', hidden_says='BLOCK it is launched with'),
    wrong('03.backend', "the graph cleaned first with gm.graph.eliminate_dead_code(): an in-place op on an input, read by "
          "nothing, is dropped (caught before, blamed on a warm-up call)", 'ex-5',
          ('    gm = fusion_pass(gm)\n', '    gm.graph.eliminate_dead_code()\n    gm.recompile()\n    gm = fusion_pass(gm)\n'),
          says='never ran', hidden_says='never ran'),
    # fair-grades round 5 (caught before; kept so that they stay caught)
    wrong('03.backend', 'memfuse hands the graph to Inductor (compile_fx) instead of fusing it itself (caught before)', 'ex-5',
          ('    gm = fusion_pass(gm)\n', '    from torch._inductor.compile_fx import compile_fx\n'
           '    return compile_fx(gm, example_inputs)   # the grown-up fuser\n    gm = fusion_pass(gm)\n'),
          says='TritonChain', hidden_says='TritonChain'),
    wrong('03.backend', 'memfuse never falls back: it runs the fused graph under torch.no_grad(), so that kernels without a '
          'backward "do not matter" (caught before)', 'ex-5',
          ('    if needs_grad:\n', '    if False:\n'),
          ('    return gm.forward\n    ### END', '    def run(*args):\n        with torch.no_grad():\n            return gm(*args)\n'
           '    return run\n    ### END'),
          says='grad_fn', hidden_says='grad_fn'),
    wrong('03.backend', 'memfuse swaps in the TritonChains before fusion_pass runs, when no fused child exists yet (caught before)', 'ex-5',
          ('    gm = fusion_pass(gm)\n    for name, sub in list(gm.named_children()):\n'
           '        if name.startswith("fused_") and isinstance(sub, fx.GraphModule):\n'
           '            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n',
           '    for name, sub in list(gm.named_children()):\n'
           '        if name.startswith("fused_") and isinstance(sub, fx.GraphModule):\n'
           '            setattr(gm, name, TritonChain(sub))\n    gm = fusion_pass(gm)\n'),
          says='TritonChain', hidden_says='TritonChain'),
    wrong('03.traffic', "the graph's inputs (placeholders) taken to be read for free: only intermediates count as reads (caught before)", 'ex-1',
          ('sum(nbytes(i) for i in node.all_input_nodes)', "sum(nbytes(i) for i in node.all_input_nodes if i.op != 'placeholder')"),
          says='too low|expected', hidden_says='too low'),
    # fair-grades round 6 (new kinds: state kept between compiles or calls, the wrong callable, torch's own kernel,
    # units, the first block only; let through before, public or hidden, unless marked "caught before")
    wrong('03.backend', "the fused children's names kept in a module-level list never reset between compiles: a later "
          "graph's fused_0 is wrapped in a TritonChain again (a TritonChain of a TritonChain)", 'ex-5',
          ('    for name, sub in list(gm.named_children()):\n        if name.startswith("fused_") and isinstance(sub, fx.GraphModule):\n'
           '            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n',
           '    FUSED_NAMES.extend(name for name, sub in gm.named_children()\n'
           '                       if name.startswith("fused_") and isinstance(sub, fx.GraphModule))\n'
           '    for name in FUSED_NAMES:   # every fused child memfuse has made\n'
           '        if hasattr(gm, name):\n'
           '            setattr(gm, name, TritonChain(getattr(gm, name)))\n'),
          ('def memfuse(', 'FUSED_NAMES = []\n\n\ndef memfuse('),
          says='wrapped twice|TritonChain of a TritonChain', hidden_says='wrapped twice|TritonChain of a TritonChain'),
    wrong('03.backend', "each TritonChain cached by its fused child's name (fused_0) across compiles, to generate each "
          "kernel once: the next graph's fused_0 runs the first graph's chain", 'ex-5',
          ('            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n',
           '            if name not in CHAINS:   # generating and loading a kernel is slow: once per chain\n'
           '                CHAINS[name] = TritonChain(sub)\n'
           '            setattr(gm, name, CHAINS[name])\n'),
          ('def memfuse(', 'CHAINS = {}\n\n\ndef memfuse('),
          says='earlier compile', hidden_says='earlier compile'),
    wrong('03.backend', "returns TritonChain(gm), the whole fused graph handed to TritonChain as one chain, instead of a "
          "TritonChain in place of each fused child (caught before)", 'ex-5',
          ('    for name, sub in list(gm.named_children()):\n        if name.startswith("fused_") and isinstance(sub, fx.GraphModule):\n'
           '            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n'
           '    return gm.forward\n',
           '    return TritonChain(gm)   # the fused graph, run by a generated kernel\n'),
          says='whole graph', hidden_says='whole graph'),
    wrong('03.backend', "example_inputs passed on to TritonChain (TritonChain(sub, example_inputs)): its second argument "
          "is the block size", 'ex-5',
          ('setattr(gm, name, TritonChain(sub))', 'setattr(gm, name, TritonChain(sub, example_inputs))'),
          says='block', hidden_says='block'),
    wrong('03.codegen', "generated sources memoized by the chain's op names, to generate each kernel once: a chain of the "
          "same ops wired otherwise (other operands) gets the earlier chain's kernel", 'ex-4',
          ('    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n',
           '    key = tuple(elementwise_op(chain_gm, n) for n in chain_gm.graph.nodes if n.op.startswith("call"))\n'
           '    if key in GENERATED:   # these ops were generated before: the same kernel, renamed\n'
           '        old_name, old_source = GENERATED[key]\n'
           '        return old_source.replace(f"def {old_name}(", f"def {name}(")\n'
           '    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n'),
          ('    return "\\n".join(lines) + "\\n"\n',
           '    GENERATED[key] = (name, "\\n".join(lines) + "\\n")\n    return GENERATED[key][1]\n'),
          ('def emit_triton(', 'GENERATED = {}\n\n\ndef emit_triton('),
          says='same kernel as for', hidden_says='same kernel as for'),
    wrong('03.codegen', "generated offsets without the block's start: tl.program_id(0) + tl.arange(0, BLOCK) (the "
          "* BLOCK forgotten), so the programs overlap and only the first elements are computed", 'ex-4',
          ('"    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)"', '"    offsets = tl.program_id(0) + tl.arange(0, BLOCK)"'),
          says='first block', hidden_says='first block'),
    wrong('03.codegen', "the generated store writes through in0_ptr (the first load's pointer, copied) instead of out_ptr: "
          "the result overwrites an input and the output is never written", 'ex-4',
          ('f"    tl.store(out_ptr + offsets, {result}', 'f"    tl.store(in0_ptr + offsets, {result}'),
          says='changed its input', hidden_says='changed its input'),
    wrong('03.triton_kernel', "chain_triton hands the chain to Inductor, torch.compile(chain_ops), instead of launching "
          "its own Triton kernel (caught before)", 'ex-3',
          ('    x = x.contiguous()\n', '    return torch.compile(chain_ops, dynamic=False)(x.contiguous())   # the compiler writes the kernel\n'),
          says='PyTorch ops ran|no Triton kernel', hidden_says='PyTorch ops ran|no Triton kernel'),
    wrong('03.triton_kernel', "the mask compares the offsets with BLOCK, not n_elements: every program but the first is "
          "masked off, and a short input is read past its end (caught before)", 'ex-3',
          ('mask = offsets < n_elements', 'mask = offsets < BLOCK'),
          says='past the end|first block', hidden_says='past the end|first block'),
    wrong('03.triton_kernel', "the result returned flat: x viewed as one dimension for the kernel, and the output "
          "allocated from that view (caught before)", 'ex-3',
          ('    x = x.contiguous()\n', '    x = x.contiguous().view(-1)   # the kernel sees one flat array\n'),
          says='shape', hidden_says='shape'),
    wrong('03.peak_memory', "returns the bytes alive at the end of the walk (live), not the largest total seen (peak)", 'ex-6',
          ('    return peak\n', '    return live\n'),
          says='alive when the walk ends', hidden_says='alive when the walk ends'),
    wrong('03.traffic', "a number operand (the 1 of x + 1) counted as a 4-byte fp32 scalar read", 'ex-1',
          ('        total += sum(nbytes(i) for i in node.all_input_nodes) + nbytes(node)\n',
           '        total += sum(nbytes(i) for i in node.all_input_nodes) + nbytes(node)\n'
           '        total += 4 * sum(isinstance(a, (int, float)) and not isinstance(a, bool) for a in node.args)   # a scalar\n'),
          says='numbers', hidden_says='numbers'),
    *lab03_part8.WRONG,
]

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

RIGHT = [
    right(("03.traffic", "03.chains", "03.fuse", "03.triton_kernel", "03.codegen", "03.backend", "03.peak_memory",
           "03.pitfalls"), 'the alternative solution: every exercise of parts 1-6 written another way',
          "ex-1", source=ALTERNATIVE["ex-1"],
          also=(NO_DEMO, *(Edit(cid, source=code) for cid, code in ALTERNATIVE.items() if cid != "ex-1"))),
    right("03.fuse", "the fused node inserted before the chain's last node (every outside input exists there too)", "ex-2b",
          ("    with gm.graph.inserting_after(chain[-1]):", "    with gm.graph.inserting_before(chain[-1]):"),
          also=(NO_DEMO,)),
    right("03.triton_kernel", "the output allocated with torch.empty(x.shape, dtype=x.dtype, device=x.device)", "ex-3",
          ("    out = torch.empty_like(x)\n", "    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n")),
    right("03.triton_kernel", "x flattened first (x.contiguous().view(-1)), the output by new_empty and viewed back to x's shape",
          "ex-3", ("    x = x.contiguous()\n    out = torch.empty_like(x)\n    if x.numel():\n"
                   "        chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)\n    return out\n",
                   "    flat = x.contiguous().view(-1)\n    out = flat.new_empty(flat.shape)\n    if flat.numel():\n"
                   "        chain_kernel[(triton.cdiv(flat.numel(), block),)](flat, out, flat.numel(), BLOCK=block)\n"
                   "    return out.view(x.shape)\n")),
    right("03.fuse", "placeholders named in_0, in_1, ... (one per distinct outside input)", "ex-2b",
          ("    env = {i: sub_graph.placeholder(i.name) for i in outside}",
           "    env = {i: sub_graph.placeholder(f\"in_{k}\") for k, i in enumerate(outside)}"),
          also=(NO_DEMO,)),
    right("03.backend", "needs_grad asked of the example inputs first, grad mode second", "ex-5",
          ("    needs_grad = torch.is_grad_enabled() and any(\n        isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)",
           "    needs_grad = any(getattr(t, \"requires_grad\", False) for t in example_inputs) and torch.is_grad_enabled()")),
    right("03.chains", "rule 3 checked between the chain's last node and the next, step by step", "ex-2a",
          ("crosses = any(order[node] < m < order[nxt] for m in mutation_at)",
           "crosses = any(order[chain[-1]] < m < order[nxt] for m in mutation_at)")),
    right('03.fuse', 'chain nodes rebuilt with create_node and fx.map_arg over args and kwargs (what node_copy does)', 'ex-2b',
          ('        env[n] = sub_graph.node_copy(n, lambda a: env[a])\n',
           '        env[n] = sub_graph.create_node(n.op, n.target, fx.map_arg(n.args, env.__getitem__),\n'
           '                                       fx.map_arg(n.kwargs, env.__getitem__), name=n.name)\n'),
          also=(NO_DEMO,)),
    right('03.peak_memory', 'liveness by reference counts: each storage freed when its last pending reader has run', 'ex-6',
          source=PEAK_REFCOUNT),
    right('03.traffic', "module state counted from mod.state_dict() (every parameter and buffer)", 'ex-1',
          ('sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])',
           'sum(t.nbytes for t in mod.state_dict().values())')),
    # fair-grades round 2
    right('03.fuse', "outside inputs gathered from the chain's last node back (the call passes them in the same order)", 'ex-2b',
          ('dict.fromkeys(i for n in chain for i in n.all_input_nodes if i not in members)',
           'dict.fromkeys(i for n in reversed(chain) for i in n.all_input_nodes if i not in members)'), also=(NO_DEMO,)),
    right('03.fuse', 'fuse_chain recompiles the graph module itself after each fusion', 'ex-2b',
          ('    return fused\n', '    gm.recompile()\n    return fused\n'), also=(NO_DEMO,)),
    right('03.backend', 'returns the GraphModule itself (it is callable) instead of gm.forward', 'ex-5',
          ('    return gm.forward\n    ### END SOLUTION', '    return gm\n    ### END SOLUTION')),
    right('03.backend', "fuses a deep copy of Dynamo's graph and returns the copy's forward", 'ex-5',
          ('    gm = fusion_pass(gm)\n', '    gm = fusion_pass(copy.deepcopy(gm))\n')),
    right('03.backend', "decides per call: a wrapper runs an eager copy of the graph when that call's inputs need gradients", 'ex-5',
          ('    needs_grad = torch.is_grad_enabled() and any(\n        isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)\n'
           '    if needs_grad:\n        print("[memfuse] this graph needs gradients and generated kernels have no backward: running it in eager")\n'
           '        return gm.forward\n',
           '    eager = copy.deepcopy(gm)\n'),
          ('    return gm.forward\n    ### END SOLUTION',
           '    def run(*args):\n'
           '        if torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in args):\n'
           '            return eager(*args)\n'
           '        return gm(*args)\n'
           '    return run\n    ### END SOLUTION')),
    right('03.triton_kernel', "the fp32 result stored without .to(): tl.store converts to the output's type", 'ex-3',
          ('tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)', 'tl.store(out_ptr + offsets, y, mask=mask)')),
    right('03.triton_kernel', 'a power of two recognised by math.log2(block).is_integer() (0 and negatives raise ValueError in log2)', 'ex-3',
          ('    if block < 1 or block & (block - 1):\n        raise ValueError(',
           '    if not math.log2(block).is_integer():\n        raise ValueError(')),
    right('03.codegen', 'variables named after the nodes, pointers after the placeholders', 'ex-4',
          ('    ptrs = ", ".join(f"in{i}_ptr" for i in range(len(inputs)))\n', '    ptrs = ", ".join(f"{n.name}_ptr" for n in inputs)\n'),
          ('lines += [f"    a{i} = tl.load(in{i}_ptr + offsets', 'lines += [f"    a{i} = tl.load({inputs[i].name}_ptr + offsets'),
          ('            var[node] = f"v{len(var)}"', '            var[node] = f"t_{node.name}"')),
    right('03.chains', 'rule 3 with inclusive bounds (a node at either end never mutates: it is elementwise)', 'ex-2a',
          ('crosses = any(order[node] < m < order[nxt] for m in mutation_at)', 'crosses = any(order[node] <= m <= order[nxt] for m in mutation_at)')),
    # fair-grades round 3
    right('03.traffic', 'bytes per element from torch.empty((), dtype=...).element_size()', 'ex-1',
          (TRAFFIC_ITEMSIZE, 'return math.prod(meta.shape) * torch.empty((), dtype=meta.dtype).element_size() if')),
    right('03.traffic', 'ShapeProp(gm).run(*inputs) (propagate calls run)', 'ex-1',
          ('ShapeProp(gm).propagate(*inputs)', 'ShapeProp(gm).run(*inputs)')),
    right('03.chains', 'chains returned longest first', 'ex-2a',
          ('    return chains\n', '    return sorted(chains, key=len, reverse=True)\n')),
    right('03.fuse', 'the fused submodule registered with setattr(gm, name, sub)', 'ex-2b',
          ('    gm.add_submodule(f"fused_{k}", fx.GraphModule(gm, sub_graph))', '    setattr(gm, f"fused_{k}", fx.GraphModule(gm, sub_graph))'),
          also=(NO_DEMO,)),
    right('03.fuse', 'outside inputs kept in a set, iterated once for the placeholders and once for the call (one order)', 'ex-2b',
          ('    outside = list(dict.fromkeys(i for n in chain for i in n.all_input_nodes if i not in members))\n',
           '    outside = {i for n in chain for i in n.all_input_nodes if i not in members}\n'),
          also=(NO_DEMO,)),
    right('03.triton_kernel', 'relu written as tl.where(v > 0, v, 0.0)', 'ex-3',
          (KERNEL_MATH, 'y = (x + 1.0) * 2.0\n    y = tl.sigmoid(tl.where(y > 0, y, 0.0) - 0.5)')),
    right('03.triton_kernel', 'a power of two recognised by int.bit_count() == 1', 'ex-3',
          (BLOCK_TEST, '    if block < 1 or block.bit_count() != 1:\n')),
    right('03.triton_kernel', 'the output made contiguous by empty_like(memory_format=torch.contiguous_format), before x is', 'ex-3',
          ('    x = x.contiguous()\n    out = torch.empty_like(x)\n',
           '    out = torch.empty_like(x, memory_format=torch.contiguous_format)\n    x = x.contiguous()\n')),
    right('03.triton_kernel', "the block capped at the input's size rounded up to a power of two (triton.next_power_of_2)", 'ex-3',
          (LAUNCH, '    if x.numel():\n        block = min(block, triton.next_power_of_2(x.numel()))\n'
                   '        chain_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)\n')),
    right('03.codegen', 'each input loaded right before its first use', 'ex-4', source=CODEGEN_LAZY_LOADS),
    right('03.backend', 'fused children found with list(gm.named_modules())', 'ex-5',
          ('    for name, sub in list(gm.named_children()):\n', '    for name, sub in list(gm.named_modules()):\n')),
    right('03.backend', 'when gradients are needed, the fused graph runs with its chains in eager (autograd sees every op)', 'ex-5',
          ('        return gm.forward\n    gm = fusion_pass(gm)\n', '        return fusion_pass(gm).forward\n    gm = fusion_pass(gm)\n')),
    right('03.backend', "prints the page's peak-memory report first: ShapeProp on example_inputs (fake tensors inside the backend)", 'ex-5',
          ('    gm = fusion_pass(gm)\n', '    ShapeProp(gm).propagate(*example_inputs)   # shapes for the page\'s peak-memory report\n'
           '    print("[memfuse] call nodes before fusing:", sum(n.op.startswith("call") for n in gm.graph.nodes))\n'
           '    gm = fusion_pass(gm)\n')),
    # fair-grades round 4
    right('03.triton_kernel', 'sigmoid written out as 1 / (1 + exp(-v)), the output from torch.zeros_like', 'ex-3',
          (KERNEL_MATH, 'v = tl.maximum((x + 1.0) * 2.0, 0.0) - 0.5\n    y = 1.0 / (1.0 + tl.exp(-v))'),
          ('    out = torch.empty_like(x)\n', '    out = torch.zeros_like(x)\n')),
    right('03.backend', 'fused children replaced while iterating gm.named_children() directly (setattr on an existing name)', 'ex-5',
          ('for name, sub in list(gm.named_children()):', 'for name, sub in gm.named_children():')),
    right('03.backend', 'returns a lambda that calls the fused graph module', 'ex-5',
          ('    return gm.forward\n    ### END', '    return lambda *args: gm(*args)\n    ### END')),
    right('03.fuse', 'the fused submodule registered with gm.register_module', 'ex-2b',
          ('gm.add_submodule(f"fused_{k}", fx.GraphModule(gm, sub_graph))', 'gm.register_module(f"fused_{k}", fx.GraphModule(gm, sub_graph))')),
    right('03.chains', 'chains returned as tuples of nodes, each grown by listing its last node\'s users', 'ex-2a',
          ('        while len(chain[-1].users) == 1:\n            nxt = next(iter(chain[-1].users))\n',
           '        while True:\n            users = list(chain[-1].users)\n            if len(users) != 1:\n                break\n'
           '            nxt = users[0]\n'),
          ('            chains.append(chain)', '            chains.append(tuple(chain))')),
    # fair-grades round 5
    right('03.backend', 'each fused chain run by TritonChain(sub, block=256)', 'ex-5',
          ('setattr(gm, name, TritonChain(sub))', 'setattr(gm, name, TritonChain(sub, block=256))')),
    right('03.backend', 'the fused children collected into a dict first, then swapped in with add_submodule', 'ex-5',
          ('    for name, sub in list(gm.named_children()):\n        if name.startswith("fused_") and isinstance(sub, fx.GraphModule):\n'
           '            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n',
           '    fused = {name: sub for name, sub in gm.named_children()\n'
           '             if name.startswith("fused_") and isinstance(sub, fx.GraphModule)}\n'
           '    for name, sub in fused.items():\n        gm.add_submodule(name, TritonChain(sub))\n')),
    right('03.traffic', 'distinct inputs from set(node.all_input_nodes), sizes from torch.Size(...).numel()', 'ex-1',
          (TRAFFIC_ITEMSIZE, 'return torch.Size(meta.shape).numel() * meta.dtype.itemsize if'),
          ('sum(nbytes(i) for i in node.all_input_nodes)', 'sum(nbytes(i) for i in set(node.all_input_nodes))')),
    # fair-grades round 6
    right('03.backend', "TritonChains kept across compiles by the fused chain's code (the same code runs the same kernel)", 'ex-5',
          ('            setattr(gm, name, TritonChain(sub))   # the chain now runs its generated kernel\n',
           '            if sub.code not in CHAINS_BY_CODE:   # the same chain compiled before: its kernel again\n'
           '                CHAINS_BY_CODE[sub.code] = TritonChain(sub)\n'
           '            setattr(gm, name, CHAINS_BY_CODE[sub.code])\n'),
          ('def memfuse(', 'CHAINS_BY_CODE = {}\n\n\ndef memfuse(')),
    right('03.codegen', "generated sources kept by the chain's code (gm.code), renamed for each name asked", 'ex-4',
          ('    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n',
           '    if chain_gm.code in SOURCES:   # this very chain was generated before\n'
           '        old_name, old_source = SOURCES[chain_gm.code]\n'
           '        return old_source.replace(f"def {old_name}(", f"def {name}(")\n'
           '    inputs = [n for n in chain_gm.graph.nodes if n.op == "placeholder"]\n'),
          ('    return "\\n".join(lines) + "\\n"\n',
           '    SOURCES[chain_gm.code] = (name, "\\n".join(lines) + "\\n")\n    return SOURCES[chain_gm.code][1]\n'),
          ('def emit_triton(', 'SOURCES = {}\n\n\ndef emit_triton(')),
    *lab03_part8.RIGHT,
]
