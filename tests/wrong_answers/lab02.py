"""Lab 02's wrong answers (see tests/wrong_answers/__init__.py): one plausible mistake each, and correct answers
written another way (the ANOTHER_* cells, each a whole exercise cell written differently from the solution)."""

from tests.wrong_answers import ROOT, right, wrong

SOLUTION = ROOT / "solutions" / "02_fx_rewrites.ipynb"
CELLS = ["parameters", "setup", "ex-1", "ex-2a", "ex-2b", "ex-2c", "ex-2d", "p2-random", "ex-2e", "p3-ops", "ex-3",
         "p4-base", "ex-4a", "ex-4b", "ex-5"]
# Words the hidden messages must never show: the grader's models, nodes and submodules.
HIDDEN_NAMES = ("HRelu", "HFold", "HDead", "HConst", "HCost", "HPipe", "HStaysTraining", "HSeqCost", "bn_t", "deep.0",
                "sub.0", "head.0", "shared", "tap", "swish", "slow_identity")

# is_relu's body, as the solution writes it (a wrong answer compares the target without looking at node.op)
IS_RELU = ('    if node.op == "call_function":\n        return node.target in (torch.relu, torch.relu_, F.relu)\n'
           '    if node.op == "call_method":\n        return node.target in ("relu", "relu_")\n'
           '    if node.op == "call_module":\n        return isinstance(gm.get_submodule(node.target), nn.ReLU)\n    return False\n')
RECOMPILED = '    gm.graph.lint()\n    gm.recompile()\n    return gm\n'
# check_pass's comparison of the outputs, as the solution writes it (a wrong answer moves it after the idempotence test)
OUTPUT_CHECK = ('        if not (isinstance(got, torch.Tensor) and got.shape == case["expected"].shape\n'
                '                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)):\n'
                '            return "output: the rewritten graph computes something else"\n')

PATTERNS_FIRST = '''
def relu_to_gelu_pattern(gm):
    def as_function(x):
        return torch.relu(x)

    def as_functional(x):
        return F.relu(x)

    def as_method(x):
        return x.relu()

    def gelu(x):
        return F.gelu(x)

    for pattern in (as_function, as_functional, as_method):
        subgraph_rewriter.replace_pattern(gm, pattern, gelu)
    for node in list(gm.graph.nodes):          # a pattern function cannot call a submodule: make these calls functions
        if node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):
            with gm.graph.inserting_before(node):
                call = gm.graph.call_function(torch.relu, (node.args[0],))
            node.replace_all_uses_with(call)
            gm.graph.erase_node(node)
    gm.delete_all_unused_submodules()
    gm.graph.lint()
    gm.recompile()
    return gm
'''

WRONG = [
    # ---------------------------------------------------------------- 1: the graph as a table
    wrong('02.graph_table', 'table reads only positional args', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]', '"inputs": [a.name for a in node.args if isinstance(a, fx.Node)]'),
          says='inputs'),
    wrong('02.graph_table', 'users as a count, not the names of the readers', 'ex-1',
          ('"users": [u.name for u in node.users]', '"users": len(node.users)'),
          says='users'),
    wrong('02.graph_table', 'rows for the call nodes only, no placeholder, get_attr or output', 'ex-1',
          ('    for node in gm.graph.nodes:\n', '    for node in gm.graph.nodes:\n        if not node.op.startswith("call"):\n            continue\n'),
          says='one row per node'),
    wrong('02.graph_table', "a module's class name as the target instead of its path", 'ex-1',
          ('target = node.target if isinstance(node.target, str)',
           'target = type(gm.get_submodule(node.target)).__name__ if node.op == "call_module" else node.target if isinstance(node.target, str)'),
          says='target'),
    wrong('02.graph_table', 'the target as the name of the row', 'ex-1',
          ('{"name": node.name,', '{"name": str(target),'),
          says='node.name'),
    wrong('02.graph_table', 'inputs and users swapped', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes], "users": [u.name for u in node.users]',
           '"inputs": [u.name for u in node.users], "users": [n.name for n in node.all_input_nodes]'),
          says='inputs'),
    wrong('02.graph_table', 'only the first argument counted as an input', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]',
           '"inputs": [node.args[0].name] if node.args and isinstance(node.args[0], fx.Node) else []'),
          says='inputs'),

    wrong('02.graph_table', "str(node.target) for every target: a function's repr, with its address", 'ex-1',
          ('target = node.target if isinstance(node.target, str) else fx.node._get_qualified_name(node.target)',
           'target = str(node.target)'),
          says='as text'),

    wrong('02.graph_table', 'inputs walked through args and the lists in them, keyword arguments forgotten', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]',
           '"inputs": [a.name for a in torch.utils._pytree.tree_leaves(list(node.args)) if isinstance(a, fx.Node)]'),
          says='inputs'),

    wrong('02.graph_table', 'inputs and users as the Node objects themselves, not their names', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes], "users": [u.name for u in node.users]',
           '"inputs": list(node.all_input_nodes), "users": list(node.users)'),
          says='names'),
    wrong('02.graph_table', "a dotted target shortened to its last part ('blocks.0.conv1' → 'conv1')", 'ex-1',
          ('target = node.target if isinstance(node.target, str)', 'target = node.target.split(".")[-1] if isinstance(node.target, str)'),
          says='target'),

    # ---------------------------------------------------------------- 2a: ReLU → GELU by hand
    wrong('02.relu_to_gelu', "the page's rewrite: one spelling", 'ex-2a',
          ('return node.target in (torch.relu, torch.relu_, F.relu)', 'return False'),
          ('return isinstance(gm.get_submodule(node.target), nn.ReLU)', 'return False'),
          says='still there'),
    wrong('02.relu_to_gelu', 'misses the method spelling x.relu()', 'ex-2a',
          ('return node.target in ("relu", "relu_")', 'return False'),
          says='still there'),
    wrong('02.relu_to_gelu', 'misses the module spelling nn.ReLU', 'ex-2a',
          ('return isinstance(gm.get_submodule(node.target), nn.ReLU)', 'return False'),
          says='still there'),
    wrong('02.relu_to_gelu', 'misses F.relu (torch.relu only)', 'ex-2a',
          ('(torch.relu, torch.relu_, F.relu)', '(torch.relu, torch.relu_)'),
          says='still there'),
    wrong('02.relu_to_gelu', 'tanh-approximate GELU', 'ex-2a',
          ('gm.graph.call_function(F.gelu, (source,))', 'gm.graph.call_function(F.gelu, (source,), {"approximate": "tanh"})'),
          says=r"GELU must be exact \(approximate='none'\)", hidden_says='must be exact'),
    wrong('02.relu_to_gelu', 'matches any name with relu in it', 'ex-2a',
          ('return node.target in (torch.relu, torch.relu_, F.relu)', 'return "relu" in getattr(node.target, "__name__", "")'),
          ('return isinstance(gm.get_submodule(node.target), nn.ReLU)', 'return "relu" in type(gm.get_submodule(node.target)).__name__.lower()'),
          says='not ReLU'),
    wrong('02.relu_to_gelu', "functions whose name contains 'relu' (F.leaky_relu, F.relu6)", 'ex-2a',
          ('return node.target in (torch.relu, torch.relu_, F.relu)', 'return "relu" in node.target.__name__'),
          says=r'leaky_relu.*not ReLU|not ReLU', hidden_says='not ReLU'),
    wrong('02.relu_to_gelu', "module classes whose name contains 'ReLU' (nn.LeakyReLU, nn.ReLU6)", 'ex-2a',
          ('return isinstance(gm.get_submodule(node.target), nn.ReLU)', 'return "ReLU" in type(gm.get_submodule(node.target)).__name__'),
          says='LeakyReLU.*not ReLU', hidden_says='not ReLU'),
    wrong('02.relu_to_gelu', 'matches by node name (the name-based shortcut the text forbids)', 'ex-2a',
          ('return node.target in (torch.relu, torch.relu_, F.relu)', 'return node.name.startswith("relu")'),
          says='not ReLU|still there'),
    wrong('02.relu_to_gelu', 'forgets gm.recompile(): the module still runs the ReLU code', 'ex-2a',
          ('    gm.recompile()\n    return gm', '    return gm'),
          says=r'did you call gm\.recompile\(\)'),
    wrong('02.relu_to_gelu', 'erases the ReLU before its users read the GELU', 'ex-2a',
          ('        node.replace_all_uses_with(gelu)\n        gm.graph.erase_node(node)',
           '        gm.graph.erase_node(node)\n        node.replace_all_uses_with(gelu)'),
          says='relu_to_gelu raised .*still had', hidden_says='relu_to_gelu raised'),
    wrong('02.relu_to_gelu', 'rewires only the first user of the ReLU', 'ex-2a',
          ('        node.replace_all_uses_with(gelu)', '        next(iter(node.users)).replace_input_with(node, gelu)'),
          says='relu_to_gelu raised', hidden_says='relu_to_gelu raised'),
    wrong('02.relu_to_gelu', "GELU of the ReLU's output instead of its input", 'ex-2a',
          ('gm.graph.call_function(F.gelu, (source,))', 'gm.graph.call_function(F.gelu, (node,))'),
          says="lint|used before it has been defined"),

    wrong('02.relu_to_gelu', "ReLU's keyword arguments copied onto the GELU call (F.relu's inplace=False)", 'ex-2a',
          ('gm.graph.call_function(F.gelu, (source,))', 'gm.graph.call_function(F.gelu, (source,), dict(node.kwargs))'),
          says='raised|computes'),

    wrong('02.relu_to_gelu', 'each nn.ReLU submodule deleted right after its call is rewritten: a module called twice raises '
          'on its second call', 'ex-2a',
          ('        gm.graph.erase_node(node)\n    gm.delete_all_unused_submodules()     # the nn.ReLU modules nothing calls any more\n',
           '        gm.graph.erase_node(node)\n        if node.op == "call_module":\n            gm.delete_submodule(node.target)\n'),
          says='relu_to_gelu raised', hidden_says='relu_to_gelu raised'),
    wrong('02.relu_to_gelu', 'the GELU node created without inserting_before: it lands after the output node', 'ex-2a',
          ('        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_function(F.gelu, (source,))',
           '        gelu = gm.graph.call_function(F.gelu, (source,))'),
          says='lint|raised'),

    # ---------------------------------------------------------------- 2b: the pattern rewriter
    wrong('02.rewriter', 'a pattern rewriter that never calls replace_pattern', 'ex-2b',
          ('        subgraph_rewriter.replace_pattern(gm, pattern, gelu)', '        pass'),
          ('    gm.delete_all_unused_submodules()\n    gm.graph.lint()\n    gm.recompile()\n    return gm\n    ### END SOLUTION', '    return relu_to_gelu(gm)\n    ### END SOLUTION'),
          says='never called'),
    wrong('02.rewriter', 'a pattern for torch.relu only', 'ex-2b',
          ('for pattern in (as_function, as_functional, as_method):', 'for pattern in (as_function,):'),
          says='still there'),
    wrong('02.rewriter', 'no pattern for F.relu', 'ex-2b',
          ('for pattern in (as_function, as_functional, as_method):', 'for pattern in (as_function, as_method):'),
          says='still there'),
    wrong('02.rewriter', 'the nn.ReLU modules are never turned into calls a pattern can match', 'ex-2b',
          ('if node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):', 'if False:'),
          says='still there'),
    wrong('02.rewriter', "turns every module whose class name contains 'relu' into torch.relu", 'ex-2b',
          ('if node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):',
           'if node.op == "call_module" and "relu" in type(gm.get_submodule(node.target)).__name__.lower():'),
          says='not ReLU'),
    wrong('02.rewriter', 'a tanh-approximate GELU as the replacement', 'ex-2b',
          ('        return F.gelu(x)', '        return F.gelu(x, approximate="tanh")'),
          says=r"GELU must be exact \(approximate='none'\)", hidden_says='must be exact'),
    wrong('02.rewriter', "the sigmoid approximation x·σ(1.702x) as the replacement", 'ex-2b',
          ('        return F.gelu(x)', '        return x * torch.sigmoid(1.702 * x)'),
          says='computes something else'),

    wrong('02.rewriter', 'nn.ReLU modules turned into F.relu calls without its inplace keyword: the F.relu pattern does not match them', 'ex-2b',
          ('call = gm.graph.call_function(torch.relu, (node.args[0],))', 'call = gm.graph.call_function(F.relu, (node.args[0],))'),
          says='still there'),
    wrong('02.rewriter', 'nn.ReLU modules swapped by setattr(gm, target, nn.GELU()): a dotted target becomes a new attribute', 'ex-2b',
          ('            with gm.graph.inserting_before(node):\n                call = gm.graph.call_function(torch.relu, (node.args[0],))\n            node.replace_all_uses_with(call)\n            gm.graph.erase_node(node)\n',
           '            setattr(gm, node.target, nn.GELU())\n'),
          says='still there'),
    wrong('02.rewriter', 'module calls rewired to torch.relu but the module nodes left in the graph', 'ex-2b',
          ('            node.replace_all_uses_with(call)\n            gm.graph.erase_node(node)\n', '            node.replace_all_uses_with(call)\n'),
          says='still there'),

    wrong('02.rewriter', 'the patterns run before the nn.ReLU modules are turned into calls: those become torch.relu after '
          'the last pattern ran', 'ex-2b', source=PATTERNS_FIRST, says='still there'),
    wrong('02.rewriter', 'each nn.ReLU submodule deleted as soon as its first call is normalized: a module called twice '
          'raises', 'ex-2b',
          ('            gm.graph.erase_node(node)\n    gm.recompile()', '            gm.graph.erase_node(node)\n            gm.delete_submodule(node.target)\n    gm.recompile()'),
          says='relu_to_gelu_pattern raised', hidden_says='relu_to_gelu_pattern raised'),

    # ---------------------------------------------------------------- 2c: conv + batch-norm folding
    wrong('02.fold_conv_bn', 'folds the weights in place', 'ex-2c',
          ('folded = copy.deepcopy(conv)', 'folded = conv'),
          says='changed the original model'),
    wrong('02.fold_conv_bn', 'folds a conv that has other users', 'ex-2c',
          ('and len(conv_node.users) == 1)', ')'),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'folding without eps', 'ex-2c',
          ('torch.rsqrt(bn.running_var + bn.eps)', 'torch.rsqrt(bn.running_var)'),
          says='eps=0.01'),
    wrong('02.fold_conv_bn', "folding with PyTorch's default eps", 'ex-2c',
          ('torch.rsqrt(bn.running_var + bn.eps)', 'torch.rsqrt(bn.running_var + 1e-5)'),
          says='eps=0.01'),
    wrong('02.fold_conv_bn', 'folds a batch norm without running statistics', 'ex-2c',
          ('if bn.training or bn.running_mean is None:', 'if bn.training:'),
          says='running'),
    wrong('02.fold_conv_bn', 'folds a batch norm in training mode (its running statistics are not what it uses)', 'ex-2c',
          ('if bn.training or bn.running_mean is None:', 'if bn.running_mean is None:'),
          says='training mode.*fold only batch norms in eval mode', hidden_says='training mode'),
    wrong('02.fold_conv_bn', "leaves out the batch norm's weight (gamma)", 'ex-2c',
          ('            if bn.weight is not None:\n                s = s * bn.weight\n', ''),
          says='computes something else'),
    wrong('02.fold_conv_bn', "leaves out the batch norm's bias (beta)", 'ex-2c',
          ('(b - bn.running_mean) * s + shift', '(b - bn.running_mean) * s'),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'never subtracts the running mean', 'ex-2c',
          ('(b - bn.running_mean) * s + shift', 'b * s + shift'),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'multiplies by the standard deviation instead of dividing', 'ex-2c',
          ('torch.rsqrt(bn.running_var + bn.eps)', 'torch.sqrt(bn.running_var + bn.eps)'),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'scales the input channels of the weight instead of the output channels', 'ex-2c',
          ('s.reshape(-1, 1, 1, 1)', 's.reshape(1, -1, 1, 1)'),
          says='fold_conv_bn raised'),
    wrong('02.fold_conv_bn', 'assumes every conv has a bias', 'ex-2c',
          ('b = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)', 'b = conv.bias'),
          says='fold_conv_bn raised'),
    wrong('02.fold_conv_bn', 'rewires the users but leaves the batch-norm node in the graph', 'ex-2c',
          ('        gm.graph.erase_node(bn_node)\n', ''),
          says='batch norm.*left'),
    wrong('02.fold_conv_bn', "finds batch norms by the name 'bn' (the name-based shortcut)", 'ex-2c',
          ('if bn_node.op != "call_module" or not isinstance(gm.get_submodule(bn_node.target), nn.BatchNorm2d):',
           'if bn_node.op != "call_module" or "bn" not in bn_node.target:'),
          says='batch norm.*left'),
    wrong('02.fold_conv_bn', 'forgets gm.recompile(): the module still runs the conv and the batch norm', 'ex-2c',
          (RECOMPILED, '    return gm\n'),
          says=r'did you call gm\.recompile\(\)'),

    wrong('02.fold_conv_bn', "the folded conv stored under the conv's own name: a conv called twice gets one fold for both calls", 'ex-2c',
          ('        name = conv_node.target.replace(".", "_") + "_folded"\n        while hasattr(gm, name):\n            name += "_"\n        gm.add_submodule(name, folded)\n        conv_node.target = name\n',
           '        gm.add_submodule(conv_node.target, folded)\n'),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'assumes every batch norm has affine weight and bias (affine=False has None)', 'ex-2c',
          ('            s = torch.rsqrt(bn.running_var + bn.eps)\n            if bn.weight is not None:\n                s = s * bn.weight\n',
           '            s = torch.rsqrt(bn.running_var + bn.eps) * bn.weight\n'),
          ('shift = bn.bias if bn.bias is not None else torch.zeros_like(bn.running_mean)', 'shift = bn.bias'),
          says='raised'),
    wrong('02.fold_conv_bn', "looks the batch norm's input up as a submodule before checking it is a call_module node", 'ex-2c',
          ('        if not (isinstance(conv_node, fx.Node) and conv_node.op == "call_module"\n                and isinstance(gm.get_submodule(conv_node.target), nn.Conv2d) and len(conv_node.users) == 1):',
           '        if not (isinstance(gm.get_submodule(conv_node.target), nn.Conv2d) and len(conv_node.users) == 1):'),
          says='raised'),

    wrong('02.fold_conv_bn', 'the folded conv built anew from in/out channels, kernel, stride, padding and groups: dilation '
          '(and padding_mode) lost', 'ex-2c',
          ('folded = copy.deepcopy(conv)',
           'folded = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, '
           'padding=conv.padding, groups=conv.groups, bias=True)'),
          says='does not convolve the way the conv it replaces did'),

    wrong('02.fold_conv_bn', 'copy.copy(conv) instead of a deep copy: the shallow copy shares its parameter dict with the '
          "model's conv", 'ex-2c',
          ('folded = copy.deepcopy(conv)', 'folded = copy.copy(conv)'),
          says='changed the original model'),
    wrong('02.fold_conv_bn', "tests that the batch norm has one user, not the conv: a conv read twice is folded", 'ex-2c',
          ('and len(conv_node.users) == 1)', 'and len(bn_node.users) == 1)'),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'eps added after the square root: 1 / (sqrt(var) + eps)', 'ex-2c',
          ('torch.rsqrt(bn.running_var + bn.eps)', '1 / (torch.sqrt(bn.running_var) + bn.eps)'),
          says='computes something else|eps'),
    wrong('02.fold_conv_bn', 'every folded conv registered under one fixed name: the last fold replaces the others', 'ex-2c',
          ('        name = conv_node.target.replace(".", "_") + "_folded"\n        while hasattr(gm, name):\n            name += "_"\n',
           '        name = "folded_conv"\n'),
          says='computes something else|raised'),
    wrong('02.fold_conv_bn', "the conv's own bias added unscaled: b + β − s·μ instead of s·(b − μ) + β", 'ex-2c',
          ('(b - bn.running_mean) * s + shift', 'b + shift - bn.running_mean * s'),
          says='computes something else'),

    # ---------------------------------------------------------------- 2d: dead code and constants
    wrong('02.dead_code', "the library's DCE, which removes in-place calls whose results are unused", 'ex-2d',
          ('    if node.is_impure() or node.kwargs.get("inplace") is True:\n        return True\n', '    return node.is_impure()\n'),
          says='in place'),
    wrong('02.fold_constants', 'constant-folds random ops, so every call would return the same random numbers', 'ex-2e',
          ('and not is_random(node) ', ''),
          says='should still be there'),
    wrong('02.dead_code', "keeps every call whose name ends in _, so unread dunder calls (__add__) survive", 'ex-2d',
          ('name.endswith("_") and not name.endswith("__")', 'name.endswith("_")'),
          says='still there'),
    wrong('02.dead_code', 'removes an unused input of the graph as dead code', 'ex-2d',
          ('if node.op not in ("placeholder", "output") and not node.users and not has_side_effects(gm, node):',
           'if node.op != "output" and not node.users and (node.op == "placeholder" or not has_side_effects(gm, node)):'),
          says=r"removed an input of the graph \(placeholder 'unused'\)", hidden_says='removed an input of the graph'),
    wrong('02.dead_code', 'no rule for in-place methods (a name ending in _)', 'ex-2d',
          ('    return node.op in ("call_function", "call_method") and name.endswith("_") and not name.endswith("__")',
           '    return False'),
          says='in place'),
    wrong('02.dead_code', 'one sweep in graph order: a dead chain is removed only from its end', 'ex-2d',
          ('    changed = True\n    while changed:\n        changed = False\n        for node in reversed(list(gm.graph.nodes)):',
           '    if True:\n        for node in list(gm.graph.nodes):'),
          says='a second time changed the graph again|still there'),
    wrong('02.dead_code', 'forgets gm.recompile() after removing the dead code', 'ex-2d',
          (RECOMPILED, '    return gm\n'),
          says=r'did you call gm\.recompile\(\)'),
    wrong('02.fold_constants', 'constant folding without dead-code elimination: the folded chain stays in the graph', 'ex-2e',
          ('    return remove_dead_code(gm)', '    gm.recompile()\n    return gm'),
          says='still there'),
    wrong('02.fold_constants', 'keeps the folded constants as nn.Parameters, not buffers', 'ex-2e',
          ('gm.register_buffer(name, values[node].detach().clone())',
           'gm.register_parameter(name, nn.Parameter(values[node].detach().clone()))'),
          says='buffer'),
    wrong('02.fold_constants', 'folds a node when any input is constant (any for all)', 'ex-2e',
          ('and all(i in values for i in node.all_input_nodes)', 'and any(i in values for i in node.all_input_nodes)'),
          says='fold_constants raised'),
    wrong('02.dead_code', 'no node.is_impure(): a check that returns nothing (torch._assert) is erased as dead', 'ex-2d',
          ('if node.is_impure() or node.kwargs.get("inplace") is True:', 'if node.kwargs.get("inplace") is True:'),
          says='still there|gone, but should still be there', hidden_says='gone, but should still be there'),
    wrong('02.dead_code', 'in-place modules forgotten: nn.ReLU(inplace=True) whose result is unread is erased', 'ex-2d',
          ('        return getattr(gm.get_submodule(node.target), "inplace", False) is True', '        return False'),
          says='in place'),
    wrong('02.fold_constants', 'folded values kept as plain attributes (setattr), not buffers', 'ex-2e',
          ('gm.register_buffer(name, values[node].detach().clone())', 'setattr(gm, name, values[node].detach().clone())'),
          says='register_buffer'),
    wrong('02.fold_constants', 'constants computed with autograd on and kept as they are: buffers that require grad', 'ex-2e',
          ('            with torch.no_grad():\n                if node.op == "call_function":',
           '            if True:\n                if node.op == "call_function":'),
          ('gm.register_buffer(name, values[node].detach().clone())', 'gm.register_buffer(name, values[node])'),
          says='require grad'),

    wrong('02.dead_code', 'no inplace=True rule: F.relu(x, inplace=True) whose result is unread is erased', 'ex-2d',
          ('if node.is_impure() or node.kwargs.get("inplace") is True:', 'if node.is_impure():'),
          says='in place'),
    wrong('02.dead_code', 'in-place rule for methods only: torch.relu_(x) is erased', 'ex-2d',
          ('return node.op in ("call_function", "call_method") and name.endswith("_")', 'return node.op == "call_method" and name.endswith("_")'),
          says='in place'),
    wrong('02.dead_code', 'in-place modules: only nn.ReLU(inplace=True) kept', 'ex-2d',
          ('        return getattr(gm.get_submodule(node.target), "inplace", False) is True',
           '        return isinstance(gm.get_submodule(node.target), nn.ReLU) and gm.get_submodule(node.target).inplace'),
          says='in place'),
    wrong('02.dead_code', 'only call nodes are removed: a get_attr nobody reads stays', 'ex-2d',
          ('if node.op not in ("placeholder", "output") and not node.users', 'if node.op in ("call_function", "call_method", "call_module") and not node.users'),
          says='get_attr|still there'),

    wrong('02.fold_constants', "each buffer named after its node (node.name): a node called 'float' or 'to' clashes with a method", 'ex-2e',
          ('        name = f"_folded_{node.name}"\n        while hasattr(gm, name):\n            name += "_"\n', '        name = node.name\n'),
          says='raised'),
    wrong('02.fold_constants', 'constants evaluated without their keyword arguments', 'ex-2e',
          ('values[node] = node.target(*args, **kwargs)', 'values[node] = node.target(*args)'),
          ('values[node] = getattr(args[0], node.target)(*args[1:], **kwargs)', 'values[node] = getattr(args[0], node.target)(*args[1:])'),
          says='computes something else'),
    wrong('02.fold_constants', 'arguments looked up one level deep: a list of constant nodes (torch.cat) is passed as nodes', 'ex-2e',
          ('args, kwargs = fx.node.map_arg((node.args, node.kwargs), lambda n: values[n])',
           'args = tuple(values[a] if isinstance(a, fx.Node) else a for a in node.args)\n            kwargs = node.kwargs'),
          says='raised'),
    wrong('02.fold_constants', 'every constant value registered as a buffer, ints from .size() included', 'ex-2e',
          ('folded = {n for n, v in values.items() if n.op != "get_attr" and isinstance(v, torch.Tensor)}',
           'folded = {n for n, v in values.items() if n.op != "get_attr"}'),
          says='raised'),
    wrong('02.fold_constants', 'a buffer for every constant node, even those only other constants read: buffers nothing reads are left', 'ex-2e',
          ('        if all(user in folded for user in node.users):\n            continue                                   # read only by constants that are folded themselves\n', ''),
          says='buffer'),


    wrong('02.dead_code', 'in-place calls found from a hand-written list (torch.relu_, add_, mul_ ...), not by the trailing '
          'underscore: torch.clamp_(x) or x.clamp_() is erased', 'ex-2d',
          ('    return node.op in ("call_function", "call_method") and name.endswith("_") and not name.endswith("__")',
           '    return ((node.op == "call_function" and node.target in (torch.relu_, torch.sigmoid_, torch.tanh_))\n'
           '            or (node.op == "call_method" and node.target in ("add_", "mul_", "sub_", "div_", "relu_")))'),
          says='in place'),
    wrong('02.dead_code', 'torch._assert named instead of node.is_impure(): other impure calls (torch._assert_async) are erased',
          'ex-2d',
          ('if node.is_impure() or node.kwargs.get("inplace") is True:',
           'if node.op in ("placeholder", "output") or node.target is torch._assert or node.kwargs.get("inplace") is True:'),
          says=r'node\.is_impure\(\) says must stay', hidden_says=r'node\.is_impure\(\) says must stay'),
    wrong('02.dead_code', 'in-place modules from a list of activation classes (ReLU, LeakyReLU, Hardtanh): '
          'nn.ELU(inplace=True) is erased', 'ex-2d',
          ('        return getattr(gm.get_submodule(node.target), "inplace", False) is True',
           '        mod = gm.get_submodule(node.target)\n'
           '        return isinstance(mod, (nn.ReLU, nn.LeakyReLU, nn.Hardtanh)) and mod.inplace'),
          says='in place'),
    wrong('02.fold_constants', 'get_attr values read with getattr(gm, node.target): a parameter of a submodule (fc.weight) '
          'raises', 'ex-2e',
          ('            owner, _, attr = node.target.rpartition(".")\n'
           '            values[node] = getattr(gm.get_submodule(owner) if owner else gm, attr)',
           '            values[node] = getattr(gm, node.target)'),
          says='fold_constants raised'),
    wrong('02.fold_constants', "the library's eliminate_dead_code() after folding, not remove_dead_code: unread in-place "
          'calls are erased', 'ex-2e',
          ('    return remove_dead_code(gm)', '    gm.graph.eliminate_dead_code()\n    gm.graph.lint()\n    gm.recompile()\n    return gm'),
          says='in place'),
    wrong('02.fold_constants', 'the value registered as it is (no detach): a .float() that changes nothing registers the '
          'parameter itself as a buffer', 'ex-2e',
          ('gm.register_buffer(name, values[node].detach().clone())', 'gm.register_buffer(name, values[node])'),
          says='require grad'),

    wrong('02.dead_code', "a module's inplace read as mod.inplace: a module without that attribute (nn.Linear) raises", 'ex-2d',
          ('        return getattr(gm.get_submodule(node.target), "inplace", False) is True', '        return gm.get_submodule(node.target).inplace'),
          says='raised'),
    wrong('02.fold_constants', 'get_attr values looked up in dict(gm.named_parameters()): a buffer or a tensor constant the '
          'trace stored reads nothing', 'ex-2e',
          ('            owner, _, attr = node.target.rpartition(".")\n'
           '            values[node] = getattr(gm.get_submodule(owner) if owner else gm, attr)',
           '            values[node] = dict(gm.named_parameters())[node.target]'),
          says='raised'),
    wrong('02.fold_constants', 'only tensor results count as constants: a chunk (a tuple) or .size() (an int) stops the folding '
          'of what is computed from it', 'ex-2e',
          ('                    values[node] = getattr(args[0], node.target)(*args[1:], **kwargs)\n',
           '                    values[node] = getattr(args[0], node.target)(*args[1:], **kwargs)\n'
           '            if not isinstance(values[node], torch.Tensor):\n'
           '                del values[node]             # only tensors are constants\n'),
          says='still there'),
    wrong('02.fold_constants', 'get_attr nodes folded too: a parameter that a computation on the inputs reads is replaced by '
          'a frozen buffer copy', 'ex-2e',
          ('folded = {n for n, v in values.items() if n.op != "get_attr" and isinstance(v, torch.Tensor)}',
           'folded = {n for n, v in values.items() if isinstance(v, torch.Tensor)}'),
          says='a second time'),
    wrong('02.fold_constants', 'only call_function nodes folded: a method on a parameter (w.t()) is never constant', 'ex-2e',
          ('node.op in ("call_function", "call_method") and node.all_input_nodes', 'node.op == "call_function" and node.all_input_nodes'),
          says='still there'),

    # ---------------------------------------------------------------- 3: shapes and cost
    wrong('02.node_costs', 'forgets module parameters', 'ex-3',
          ('moved += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])', 'pass'),
          says='bytes'),
    wrong('02.node_costs', 'conv FLOPs that ignore groups', 'ex-3',
          ('return 2 * out * mod.weight[0].numel()', 'return 2 * out * mod.in_channels * math.prod(mod.kernel_size)'),
          says='flops'),
    wrong('02.node_costs', 'four bytes per element', 'ex-3',
          ('return math.prod(meta.shape) * meta.dtype.itemsize', 'return math.prod(meta.shape) * 4'),
          says='bytes'),
    wrong('02.node_costs', 'a repeated input counted twice', 'ex-3',
          ('for i in node.all_input_nodes)', 'for i in node.args if isinstance(i, fx.Node))'),
          says='bytes'),
    wrong('02.node_costs', 'ShapeProp on a copy: the graph handed back has no tensor_meta', 'ex-3',
          ('ShapeProp(gm).propagate(*example)', 'gm = copy.deepcopy(gm)\n        ShapeProp(gm).propagate(*example)'),
          says='tensor_meta'),
    wrong('02.node_costs', "conv FLOPs over the whole weight, not one output channel's", 'ex-3',
          ('return 2 * out * mod.weight[0].numel()', 'return 2 * out * mod.weight.numel()'),
          says='flops'),
    wrong('02.node_costs', "a Linear's FLOPs from out_features", 'ex-3',
          ('return 2 * out * mod.in_features', 'return 2 * out * mod.out_features'),
          says='flops'),
    wrong('02.node_costs', 'multiply-adds, not FLOPs (no factor 2)', 'ex-3',
          ('return 2 * out * mod.in_features', 'return out * mod.in_features'),
          says='flops'),
    wrong('02.node_costs', "a matmul's inner dimension read from the second operand's last axis", 'ex-3',
          ('node.target in MATMUL_METHODS):\n        return 2 * out * inner(0)[-1]', 'node.target in MATMUL_METHODS):\n        return 2 * out * inner(1)[-1]'),
          says='flops'),
    wrong('02.node_costs', "the output's bytes left out", 'ex-3',
          ('        moved += tensor_bytes(node.meta.get("tensor_meta"))\n', ''),
          says='bytes'),
    wrong('02.node_costs', 'memory-bound read the wrong way round', 'ex-3',
          ('"memory_bound": intensity < ridge', '"memory_bound": intensity > ridge'),
          says='memory_bound'),
    wrong('02.node_costs', 'intensity as bytes per FLOP', 'ex-3',
          ('intensity = flops / moved if moved else 0.0', 'intensity = moved / flops if flops else 0.0'),
          says='intensity'),
    wrong('02.node_costs', 'the target left as the function object, not text', 'ex-3',
          ('"target": target, "flops"', '"target": node.target, "flops"'),
          says='as text'),
    wrong('02.node_costs', "str(node.target): a function's repr, with its address, as the target", 'ex-3',
          ('"target": target, "flops"', '"target": str(node.target), "flops"'),
          says='as text'),
    wrong('02.node_costs', 'rows for call_function nodes only', 'ex-3',
          ('if node.op not in ("call_function", "call_method", "call_module"):', 'if node.op != "call_function":'),
          says='one row per'),

    wrong('02.node_costs', "a module's parameters counted, not its buffers (a batch norm's running statistics)", 'ex-3',
          ('for t in [*mod.parameters(), *mod.buffers()]', 'for t in mod.parameters()'),
          says='bytes'),
    wrong('02.node_costs', 'convolution functions (F.conv2d) not counted', 'ex-3',
          ('    if node.op == "call_function" and node.target in CONV_FUNCTIONS:\n        return 2 * out * math.prod(inner(1)[1:])\n', ''),
          says='flops'),
    wrong('02.node_costs', 'matmul methods (x.matmul(y)) not counted', 'ex-3',
          (' or (node.op == "call_method" and node.target in MATMUL_METHODS)', ''),
          says='flops'),
    wrong('02.node_costs', 'linear functions (F.linear) not counted', 'ex-3',
          ('    if node.op == "call_function" and node.target in LINEAR_FUNCTIONS:\n        return 2 * out * inner(0)[-1]\n', ''),
          says='flops'),
    wrong('02.node_costs', 'tensor_bytes ignores tuples: a node that returns several tensors moves nothing', 'ex-3',
          ('    if isinstance(meta, (list, tuple)):\n        return sum(tensor_bytes(m) for m in meta)\n', ''),
          says='bytes'),


    wrong('02.node_costs', 'input bytes from the distinct nodes among the top-level args: nodes in lists and keyword '
          'arguments (torch.cat([a, b]), other=y) are not counted', 'ex-3',
          ('for i in node.all_input_nodes)', 'for i in {a for a in node.args if isinstance(a, fx.Node)})'),
          says='bytes'),
    wrong('02.node_costs', 'conv-module FLOPs as in_channels/groups × kernel_size[0] × kernel_size[1]: a Conv1d raises, a '
          'Conv3d loses its depth', 'ex-3',
          ('return 2 * out * mod.weight[0].numel()',
           'return 2 * out * (mod.in_channels // mod.groups) * mod.kernel_size[0] * mod.kernel_size[1]'),
          says='node_costs raised'),
    wrong('02.node_costs', 'F.conv FLOPs from a weight unpacked as (out, in, kh, kw): F.conv1d and F.conv3d raise', 'ex-3',
          ('        return 2 * out * math.prod(inner(1)[1:])',
           '        _, cin, kh, kw = inner(1)\n        return 2 * out * cin * kh * kw'),
          says='node_costs raised'),
    wrong('02.node_costs', 'matrix-product methods: only x.matmul(y) (x.mm(y), x.bmm(y), x.__matmul__(y) count 0)', 'ex-3',
          ('(node.op == "call_method" and node.target in MATMUL_METHODS)', '(node.op == "call_method" and node.target == "matmul")'),
          says='flops'),
    wrong('02.node_costs', 'memory_bound as intensity <= ridge: a node exactly at the ridge is called memory-bound', 'ex-3',
          ('"memory_bound": intensity < ridge', '"memory_bound": intensity <= ridge'),
          says=r'memory_bound True.*intensity < ridge'),

    wrong('02.node_costs', "a Linear's FLOPs as 2 × batch (shape[0]) × in × out: a Linear on 3-D input loses a dimension", 'ex-3',
          ('return 2 * out * mod.in_features', 'return 2 * meta.shape[0] * mod.in_features * mod.out_features'),
          says='flops'),
    wrong('02.node_costs', 'bytes per element from torch.finfo(dtype).bits: an integer tensor raises', 'ex-3',
          ('return math.prod(meta.shape) * meta.dtype.itemsize', 'return math.prod(meta.shape) * torch.finfo(meta.dtype).bits // 8'),
          says='raised|bytes'),
    wrong('02.node_costs', 'rows only for nodes with a tensor_meta: a call that returns no tensor (.size()) has no row', 'ex-3',
          ('        if node.op not in ("call_function", "call_method", "call_module"):\n            continue',
           '        if node.op not in ("call_function", "call_method", "call_module") or "tensor_meta" not in node.meta:\n            continue'),
          says='one row per'),
    wrong('02.node_costs', "a call_module row's target as the module's class name", 'ex-3',
          ('"target": target, "flops"', '"target": type(mod).__name__ if node.op == "call_module" else target, "flops"'),
          says='as text'),

    # ---------------------------------------------------------------- 4: passes and the pipeline
    wrong('02.passes', 'analyze applies the pass', 'ex-4a',
          ('return count(gm) - count(fn(copy.deepcopy(gm)))', 'return count(gm) - count(fn(gm))'),
          says='analysis must only look'),
    wrong('02.passes', 'two pass classes without a name of their own', 'ex-4a',
          ('    name = "dead_code"\n', ''), ('    name = "fold_constants"\n', ''),
          says='needs a `name`'),
    wrong('02.passes', 'analyze returns the count itself, not a dict', 'ex-4a',
          ('return {"matches": sum(is_relu(gm, n) for n in gm.graph.nodes)}', 'return sum(is_relu(gm, n) for n in gm.graph.nodes)'),
          says="dict with an integer 'matches'"),
    wrong('02.passes', 'ReluToGelu.analyze counts only the function spellings', 'ex-4a',
          ('sum(is_relu(gm, n) for n in gm.graph.nodes)', 'sum(n.op == "call_function" and n.target in (torch.relu, F.relu) for n in gm.graph.nodes)'),
          says='sites'),
    wrong('02.passes', 'FoldConstants.apply runs the dead-code pass instead of constant folding', 'ex-4a',
          ('        return fold_constants(gm)\n', '        return remove_dead_code(gm)\n'),
          says='apply'),
    wrong('02.passes', 'ReluToGelu.apply returns the graph unchanged', 'ex-4a',
          ('        return relu_to_gelu(gm)\n', '        return gm\n'),
          says='left ReLU'),
    wrong('02.passes', 'nodes_removed ignores ops: FoldConstants also counts the get_attr nodes it adds and drops', 'ex-4a',
          ('count = lambda g: sum(ops is None or n.op in ops for n in g.graph.nodes)', 'count = lambda g: len(g.graph.nodes)'),
          says='sites'),
    wrong('02.passes', 'nodes_removed returns the pass\'s result, not a count', 'ex-4a',
          ('    return count(gm) - count(fn(copy.deepcopy(gm)))', '    return fn(copy.deepcopy(gm))'),
          says="integer 'matches'"),
    wrong('02.pipeline', "the largest difference taken with max() over floats: a NaN difference is skipped (NaN compares "
          "false), so a pass that makes the outputs NaN goes through", 'ex-4b',
          ('        diff = max([0.0] + diffs) if all(d == d for d in diffs) else float("nan")   # max() would skip a NaN\n',
           '        diff = max([0.0] + diffs)\n'),
          says='NaN'),
    wrong('02.pipeline', 'refuses when diff > tol: a NaN difference is never greater than anything', 'ex-4b',
          ('if not diff <= tol * scale:', 'if diff > tol * scale:'),
          says='NaN'),
    wrong('02.pipeline', 'traces the model itself', 'ex-4b',
          ('fx.symbolic_trace(copy.deepcopy(model))', 'fx.symbolic_trace(model)'),
          says='original model'),
    wrong('02.pipeline', 'never recompiles: the module still runs the old code after the graph changed', 'ex-4b',
          ('            gm.recompile()\n', ''),
          says='Recompile'),
    wrong('02.pipeline', 'an absolute tolerance', 'ex-4b',
          ('if not diff <= tol * scale:', 'if not diff <= tol:'),
          says='keep the outputs'),
    wrong('02.pipeline', 'compares with the previous pass', 'ex-4b',
          ('        report.append({', '        reference = out\n        report.append({'),
          says="original\\ model's\\ outputs"),
    wrong('02.pipeline', 'never verifies: a pass that breaks the outputs goes through', 'ex-4b',
          ('if not diff <= tol * scale:', 'if False:'),
          says='without an error'),
    wrong('02.pipeline', 'compares outputs with broadcasting, not shapes: a pass that adds a dimension goes through', 'ex-4b',
          ('        if len(leaves(out)) != len(leaves(reference)) or any(a.shape != b.shape for a, b in pairs):',
           '        if len(leaves(out)) != len(leaves(reference)):'),
          says='without an error'),
    wrong('02.pipeline', 'verifies once, after the last pass: a pass that breaks the outputs is let through when a later '
          'pass happens to undo it', 'ex-4b',
          ('        pairs = list(zip(leaves(out), leaves(reference)))',
           '        if p is not passes[-1]:\n'
           '            report.append({"pass": p.name, "analysis": analysis, "nodes_before": before, '
           '"nodes_after": len(gm.graph.nodes), "seconds": seconds, "max_abs_diff": 0.0})\n'
           '            continue\n'
           '        pairs = list(zip(leaves(out), leaves(reference)))'),
          says='verify after every pass|without an error', hidden_says='without an error|does not name'),
    wrong('02.pipeline', 'analyze called after apply: the analysis describes the graph the pass left, not the one it was given',
          'ex-4b',
          ('            analysis = p.analyze(gm)\n            start = time.perf_counter()\n            gm = p.apply(gm)',
           '            start = time.perf_counter()\n            gm = p.apply(gm)\n            analysis = p.analyze(gm)'),
          says='before p.apply'),
    wrong('02.pipeline', "PassVerificationError without the pass's name: the message says what broke, not which pass",
          'ex-4b',
          ('raise PassVerificationError(f"pass {p.name!r} changed the outputs by {diff:.3g} (allowed: {tol * scale:.3g})")',
           'raise PassVerificationError(f"a pass changed the outputs by {diff:.3g} (allowed: {tol * scale:.3g})")'),
          says='does not name that pass'),
    wrong('02.pipeline', 'the time in milliseconds', 'ex-4b',
          ('seconds = time.perf_counter() - start', 'seconds = (time.perf_counter() - start) * 1e3'),
          says=r'report seconds \(not ms\)'),
    wrong('02.pipeline', 'the clock starts after apply(): the pass itself is never timed', 'ex-4b',
          ('start = time.perf_counter()\n            gm = p.apply(gm)', 'gm = p.apply(gm)\n            start = time.perf_counter()'),
          says=r'Time p\.apply\(gm\) itself'),
    wrong('02.pipeline', "a pass's exception escapes: only assertion errors become PassVerificationError", 'ex-4b',
          ('        except Exception as err:\n            raise PassVerificationError', '        except AssertionError as err:\n            raise PassVerificationError'),
          says='wrap it in PassVerificationError'),
    wrong('02.pipeline', 'nodes_after counted on the graph the pass was given, not the one it returned', 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()\n            gm.recompile()\n            seconds = time.perf_counter() - start\n            with torch.no_grad():\n                out = gm(*example)',
           '            new = p.apply(gm)\n            new.graph.lint()\n            new.recompile()\n            seconds = time.perf_counter() - start\n            with torch.no_grad():\n                out = new(*example)'),
          ('"seconds": seconds, "max_abs_diff": diff})\n', '"seconds": seconds, "max_abs_diff": diff})\n        gm = new\n'),
          says='node counts|nodes'),

    wrong('02.passes', 'FoldConvBN.analyze counts every BatchNorm2d node, foldable or not', 'ex-4a',
          ('return {"matches": nodes_removed(fold_conv_bn, gm)}',
           'return {"matches": sum(n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.BatchNorm2d) for n in gm.graph.nodes)}'),
          says='sites'),
    wrong('02.passes', 'DeadCode.analyze counts the nodes nobody reads now, not the dead chains behind them', 'ex-4a',
          ('return {"matches": nodes_removed(remove_dead_code, gm)}',
           'return {"matches": sum(not n.users and n.op not in ("placeholder", "output") and not has_side_effects(gm, n) for n in gm.graph.nodes)}'),
          says='sites'),
    wrong('02.passes', "ReluToGelu.analyze counts the nodes whose target mentions relu", 'ex-4a',
          ('sum(is_relu(gm, n) for n in gm.graph.nodes)', 'sum("relu" in str(n.target) for n in gm.graph.nodes)'),
          says='sites'),

    wrong('02.pipeline', 'lint outside the try: a pass that leaves an invalid graph raises a raw error', 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()\n',
           '            gm = p.apply(gm)\n        except Exception as err:\n            raise PassVerificationError(f"pass {p.name!r} failed: {err}") from err\n        gm.graph.lint()\n        try:\n'),
          says='wrap it in PassVerificationError'),
    wrong('02.pipeline', 'the scale without its floor of 1: small outputs get a tolerance below tol', 'ex-4b',
          ('scale = max([1.0] + ', 'scale = max([0.0] + '),
          says='keep the outputs|raised'),


    wrong('02.passes', 'FoldConvBN.analyze counts every conv → batch-norm pair, also where the conv has other users (which '
          'fold_conv_bn leaves alone)', 'ex-4a',
          ('return {"matches": nodes_removed(fold_conv_bn, gm)}',
           'return {"matches": sum(n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.BatchNorm2d) '
           'and isinstance(n.args[0], fx.Node) and n.args[0].op == "call_module" '
           'and isinstance(gm.get_submodule(n.args[0].target), nn.Conv2d) for n in gm.graph.nodes)}'),
          says='sites'),
    wrong('02.passes', "DeadCode.analyze dry-runs the library's eliminate_dead_code, which also counts the unread in-place "
          'calls that remove_dead_code keeps', 'ex-4a',
          ('return {"matches": nodes_removed(remove_dead_code, gm)}',
           'return {"matches": nodes_removed(lambda g: (g.graph.eliminate_dead_code(), g)[1], gm)}'),
          says='sites'),
    wrong('02.pipeline', 'the clock starts before analyze(): the dry run is timed with the pass', 'ex-4b',
          ('            analysis = p.analyze(gm)\n            start = time.perf_counter()',
           '            start = time.perf_counter()\n            analysis = p.analyze(gm)'),
          says=r'not analyze\(\)'),
    wrong('02.pipeline', 'the rewritten graph run outside the try: a graph that raises when run escapes as a raw error',
          'ex-4b',
          ('            seconds = time.perf_counter() - start\n            with torch.no_grad():\n                out = gm(*example)\n'
           '        except Exception as err:\n'
           '            raise PassVerificationError(f"pass {p.name!r} failed: {type(err).__name__}: {err}") from err\n',
           '            seconds = time.perf_counter() - start\n'
           '        except Exception as err:\n'
           '            raise PassVerificationError(f"pass {p.name!r} failed: {type(err).__name__}: {err}") from err\n'
           '        with torch.no_grad():\n            out = gm(*example)\n'),
          says='wrap it in PassVerificationError'),
    wrong('02.pipeline', 'max_abs_diff reported relative to the scale (diff / max(1, max |ref|)), not absolute', 'ex-4b',
          ('"seconds": seconds, "max_abs_diff": diff})', '"seconds": seconds, "max_abs_diff": diff / scale})'),
          says='not divided by'),
    wrong('02.pipeline', 'outputs assumed to be one tensor: a model that returns a tuple makes the pipeline raise', 'ex-4b',
          ('scale = max([1.0] + [t.abs().max().item() for t in leaves(reference) if t.numel()])',
           'scale = max(1.0, reference.abs().max().item())'),
          ('        pairs = list(zip(leaves(out), leaves(reference)))\n'
           '        if len(leaves(out)) != len(leaves(reference)) or any(a.shape != b.shape for a, b in pairs):',
           '        pairs = [(out, reference)]\n        if out.shape != reference.shape:'),
          says='it may be a tuple'),
    wrong('02.pipeline', 'mean |out − ref| instead of the max: an error confined to a few elements goes through', 'ex-4b',
          ('diffs = [(a - b).abs().max().item() for a, b in pairs if a.numel()]',
           'diffs = [(a - b).abs().mean().item() for a, b in pairs if a.numel()]'),
          says='not the mean'),
    wrong('02.pipeline', 'elementwise allclose(rtol=tol, atol=tol) instead of tol × max(1, max |ref|)', 'ex-4b',
          ('if not diff <= tol * scale:', 'if not all(torch.allclose(a, b, rtol=tol, atol=tol) for a, b in pairs):'),
          says=r'keep the outputs.*tol × max\(1, max \|ref\|\)'),

    wrong('02.passes', 'nodes_removed dry-runs the pass on copy.copy(gm): the shallow copy shares the graph', 'ex-4a',
          ('return count(gm) - count(fn(copy.deepcopy(gm)))', 'return count(gm) - count(fn(copy.copy(gm)))'),
          says='analysis must only look'),
    wrong('02.pipeline', 'only the first tensor of a tuple output compared: a pass that breaks the second output goes through',
          'ex-4b',
          ('        pairs = list(zip(leaves(out), leaves(reference)))\n',
           '        first = lambda v: v[0] if isinstance(v, (tuple, list)) else v\n'
           '        pairs = [(first(out), first(reference))]\n'),
          says='without an error'),
    wrong('02.pipeline', 'outputs paired with zip and no count: a pass that drops an output goes through', 'ex-4b',
          ('        if len(leaves(out)) != len(leaves(reference)) or any(', '        if any('),
          says='without an error'),
    wrong('02.pipeline', 'the tol argument ignored: 1e-4 hard-coded', 'ex-4b',
          ('if not diff <= tol * scale:', 'if not diff <= 1e-4 * scale:'),
          says='tol'),
    wrong('02.pipeline', "analyze() called outside the try: a pass whose analysis raises escapes as a raw error", 'ex-4b',
          ('        try:\n            analysis = p.analyze(gm)\n            start', '        analysis = p.analyze(gm)\n        try:\n            start'),
          says='wrap it in PassVerificationError'),
    wrong('02.pipeline', 'a GraphModule given as the model used as it is, not deep-copied: the passes change the caller\'s graph',
          'ex-4b',
          ('gm = copy.deepcopy(model) if isinstance(model, fx.GraphModule)', 'gm = model if isinstance(model, fx.GraphModule)'),
          says='GraphModule'),
    wrong('02.pipeline', 'the clock stops after the verification run: the time of running the graph is counted as the pass\'s',
          'ex-4b',
          ('            seconds = time.perf_counter() - start\n            with torch.no_grad():\n                out = gm(*example)\n',
           '            with torch.no_grad():\n                out = gm(*example)\n            seconds = time.perf_counter() - start\n'),
          says=r'Time p\.apply\(gm\) itself'),
    wrong('02.pipeline', "apply's return value ignored: a pass that returns a new GraphModule is dropped", 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()', '            p.apply(gm)\n            gm.graph.lint()'),
          says='nodes|node counts|computes something else'),

    # ---------------------------------------------------------------- 5: the edge-case harness
    wrong('02.check_pass', 'idempotence judged by the node count: a pass that swaps a spelling back and forth goes through',
          'ex-5',
          ('        return [(n.op, str(n.target)) for n in gm.graph.nodes]', '        return len(gm.graph.nodes)'),
          says='idempotent|flips_the_spelling'),
    wrong('02.check_pass', 'no idempotence test', 'ex-5',
          ('return "" if second == first else "idempotent: a second run changed the graph again"', 'return ""'),
          says='let'),
    wrong('02.check_pass', 'a harness without a deep copy', 'ex-5',
          ('gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))', 'gm = pass_fn(fx.symbolic_trace(case["model"]))'),
          says='deep copy'),
    wrong('02.check_pass', 'a harness that ignores tol', 'ex-5',
          ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)', 'torch.allclose(got, case["expected"], rtol=1e-5, atol=1e-5)'),
          says='tol=1e-07'),
    wrong('02.check_pass', 'no lint: a pass that leaves a graph using values before they exist goes through', 'ex-5',
          ('            gm.graph.lint()\n', '            pass\n'),
          says='before they exist'),
    wrong('02.check_pass', "the pass runs outside try/except: its exception escapes the harness", 'ex-5',
          ('        try:\n            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n        except Exception as err:\n            return f"raised {type(err).__name__}: {err}"\n',
           '        gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n'),
          says='check_pass itself raised'),
    wrong('02.check_pass', "a problem that does not start with the word asked for ('error' for 'raised')", 'ex-5',
          ('return f"raised {type(err).__name__}: {err}"', 'return f"error: {type(err).__name__}: {err}"'),
          says="should start with 'raised'"),
    wrong('02.check_pass', 'outputs compared with torch.equal: rounding counts as a bug', 'ex-5',
          ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)', 'torch.equal(got, case["expected"])'),
          says='where it is correct'),
    wrong('02.check_pass', 'the second run on a fresh trace instead of on the pass\'s result', 'ex-5',
          ('second = signature(pass_fn(gm))', 'second = signature(pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"]))))'),
          says='let .* through'),
    wrong('02.check_pass', "'ok' tested with `is None` on a problem that is ''", 'ex-5',
          ('"ok": problem == ""', '"ok": problem is None'),
          says='where it is correct'),
    wrong('02.check_pass', 'outputs compared with allclose alone, which broadcasts: a pass that adds a dimension passes', 'ex-5',
          ('got.shape == case["expected"].shape\n                and torch.allclose', 'torch.allclose'),
          says='shape|dimension'),
    wrong('02.check_pass', 'never compares the outputs', 'ex-5',
          ('        if not (isinstance(got, torch.Tensor) and got.shape == case["expected"].shape\n                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)):',
           '        if False:'),
          says='let .* through'),
    wrong('02.check_pass', 'the rewritten graph run outside try/except: a graph that raises when run escapes the harness', 'ex-5',
          ('        try:\n            with torch.no_grad():\n                got = gm(*case["inputs"])\n        except Exception as err:\n            return f"raised when run: {type(err).__name__}: {err}"\n',
           '        with torch.no_grad():\n            got = gm(*case["inputs"])\n'),
          says='check_pass itself raised'),
    wrong('02.check_pass', 'the second run outside try/except: a pass that raises on its own output escapes the harness', 'ex-5',
          ('        try:\n            second = signature(pass_fn(gm))\n        except Exception as err:\n            return f"idempotent: the second run raised {type(err).__name__}: {err}"\n',
           '        second = signature(pass_fn(gm))\n'),
          says='check_pass itself raised'),

    wrong('02.check_pass', "compares with the case's model run again, not case['expected']: a rewrite meant to change the "
          'outputs (ReLU → GELU) is flagged, a pass that keeps the old outputs passes', 'ex-5',
          ('                got = gm(*case["inputs"])\n', '                got = gm(*case["inputs"])\n'
           '                want = case["model"](*case["inputs"])\n'),
          ('got.shape == case["expected"].shape\n                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)',
           'got.shape == want.shape\n                and torch.allclose(got, want, rtol=tol, atol=tol)'),
          says=r"compare the rewritten graph with case\['expected'\]"),
    wrong('02.check_pass', 'idempotence judged by (op, node name): a pass that changes a node\'s target in place on every '
          'run goes through', 'ex-5',
          ('        return [(n.op, str(n.target)) for n in gm.graph.nodes]', '        return [(n.op, n.name) for n in gm.graph.nodes]'),
          says='let .* through'),
    wrong('02.check_pass', 'idempotence compared on the graph the pass changed in place: the first signature is taken after '
          'the second run, so both are the same graph', 'ex-5',
          ('        first = signature(gm)\n        try:\n            second = signature(pass_fn(gm))\n',
           '        try:\n            second = signature(pass_fn(gm))\n            first = signature(gm)\n'),
          says='let .* through'),
    wrong('02.check_pass', "idempotence judged by gm.code: a pass that rebuilds the same nodes under new names is called "
          "not idempotent", 'ex-5',
          ('        return [(n.op, str(n.target)) for n in gm.graph.nodes]', '        return gm.code'),
          says='where it is correct'),

    # ---------------------------------------------------------------- a fair-grades round: mistakes found by thinking like
    # a learner who half-understands the topic, one per line of the exercise it breaks
    # 1
    wrong('02.graph_table', 'users without the output node: a value the graph returns looks unread', 'ex-1',
          ('"users": [u.name for u in node.users]', '"users": [u.name for u in node.users if u.op != "output"]'),
          says='users'),
    wrong('02.graph_table', 'users as the next node in graph order (node.next), not the nodes that read it', 'ex-1',
          ('"users": [u.name for u in node.users]', '"users": [node.next.name] if node.op != "output" else []'),
          says='users'),
    # 2a
    wrong('02.relu_to_gelu', "the ReLU's input read as node.args[0] only: torch.relu(input=x), its input by keyword, raises",
          'ex-2a',
          ('source = node.args[0] if node.args else node.kwargs["input"]', 'source = node.args[0]'),
          says='relu_to_gelu raised', hidden_says='relu_to_gelu raised'),
    wrong('02.relu_to_gelu', 'nn.ReLU modules looked up with getattr(gm, node.target): a ReLU inside a Sequential '
          "('mlp.1') raises", 'ex-2a',
          ('return isinstance(gm.get_submodule(node.target), nn.ReLU)', 'return isinstance(getattr(gm, node.target), nn.ReLU)'),
          says='relu_to_gelu raised', hidden_says='relu_to_gelu raised'),
    wrong('02.relu_to_gelu', "an nn.ReLU module rewritten by patching its forward (mod.forward = F.gelu): the module is the "
          "model's own, so the original model now computes GELU too", 'ex-2a',
          ('        source = node.args[0] if node.args else node.kwargs["input"]\n',
           '        if node.op == "call_module":\n            gm.get_submodule(node.target).forward = F.gelu\n            continue\n'
           '        source = node.args[0] if node.args else node.kwargs["input"]\n'),
          says='changed the original model|relu|still there'),
    # 2b
    wrong('02.rewriter', 'one replace_pattern for torch.relu, then the hand-written relu_to_gelu of part 2a for the other '
          'spellings', 'ex-2b',
          ('    for pattern in (as_function, as_functional, as_method):\n        subgraph_rewriter.replace_pattern(gm, pattern, gelu)\n',
           '    subgraph_rewriter.replace_pattern(gm, as_function, gelu)\n    relu_to_gelu(gm)\n'),
          says='replace_pattern|relu_to_gelu'),
    wrong('02.rewriter', 'the nn.ReLU modules turned into GELU by relu_to_gelu of part 2a, the patterns only for the '
          'function and method spellings', 'ex-2b',
          ('    for node in list(gm.graph.nodes):           # a pattern function cannot call a submodule: make these calls functions\n'
           '        if node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):\n'
           '            with gm.graph.inserting_before(node):\n'
           '                call = gm.graph.call_function(torch.relu, (node.args[0],))\n'
           '            node.replace_all_uses_with(call)\n'
           '            gm.graph.erase_node(node)\n',
           '    relu_to_gelu(gm)\n'),
          says='replace_pattern|relu_to_gelu'),
    # 2c
    wrong('02.fold_conv_bn', "the scale computed with in-place ops on the batch norm's buffer (running_var.add_(eps)"
          ".rsqrt_()): the original model's batch norm is changed", 'ex-2c',
          ('s = torch.rsqrt(bn.running_var + bn.eps)', 's = bn.running_var.add_(bn.eps).rsqrt_()'),
          says='original model|computes something else'),
    wrong('02.fold_conv_bn', "the folded conv's name made from its module's target with no check that it is free: a conv "
          'called twice gets one name for both folds', 'ex-2c',
          ('        while hasattr(gm, name):\n            name += "_"\n', ''),
          says='computes something else'),
    wrong('02.fold_conv_bn', 'the scale computed in float64 for accuracy and kept: the folded conv has float64 weights',
          'ex-2c',
          ('s = torch.rsqrt(bn.running_var + bn.eps)', 's = torch.rsqrt(bn.running_var.double() + bn.eps)'),
          ('b = conv.bias if conv.bias', 'b = conv.bias.double() if conv.bias'),
          says='raised|computes something else'),
    wrong('02.fold_conv_bn', 'stops after the first pair it folds (a return inside the loop)', 'ex-2c',
          ('        gm.graph.erase_node(bn_node)\n', '        gm.graph.erase_node(bn_node)\n        break\n'),
          says='a second time|batch norm'),
    wrong('02.fold_conv_bn', 'any conv folded (isinstance _ConvNd): a ConvTranspose2d, whose weight holds the output channels '
          'in its second dimension, is scaled along the input channels', 'ex-2c',
          ('isinstance(gm.get_submodule(conv_node.target), nn.Conv2d)', 'isinstance(gm.get_submodule(conv_node.target), nn.modules.conv._ConvNd)'),
          says='computes something else|raised'),
    # 2d
    wrong('02.dead_code', "in-place calls found by the node's name (node.name ending in _), not its target: a second add_ is "
          "named add__1", 'ex-2d',
          ('    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")\n',
           '    name = node.name\n'),
          says='in place|still there'),
    wrong('02.dead_code', 'every call_module kept as a possible side effect: a dead Linear stays', 'ex-2d',
          ('        return getattr(gm.get_submodule(node.target), "inplace", False) is True', '        return True'),
          says='still there'),
    # 2e
    wrong('02.fold_constants', 'no care for in-place calls on constants: a constant that add_ changes is folded into a buffer '
          'that the add_ then changes on every call', 'ex-2e',
          ('    changed, stack = set(), [i for n in gm.graph.nodes if n.op.startswith("call") and has_side_effects(gm, n)\n'
           '                             for i in n.all_input_nodes]\n',
           '    changed, stack = set(), []\n'),
          says='called again'),
    wrong('02.fold_constants', 'folding judged by the inputs being parameters (get_attr) directly: a constant computed from '
          'another constant is not folded', 'ex-2e',
          ('and all(i in values for i in node.all_input_nodes)', 'and all(i.op == "get_attr" for i in node.all_input_nodes)'),
          says='a second time|still there'),
    # 3
    wrong('02.node_costs', "the conv's bias added to its FLOPs (one add per output element)", 'ex-3',
          ('return 2 * out * mod.weight[0].numel()', 'return 2 * out * mod.weight[0].numel() + (out if mod.bias is not None else 0)'),
          says='flops'),
    wrong('02.node_costs', 'intensity rounded to two decimals for the table', 'ex-3',
          ('intensity = flops / moved if moved else 0.0', 'intensity = round(flops / moved, 2) if moved else 0.0'),
          says='intensity'),
    wrong('02.node_costs', 'F.linear and the matrix products matched by the torch functions only (node.target is F.linear, '
          'torch.matmul ...), not the ATen spellings of an exported graph', 'ex-3',
          ('node.target in LINEAR_FUNCTIONS:', 'node.target is F.linear:'),
          ('node.target in MATMUL_FUNCTIONS)', 'node.target in (operator.matmul, torch.matmul, torch.mm, torch.bmm))'),
          ('node.target in CONV_FUNCTIONS:', 'node.target in (F.conv1d, F.conv2d, F.conv3d):'),
          says='flops'),
    wrong('02.node_costs', "bytes of a module's parameters only where they require grad: a frozen weight or a buffer moves "
          'nothing', 'ex-3',
          ('for t in [*mod.parameters(), *mod.buffers()]', 'for t in mod.parameters() if t.requires_grad'),
          says='bytes'),
    # 4a
    wrong('02.passes', 'DeadCode.analyze counts only the call nodes the dry run removes (a dead get_attr is not counted)',
          'ex-4a',
          ('return {"matches": nodes_removed(remove_dead_code, gm)}',
           'return {"matches": nodes_removed(remove_dead_code, gm, ops=("call_function", "call_method", "call_module"))}'),
          says='sites'),
    wrong('02.passes', "ReluToGelu.analyze dry-runs relu_to_gelu with nodes_removed: a rewrite removes no node, so it counts 0",
          'ex-4a',
          ('sum(is_relu(gm, n) for n in gm.graph.nodes)', 'nodes_removed(relu_to_gelu, gm)'),
          says='sites'),
    # 4b
    wrong('02.pipeline', 'the pass timed with time.process_time(): CPU time, not the wall-clock time the pass took', 'ex-4b',
          ('start = time.perf_counter()', 'start = time.process_time()'),
          ('seconds = time.perf_counter() - start', 'seconds = time.process_time() - start'),
          says='Time p.apply'),
    wrong('02.pipeline', 'max_abs_diff kept as a 0-d tensor, not a float', 'ex-4b',
          ('diffs = [(a - b).abs().max().item() for a, b in pairs if a.numel()]',
           'diffs = [(a - b).abs().max() for a, b in pairs if a.numel()]'),
          ('diff = max([0.0] + diffs)', 'diff = max([torch.tensor(0.0)] + diffs)'),
          says='max_abs_diff'),
    wrong('02.pipeline', 'the tolerance scaled by the mean |ref|, not the max: a pass that rounds by a part of the largest '
          'output is refused', 'ex-4b',
          ('scale = max([1.0] + [t.abs().max().item() for t in leaves(reference) if t.numel()])',
           'scale = max([1.0] + [t.abs().mean().item() for t in leaves(reference) if t.numel()])'),
          says='raised|keep the outputs'),
    wrong('02.pipeline', "a pass's exception re-raised as PassVerificationError(str(err)): the message is the pass's own, "
          'without its name', 'ex-4b',
          ('raise PassVerificationError(f"pass {p.name!r} failed: {type(err).__name__}: {err}") from err',
           'raise PassVerificationError(str(err)) from err'),
          says='does not name that pass'),
    wrong('02.pipeline', 'a pass that fails is skipped (its error swallowed) and the pipeline goes on with the graph before it',
          'ex-4b',
          ('        if not diff <= tol * scale:\n            raise PassVerificationError(f"pass {p.name!r} changed the outputs by {diff:.3g} (allowed: {tol * scale:.3g})")\n',
           '        if not diff <= tol * scale:\n            continue\n'),
          says='without an error'),
    wrong('02.pipeline', 'nodes_before counted after apply(): a pass that changes the graph in place shows no change',
          'ex-4b',
          ('        before = len(gm.graph.nodes)\n', ''),
          ('"nodes_before": before,', '"nodes_before": len(gm.graph.nodes),'),
          says='nodes'),
    wrong('02.pipeline', 'the tolerance scaled per output tensor (tol × max(1, max |ref_i|) for each), not by the largest '
          'output of all', 'ex-4b',
          ('        if not diff <= tol * scale:',
           '        if not all((a - b).abs().max().item() <= tol * max(1.0, b.abs().max().item()) for a, b in pairs if a.numel()):'),
          says='raised|keep the outputs'),
    wrong('02.pipeline', 'the pass timed with time.perf_counter_ns(): the report says nanoseconds '
          'as seconds', 'ex-4b',
          ('start = time.perf_counter()', 'start = time.perf_counter_ns()'),
          ('seconds = time.perf_counter() - start', 'seconds = time.perf_counter_ns() - start'),
          says='seconds'),
    # 5
    wrong('02.check_pass', 'copy.copy of the case\'s model: the shallow copy shares its parameters, a pass that scales them in '
          'place changes the case', 'ex-5',
          ('gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))', 'gm = pass_fn(fx.symbolic_trace(copy.copy(case["model"])))'),
          says='deep copy'),
    wrong('02.check_pass', 'allclose with rtol=tol and the default atol (1e-8): outputs near zero get almost no tolerance', 'ex-5',
          ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)', 'torch.allclose(got, case["expected"], rtol=tol)'),
          says='where it is correct'),
    wrong('02.check_pass', "idempotence judged by each node's target name alone (no op): x.sin() and torch.sin(x) look the "
          'same', 'ex-5',
          ('        return [(n.op, str(n.target)) for n in gm.graph.nodes]',
           '        return [getattr(n.target, "__name__", n.target) for n in gm.graph.nodes]'),
          says='let .* through'),
    wrong('02.check_pass', 'lint run inside the same try as the pass: a graph that fails lint is reported as raised', 'ex-5',
          ('            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n        except Exception as err:\n'
           '            return f"raised {type(err).__name__}: {err}"\n        try:\n            gm.graph.lint()\n        except Exception as err:\n'
           '            return f"lint: {err}"\n',
           '            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n            gm.graph.lint()\n'
           '        except Exception as err:\n            return f"raised {type(err).__name__}: {err}"\n'),
          says="should start with 'lint'"),
    wrong('02.check_pass', 'shapes compared by their number of elements (numel), not the shape: a pass that adds a '
          'dimension of 1 passes', 'ex-5',
          ('got.shape == case["expected"].shape', 'got.numel() == case["expected"].numel()'),
          says='let .* through'),

    # ---------------------------------------------------------------- a second fair-grades round: FX subtleties the
    # checks let through before it (outputs in another order, a node that moves 0 bytes, calls with inplace=False, ...)
    # 1
    wrong('02.graph_table', 'inputs from args and kwargs values, one level deep: nodes inside a list (torch.cat([a, b])) '
          'are missed', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]',
           '"inputs": [a.name for a in [*node.args, *node.kwargs.values()] if isinstance(a, fx.Node)]'),
          says='inputs'),
    # 2a, 2b
    wrong('02.relu_to_gelu', "GELU written as a tensor method (call_method 'gelu'), the way the ReLU method was", 'ex-2a',
          ('gelu = gm.graph.call_function(F.gelu, (source,))', 'gelu = gm.graph.call_method("gelu", (source,))'),
          says='raised', hidden_says='relu_to_gelu raised'),
    wrong('02.rewriter', 'the replacement written with a module, nn.GELU()(x): a pattern function cannot call a module',
          'ex-2b', ('    def gelu(x):\n        return F.gelu(x)', '    def gelu(x):\n        return nn.GELU()(x)'),
          says='raised', hidden_says='relu_to_gelu_pattern raised'),
    # 2c
    wrong('02.fold_conv_bn', "also requires the batch norm's output to have a single user: a pair whose normalized values "
          'are read twice is left unfolded', 'ex-2c',
          ('and len(conv_node.users) == 1):', 'and len(conv_node.users) == 1 and len(bn_node.users) == 1):'),
          says="batch norm's own output does not matter", hidden_says='too many batch norms'),
    wrong('02.fold_conv_bn', 'calls bn.eval() before folding "to be sure": a batch norm left in training mode is switched '
          "(the model's own module) and folded", 'ex-2c',
          ('        if bn.training or bn.running_mean is None:', '        bn.eval()\n        if bn.running_mean is None:'),
          says='training mode', hidden_says='training mode'),
    wrong('02.fold_conv_bn', "the folded conv registered with gm.add_module under the conv's dotted target + '_folded' "
          "('stem.0_folded')", 'ex-2c',
          ('        name = conv_node.target.replace(".", "_") + "_folded"', '        name = conv_node.target + "_folded"'),
          ('        gm.add_submodule(name, folded)', '        gm.add_module(name, folded)'),
          says='fold_conv_bn raised', hidden_says='fold_conv_bn raised'),
    # 2d
    wrong('02.dead_code', "in place judged by the keyword's presence ('inplace' in node.kwargs): an unread F.relu(x), "
          'traced with inplace=False, is kept', 'ex-2d',
          ('if node.is_impure() or node.kwargs.get("inplace") is True:', 'if node.is_impure() or "inplace" in node.kwargs:'),
          says='inplace argument is False', hidden_says='inplace argument is False'),
    wrong('02.dead_code', "in-place modules judged by hasattr(module, 'inplace'): an unread nn.ReLU() or nn.Dropout() "
          '(inplace=False) is kept', 'ex-2d',
          ('        return getattr(gm.get_submodule(node.target), "inplace", False) is True',
           '        return hasattr(gm.get_submodule(node.target), "inplace")'),
          says='inplace argument is False', hidden_says='inplace argument is False'),
    # 2e
    wrong('02.fold_constants', 'call_method constants evaluated as getattr(torch, name)(*args): methods without a torch '
          'function of that name (.to, .view, .size) raise', 'ex-2e',
          ('values[node] = getattr(args[0], node.target)(*args[1:], **kwargs)', 'values[node] = getattr(torch, node.target)(*args, **kwargs)'),
          says='fold_constants raised', hidden_says='fold_constants raised'),
    wrong('02.fold_constants', "each buffer named after the op that computed it (folded_sin), with no check that the name is "
          'free: register_buffer under a taken name replaces that buffer, so two constants of the same op share a value',
          'ex-2e',
          ('        name = f"_folded_{node.name}"\n        while hasattr(gm, name):\n            name += "_"\n',
           '        name = f"folded_{getattr(node.target, \'__name__\', node.target)}"\n'),
          says='name of its own', hidden_says='name of its own'),
    wrong('02.fold_constants', 'a constant that the output node reads directly is not registered: only call nodes count as '
          'its readers', 'ex-2e',
          ('        if all(user in folded for user in node.users):',
           '        if all(user in folded or user.op == "output" for user in node.users):'),
          says='still there', hidden_says='still there'),
    # 3
    wrong('02.node_costs', 'intensity = flops / bytes without the 0-bytes case: a node that moves no tensor (the getitem of '
          'x.shape[0]) divides by zero', 'ex-3',
          ('intensity = flops / moved if moved else 0.0', 'intensity = flops / moved'),
          says='node_costs raised.*moves 0 bytes', hidden_says='node_costs raised.*moves 0 bytes'),
    wrong('02.node_costs', 'memory_bound False for a node that moves no bytes ("it waits on nothing")', 'ex-3',
          ('"memory_bound": intensity < ridge', '"memory_bound": moved > 0 and intensity < ridge'),
          says=r'memory_bound False.*intensity < ridge', hidden_says=r'memory_bound False.*intensity < ridge'),
    wrong('02.node_costs', "a module's parameters counted once per module: a module called twice reads its weights only "
          'on its first call', 'ex-3',
          ('    rows = []\n    for node in gm.graph.nodes:', '    rows, seen = [], set()\n    for node in gm.graph.nodes:'),
          ('            moved += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])',
           '            if node.target not in seen:\n                seen.add(node.target)\n'
           '                moved += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])'),
          says='bytes', hidden_says='bytes'),
    # 4a
    wrong('02.passes', 'ReluToGelu.analyze counts the distinct ReLU targets: a module called twice counts once', 'ex-4a',
          ('return {"matches": sum(is_relu(gm, n) for n in gm.graph.nodes)}',
           'return {"matches": len({str(n.target) for n in gm.graph.nodes if is_relu(gm, n)})}'),
          says='called twice is two sites', hidden_says='called twice is two sites'),
    # 4b
    wrong('02.pipeline', "the tolerance's scale taken from the first output tensor only (max |ref[0]|): a larger second "
          'output gets too small a tolerance', 'ex-4b',
          ('scale = max([1.0] + [t.abs().max().item() for t in leaves(reference) if t.numel()])',
           'scale = max(1.0, leaves(reference)[0].abs().max().item())'),
          says='max \\|ref\\| over every tensor', hidden_says='max \\|ref\\| over every tensor'),
    wrong('02.pipeline', "the report's max_abs_diff measured on the first output only (the verification covers them all)",
          'ex-4b',
          ('"seconds": seconds, "max_abs_diff": diff})', '"seconds": seconds, "max_abs_diff": diffs[0] if diffs else 0.0})'),
          says='max_abs_diff should be the largest', hidden_says='max_abs_diff should be the largest'),
    wrong('02.pipeline', "PassVerificationError names the pass's class (type(p).__name__), not the pass's name", 'ex-4b',
          ('raise PassVerificationError(f"pass {p.name!r} failed:', 'raise PassVerificationError(f"pass {type(p).__name__} failed:'),
          ('raise PassVerificationError(f"pass {p.name!r} changed the shape', 'raise PassVerificationError(f"pass {type(p).__name__} changed the shape'),
          ('raise PassVerificationError(f"pass {p.name!r} changed the outputs', 'raise PassVerificationError(f"pass {type(p).__name__} changed the outputs'),
          says='does not name that pass', hidden_says='does not name that pass'),
    wrong('02.pipeline', 'a GraphModule given as the model copied with copy.copy: the shallow copy shares its graph and '
          'submodules with the caller', 'ex-4b',
          ('gm = copy.deepcopy(model) if isinstance(model, fx.GraphModule)', 'gm = copy.copy(model) if isinstance(model, fx.GraphModule)'),
          says='deep-copy a GraphModule too', hidden_says='deep-copy a GraphModule too'),
    wrong('02.pipeline', "each report's seconds counted from the start of the pipeline, not of the pass", 'ex-4b',
          ('            start = time.perf_counter()\n            gm = p.apply(gm)', '            gm = p.apply(gm)'),
          ('    report = []\n', '    report = []\n    start = time.perf_counter()\n'),
          says=r'Time p\.apply\(gm\) itself', hidden_says=r'Time p\.apply\(gm\) itself'),
    wrong('02.pipeline', "every pass applied to a fresh trace of the model, not to the previous pass's result", 'ex-4b',
          ('        before = len(gm.graph.nodes)\n',
           '        gm = copy.deepcopy(model) if isinstance(model, fx.GraphModule) else fx.symbolic_trace(copy.deepcopy(model))\n'
           '        before = len(gm.graph.nodes)\n'),
          says='the graph it was given|node counts', hidden_says='the graph it was given|node counts'),
    # 5
    wrong('02.check_pass', 'idempotence tested before the outputs: a pass whose outputs are wrong and that also changes the '
          "graph again is reported as 'idempotent'", 'ex-5',
          (OUTPUT_CHECK + '        first = signature(gm)\n        try:\n            second = signature(pass_fn(gm))\n'
           '        except Exception as err:\n            return f"idempotent: the second run raised {type(err).__name__}: {err}"\n'
           '        return "" if second == first else "idempotent: a second run changed the graph again"\n',
           '        first = signature(gm)\n        try:\n            second = signature(pass_fn(copy.deepcopy(gm)))\n'
           '        except Exception as err:\n            return f"idempotent: the second run raised {type(err).__name__}: {err}"\n'
           '        if second != first:\n            return "idempotent: a second run changed the graph again"\n'
           + OUTPUT_CHECK + '        return ""\n'),
          says="should start with 'output'.*in this order", hidden_says="should start with 'output'"),
    wrong('02.check_pass', "a graph that raises when run reported as 'output' (it gave no output), not 'raised'", 'ex-5',
          ('return f"raised when run: {type(err).__name__}: {err}"', 'return f"output: the graph raised {type(err).__name__}: {err}"'),
          says="should start with 'raised'", hidden_says="should start with 'raised'"),
    wrong('02.check_pass', 'allclose(got, expected, atol=tol) with the default rtol (1e-5): with tol=1e-7 every value may '
          'still be off by 1e-5 of itself', 'ex-5',
          ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)', 'torch.allclose(got, case["expected"], atol=tol)'),
          says='tol=1e-07', hidden_says='tol=1e-07'),
    # ---------------------------------------------------------------- a third fair-grades round: what a learner copying
    # the course pages would write (a pass's name as a method, the page's analysis keys, its capture check, its fusion
    # fed the first input only, its node counts of call_function only), state kept from an earlier call, the library
    # function that does the exercise's job, dtypes, devices, boundaries and tolerances
    # 1
    wrong('02.graph_table', 'rows kept in a mutable default argument (rows=[]): every call adds to the rows of the calls '
          'before', 'ex-1',
          ('def graph_table(gm):', 'def graph_table(gm, rows=[]):'),
          ('    rows = []\n    for node in gm.graph.nodes:', '    for node in gm.graph.nodes:'),
          says='earlier call', hidden_says='earlier call'),
    wrong('02.graph_table', 'rows sorted by op (placeholders, get_attr, calls, output): the nodes grouped by kind, not in '
          'graph order', 'ex-1',
          ('    return rows\n',
           '    kinds = ["placeholder", "get_attr", "call_module", "call_function", "call_method", "output"]\n'
           '    return sorted(rows, key=lambda r: kinds.index(r["op"]))\n'),
          says="graph's order", hidden_says="graph's order"),
    wrong('02.graph_table', 'parameters and buffers (get_attr nodes) left out of the inputs: only activations counted',
          'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]', '"inputs": [n.name for n in node.all_input_nodes if n.op != "get_attr"]'),
          says='inputs', hidden_says='inputs'),
    wrong('02.graph_table', "the graph tidied first with gm.graph.eliminate_dead_code(): a node nobody reads loses its row, "
          "and the caller's graph changes", 'ex-1',
          ('    rows = []\n    for node in gm.graph.nodes:', '    gm.graph.eliminate_dead_code()\n    rows = []\n    for node in gm.graph.nodes:'),
          says='nobody reads', hidden_says='nobody reads'),
    # 2a
    wrong('02.relu_to_gelu', 'nn.ReLU modules swapped with setattr(gm, node.target, nn.GELU()): a dotted target (block.1) '
          'becomes a new attribute, the nested ReLU stays', 'ex-2a',
          ('    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):\n            continue\n',
           '    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):\n            continue\n'
           '        if node.op == "call_module":\n            setattr(gm, node.target, nn.GELU())\n            continue\n'),
          says='still there', hidden_says='still there'),
    wrong('02.relu_to_gelu', 'raises when the graph holds no ReLU ("nothing to rewrite"): the empty graph and a graph '
          'already rewritten fail', 'ex-2a',
          ('    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):\n            continue\n',
           '    if not any(is_relu(gm, n) for n in gm.graph.nodes):\n        raise ValueError("no ReLU to rewrite")\n'
           '    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):\n            continue\n'),
          says='relu_to_gelu raised', hidden_says='relu_to_gelu raised'),
    # 2b
    wrong('02.rewriter', 'no pattern for the method spelling x.relu()', 'ex-2b',
          ('for pattern in (as_function, as_functional, as_method):', 'for pattern in (as_function, as_functional):'),
          says='still there', hidden_says='still there'),
    wrong('02.rewriter', 'the nn.ReLU calls normalized without inserting_before: each torch.relu lands after the output '
          'node, and a pattern rewrite of what reads it can leave a value read before it exists', 'ex-2b',
          ('            with gm.graph.inserting_before(node):\n                call = gm.graph.call_function(torch.relu, (node.args[0],))\n',
           '            call = gm.graph.call_function(torch.relu, (node.args[0],))\n'),
          says='before it (has been defined|exists)', hidden_says='inserting_before'),
    # 2c
    wrong('02.fold_conv_bn', 'divides by the variance, not the standard deviation (no square root)', 'ex-2c',
          ('torch.rsqrt(bn.running_var + bn.eps)', '1 / (bn.running_var + bn.eps)'),
          says='computes something else', hidden_says='computes something else'),
    wrong('02.fold_conv_bn', 'the running mean subtracted unscaled: b·s + β − μ instead of s·(b − μ) + β', 'ex-2c',
          ('(b - bn.running_mean) * s + shift', 'b * s + shift - bn.running_mean'),
          says='computes something else', hidden_says='computes something else'),
    wrong('02.fold_conv_bn', 'the scale reshaped to (-1, 1, 1): broadcasting lines it up with the input channels and the '
          'kernel, not the output channels', 'ex-2c',
          ('s.reshape(-1, 1, 1, 1)', 's.reshape(-1, 1, 1)'),
          says='computes something else|raised', hidden_says='computes something else|raised'),
    wrong('02.fold_conv_bn', "torch.fx.experimental.optimization.fuse, the library's folding, in place of the exercise: "
          'it folds a batch norm in training mode, and a conv called twice gets one fold for both calls', 'ex-2c',
          source='\nfrom torch.fx.experimental.optimization import fuse\n\n\ndef fold_conv_bn(gm):\n    return fuse(gm, inplace=True)\n',
          says='raised|computes something else|batch norm', hidden_says='raised|computes something else|batch norm'),
    wrong('02.fold_conv_bn', 'training mode judged by gm.training (the whole model), not by each batch norm: a batch norm '
          'that stays in training mode is folded', 'ex-2c',
          ('        if bn.training or bn.running_mean is None:', '        if gm.training or bn.running_mean is None:'),
          says='training mode', hidden_says='training mode'),
    # 2d
    wrong('02.dead_code', "has_side_effects memoized by node.name in a module-level dict: a node of another graph with the "
          "same name ('act') gets the first graph's answer", 'ex-2d',
          ('def has_side_effects(gm, node):\n    """True when the node must stay even if nothing reads its result."""\n    ### BEGIN SOLUTION\n',
           '_SEEN = {}\n\n\ndef has_side_effects(gm, node):\n    """True when the node must stay even if nothing reads its result."""\n'
           '    ### BEGIN SOLUTION\n    if node.name not in _SEEN:\n        _SEEN[node.name] = _side_effects(gm, node)\n'
           '    return _SEEN[node.name]\n\n\ndef _side_effects(gm, node):\n'),
          says='still there|in place', hidden_says='still there|in place'),
    wrong('02.dead_code', "in place judged by an underscore anywhere in the name: an unread x.log_softmax() or "
          "F.leaky_relu() is kept", 'ex-2d',
          ('and name.endswith("_") and not name.endswith("__")', 'and "_" in name and not name.startswith("__")'),
          says='still there', hidden_says='still there'),
    # 2e
    wrong('02.fold_constants', "torch.fx.experimental.const_fold.split_const_subgraphs, the library's folding, in place of "
          'the exercise: it folds random ops too', 'ex-2e',
          source='\nfrom torch.fx.experimental.const_fold import split_const_subgraphs\n\n\ndef fold_constants(gm):\n'
                 '    folded = split_const_subgraphs(gm)\n    folded.run_folding()\n    return folded\n',
          says='should still be there|raised|still there', hidden_says='should still be there|raised|still there'),
    wrong('02.fold_constants', 'the get_attr node for a folded value created without inserting_before: it lands after the '
          'output node', 'ex-2e',
          ('        with gm.graph.inserting_before(node):\n            attr = gm.graph.get_attr(name)\n', '        attr = gm.graph.get_attr(name)\n'),
          says='used before it has been defined', hidden_says='fold_constants raised'),
    wrong('02.fold_constants', 'every folded value kept as float ("to be safe"): a boolean mask or an integer index becomes '
          'float', 'ex-2e',
          ('gm.register_buffer(name, values[node].detach().clone())', 'gm.register_buffer(name, values[node].detach().clone().float())'),
          says='keeps the dtype', hidden_says='keeps the dtype'),
    wrong('02.fold_constants', 'readers rewired one by one, but only the first: a constant read by two live nodes stays for '
          'the second', 'ex-2e',
          ('        node.replace_all_uses_with(attr)', '        next(u for u in node.users if u is not attr).replace_input_with(node, attr)'),
          says='a second time|still there', hidden_says='a second time|still there'),
    # 3
    wrong('02.node_costs', 'tensor_bytes tests for a tuple before TensorMetadata (itself a named tuple): every tensor counts '
          '0 bytes', 'ex-3',
          ('    if isinstance(meta, TensorMetadata):\n        return math.prod(meta.shape) * meta.dtype.itemsize\n'
           '    if isinstance(meta, (list, tuple)):\n        return sum(tensor_bytes(m) for m in meta)\n',
           '    if isinstance(meta, (list, tuple)):\n        return sum(tensor_bytes(m) for m in meta)\n'
           '    if isinstance(meta, TensorMetadata):\n        return math.prod(meta.shape) * meta.dtype.itemsize\n'),
          says='bytes', hidden_says='bytes'),
    wrong('02.node_costs', 'intensity with integer division (flops // bytes)', 'ex-3',
          ('intensity = flops / moved if moved else 0.0', 'intensity = flops // moved if moved else 0'),
          says='intensity', hidden_says='intensity'),
    wrong('02.node_costs', 'ShapeProp given the tuple of inputs as one argument (propagate(example))', 'ex-3',
          ('ShapeProp(gm).propagate(*example)', 'ShapeProp(gm).propagate(example)'),
          says='node_costs raised', hidden_says='node_costs raised'),
    wrong('02.node_costs', 'the ridge argument ignored: the ridge measured on the learner\'s machine hard-coded '
          '(intensity < 12)', 'ex-3',
          ('"memory_bound": intensity < ridge', '"memory_bound": intensity < 12.0'),
          says='memory_bound', hidden_says='memory_bound'),
    wrong('02.node_costs', 'bytes per element from an empty CUDA tensor (the GPU the learner has): on a machine without '
          'one it raises', 'ex-3',
          ('return math.prod(meta.shape) * meta.dtype.itemsize',
           'return math.prod(meta.shape) * torch.empty((), dtype=meta.dtype, device="cuda").element_size()'),
          says='node_costs raised', hidden_says='node_costs raised'),
    wrong('02.node_costs', "FLOPs from the input's elements, not the output's", 'ex-3',
          ('    out = math.prod(meta.shape)\n',
           '    first_in = node.args[0].meta.get("tensor_meta") if node.args and isinstance(node.args[0], fx.Node) else None\n'
           '    out = math.prod(first_in.shape) if isinstance(first_in, TensorMetadata) else math.prod(meta.shape)\n'),
          says='flops', hidden_says='flops'),
    # 4a
    wrong('02.passes', "name written as a method (def name(self): return ...), as the course page's FusionPass does",
          'ex-4a',
          ('    name = "relu_to_gelu"\n', '    def name(self):\n        return "relu_to_gelu"\n'),
          ('    name = "fold_conv_bn"\n', '    def name(self):\n        return "fold_conv_bn"\n'),
          ('    name = "fold_constants"\n', '    def name(self):\n        return "fold_constants"\n'),
          ('    name = "dead_code"\n', '    def name(self):\n        return "dead_code"\n'),
          says='needs a `name`', hidden_says='needs a `name`'),
    wrong('02.passes', "analyze reports the course page's key (num_fusible_groups), not 'matches'", 'ex-4a',
          ('return {"matches": sum(is_relu(gm, n) for n in gm.graph.nodes)}',
           'return {"num_fusible_groups": sum(is_relu(gm, n) for n in gm.graph.nodes)}'),
          says="'matches'", hidden_says="'matches'"),
    wrong('02.passes', 'FoldConstants.analyze counts every node the dry run removes (ops left out): the get_attr nodes it '
          'adds and drops count too', 'ex-4a',
          ('return {"matches": nodes_removed(fold_constants, gm, ops=("call_function", "call_method"))}',
           'return {"matches": nodes_removed(fold_constants, gm)}'),
          says='sites', hidden_says='sites'),
    wrong('02.passes', 'nodes_removed compares each op with the tuple ops by == : with ops given, no node counts', 'ex-4a',
          ('count = lambda g: sum(ops is None or n.op in ops for n in g.graph.nodes)',
           'count = lambda g: sum(ops is None or n.op == ops for n in g.graph.nodes)'),
          says='sites', hidden_says='sites'),
    wrong('02.passes', 'nodes_removed with its sign reversed (after − before): a pass that removes nodes reports a negative '
          'count', 'ex-4a',
          ('    return count(gm) - count(fn(copy.deepcopy(gm)))', '    return count(fn(copy.deepcopy(gm))) - count(gm)'),
          says='sites', hidden_says='sites'),
    wrong('02.passes', "DeadCode.analyze counts call_function nodes only, as the course page's test counts ops: dead "
          'methods, modules and get_attr nodes are not counted', 'ex-4a',
          ('return {"matches": nodes_removed(remove_dead_code, gm)}', 'return {"matches": nodes_removed(remove_dead_code, gm, ops=("call_function",))}'),
          says='sites', hidden_says='sites'),
    # 4b
    wrong('02.pipeline', "verification as the course page's capture check: assert torch.allclose(ref, out, atol=tol), an "
          'AssertionError outside the try', 'ex-4b',
          ('        pairs = list(zip(leaves(out), leaves(reference)))\n',
           '        assert all(torch.allclose(a, b, atol=tol) for a, b in zip(leaves(reference), leaves(out))), "output divergence detected"\n'
           '        pairs = list(zip(leaves(out), leaves(reference)))\n'),
          says='PassVerificationError|keep the outputs', hidden_says='PassVerificationError|keep the outputs'),
    wrong('02.pipeline', 'a pass that returns None keeps the graph before it (gm = p.apply(gm) or gm)', 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()', '            gm = p.apply(gm) or gm\n            gm.graph.lint()'),
          says='returns None.*without an error', hidden_says='without an error'),
    wrong('02.pipeline', 'nodes_before counted once, before the first pass', 'ex-4b',
          ('    report = []\n    for p in passes:\n        before = len(gm.graph.nodes)\n',
           '    report = []\n    before = len(gm.graph.nodes)\n    for p in passes:\n'),
          says=r'Count len\(gm\.graph\.nodes\) before the pass', hidden_says=r'Count len\(gm\.graph\.nodes\) before the pass'),
    wrong('02.pipeline', 'outputs compared with torch.equal: rounding counts as a broken pass', 'ex-4b',
          ('        if not diff <= tol * scale:', '        if not all(torch.equal(a, b) for a, b in pairs):'),
          says='run_pipeline raised PassVerificationError', hidden_says='run_pipeline raised PassVerificationError'),
    wrong('02.pipeline', 'torch.testing.assert_close with its own default tolerances: tol ignored', 'ex-4b',
          ('        if not diff <= tol * scale:',
           '        try:\n            for a, b in pairs:\n                torch.testing.assert_close(a, b)\n            ok = True\n'
           '        except AssertionError:\n            ok = False\n        if not ok:'),
          says='run_pipeline raised|tol', hidden_says='run_pipeline raised|tol'),
    wrong('02.pipeline', 'outputs compared flattened into one vector (numbers of elements, not shapes): a pass that adds a '
          'dimension goes through', 'ex-4b',
          ('        if len(leaves(out)) != len(leaves(reference)) or any(a.shape != b.shape for a, b in pairs):',
           '        if sum(a.numel() for a in leaves(out)) != sum(b.numel() for b in leaves(reference)):'),
          says='without an error', hidden_says='without an error'),
    wrong('02.pipeline', 'the report kept in a module-level list, never emptied: a second call returns the rows of the '
          'first too', 'ex-4b',
          ('    report = []\n    for p in passes:', '    report = _REPORT\n    for p in passes:'),
          ('def run_pipeline(model, example, passes, tol=1e-4):', '_REPORT = []\n\n\ndef run_pipeline(model, example, passes, tol=1e-4):'),
          says='one dict per pass', hidden_says='one dict per pass'),
    wrong('02.pipeline', "max_abs_diff measured against the previous pass's outputs, not the original model's", 'ex-4b',
          ('        report.append({"pass": p.name,',
           '        previous = locals().get("previous", reference)\n'
           '        diff = max([0.0] + [(a - b).abs().max().item() for a, b in zip(leaves(out), leaves(previous))])\n'
           '        previous = out\n        report.append({"pass": p.name,'),
          says='max_abs_diff', hidden_says='max_abs_diff'),
    # 5
    wrong('02.check_pass', "the rewritten graph run on the first input only (gm(case['inputs'][0])), as the course page's "
          'fusion passed only the first input', 'ex-5',
          ('got = gm(*case["inputs"])', 'got = gm(case["inputs"][0])'),
          says='where it is correct', hidden_says='where it is correct'),
    wrong('02.check_pass', 'idempotence compared with the trace before the first run: a pass that rewrites anything looks '
          'not idempotent', 'ex-5',
          ('        try:\n            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n',
           '        try:\n            traced = fx.symbolic_trace(copy.deepcopy(case["model"]))\n            original = signature(traced)\n'
           '            gm = pass_fn(traced)\n'),
          ('        first = signature(gm)\n', '        first = original\n'),
          says='where it is correct', hidden_says='where it is correct'),
    wrong('02.check_pass', 'rows kept in a mutable default argument (rows=[]): each call returns the rows of the calls '
          'before too', 'ex-5',
          ('def check_pass(pass_fn, cases, tol=1e-5):', 'def check_pass(pass_fn, cases, tol=1e-5, rows=[]):'),
          ('    rows = []\n    for case in cases:', '    for case in cases:'),
          says='one row per case', hidden_says='one row per case'),
    wrong('02.check_pass', 'only RuntimeError caught: a pass that raises ValueError escapes the harness', 'ex-5',
          ('            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n        except Exception as err:',
           '            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n        except RuntimeError as err:'),
          says='check_pass itself raised', hidden_says='check_pass itself raised'),
    wrong('02.check_pass', 'outputs compared by the largest absolute difference alone (max |got − expected| <= tol): no '
          'rtol, so large outputs get no relative slack', 'ex-5',
          ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)', '(got - case["expected"]).abs().max().item() <= tol'),
          says='where it is correct.*atol \\+ rtol', hidden_says='where it is correct.*atol \\+ rtol'),
    wrong('02.check_pass', "a second run that raises reported as 'raised', not 'idempotent'", 'ex-5',
          ('return f"idempotent: the second run raised {type(err).__name__}: {err}"',
           'return f"raised on the second run: {type(err).__name__}: {err}"'),
          says="should start with 'idempotent'", hidden_says="should start with 'idempotent'"),
    wrong('02.check_pass', 'stops at the first case with a problem: the cases after it get no row', 'ex-5',
          ('        rows.append({"case": case["name"], "ok": problem == "", "problem": problem})\n',
           '        rows.append({"case": case["name"], "ok": problem == "", "problem": problem})\n        if problem:\n            break\n'),
          says='one row per case', hidden_says='one row per case'),
    # ---------------------------------------------------------------- a fourth fair-grades round: node kinds told apart by
    # node.op (not a name), readers and inputs inside lists and keyword arguments, what eliminate_dead_code() takes with
    # it, modules shared with the model, a new module's dtype, rows in graph order, a model of two inputs, a harness that
    # hides a missing recompile or judges every element by the largest
    # 1
    wrong('02.graph_table', "users found by hand, as the later nodes whose positional args hold the node: readers through a "
          "list or a keyword argument are missed", 'ex-1',
          ('"users": [u.name for u in node.users]', '"users": [m.name for m in gm.graph.nodes if node in m.args]'),
          says='users', hidden_says='users'),
    # 2a
    wrong('02.relu_to_gelu', "the old ReLUs left for gm.graph.eliminate_dead_code() to clear: it also erases an unread "
          "in-place call elsewhere in the graph", 'ex-2a',
          ('        node.replace_all_uses_with(gelu)\n        gm.graph.erase_node(node)\n', '        node.replace_all_uses_with(gelu)\n'),
          ('    gm.delete_all_unused_submodules()     # the nn.ReLU modules nothing calls any more\n',
           '    gm.graph.eliminate_dead_code()          # the old ReLUs: nothing reads them now\n    gm.delete_all_unused_submodules()\n'),
          says='in place', hidden_says='in place'),
    wrong('02.relu_to_gelu', "is_relu compares node.target with 'relu' whatever node.op is: a submodule named relu that is "
          "a LeakyReLU is rewritten", 'ex-2a',
          (IS_RELU, '    if node.target in (torch.relu, torch.relu_, F.relu, "relu", "relu_"):\n        return True\n'
                    '    return node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU)\n'),
          says='not ReLU.*node.op', hidden_says='not ReLU.*node.op'),
    # 2b
    wrong('02.rewriter', 'nn.ReLU modules found among gm.named_children() only: a ReLU inside a Sequential is never '
          'normalized', 'ex-2b',
          ('if node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):',
           'if node.op == "call_module" and isinstance(dict(gm.named_children()).get(node.target), nn.ReLU):'),
          says='still there', hidden_says='still there'),
    wrong('02.rewriter', 'the normalized nn.ReLU nodes left for gm.graph.eliminate_dead_code(): it also erases an unread '
          'in-place call', 'ex-2b',
          ('            node.replace_all_uses_with(call)\n            gm.graph.erase_node(node)\n    gm.recompile()',
           '            node.replace_all_uses_with(call)\n    gm.graph.eliminate_dead_code()\n    gm.recompile()'),
          says='in place', hidden_says='in place'),
    # 2c
    wrong('02.fold_conv_bn', "the folded bias set only where the conv had a bias: a conv with bias=False loses β − s·μ",
          'ex-2c',
          ('            folded.bias = nn.Parameter((b - bn.running_mean) * s + shift)\n',
           '            if conv.bias is not None:\n                folded.bias = nn.Parameter((b - bn.running_mean) * s + shift)\n'),
          says='computes something else', hidden_says='computes something else'),
    wrong('02.fold_conv_bn', 'gm.eval() first "to be sure": the modules are the model\'s own, so a batch norm meant to stay '
          'in training mode is switched and folded', 'ex-2c',
          ('    for bn_node in list(gm.graph.nodes):\n', '    gm.eval()\n    for bn_node in list(gm.graph.nodes):\n'),
          says='training mode', hidden_says='training mode'),
    wrong('02.fold_conv_bn', "the conv looked up with getattr(gm, conv_node.target, None): a conv inside a Sequential "
          "('stem.0') is not found, its pair is left", 'ex-2c',
          ('isinstance(gm.get_submodule(conv_node.target), nn.Conv2d)', 'isinstance(getattr(gm, conv_node.target, None), nn.Conv2d)'),
          says='batch norm', hidden_says='batch norm'),
    wrong('02.fold_conv_bn', 'the folded conv built anew with every setting of the old one, its weights copied in: a new '
          'module is float32 whatever the model is', 'ex-2c',
          ('        folded = copy.deepcopy(conv)\n        with torch.no_grad():\n',
           '        folded = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, '
           'padding=conv.padding,\n                           dilation=conv.dilation, groups=conv.groups, '
           'padding_mode=conv.padding_mode)\n        with torch.no_grad():\n'),
          ('            folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))\n'
           '            folded.bias = nn.Parameter((b - bn.running_mean) * s + shift)\n',
           '            folded.weight.copy_(conv.weight * s.reshape(-1, 1, 1, 1))\n'
           '            folded.bias.copy_((b - bn.running_mean) * s + shift)\n'),
          says='float64', hidden_says='float64'),
    # 2d
    wrong('02.dead_code', "a node's readers found by hand in the positional args of the other nodes: a node read only "
          "inside a list or by keyword looks dead, and erasing it raises", 'ex-2d',
          ('        for node in reversed(list(gm.graph.nodes)):\n            if node.op not in ("placeholder", "output") and not node.users',
           '        read = {a for n in gm.graph.nodes for a in n.args if isinstance(a, fx.Node)}\n'
           '        for node in reversed(list(gm.graph.nodes)):\n            if node.op not in ("placeholder", "output") and node not in read'),
          says='raised.*node.users', hidden_says='raised.*node.users'),
    wrong('02.dead_code', 'has_side_effects handed to eliminate_dead_code as it is: is_impure_node is called with the node '
          'alone', 'ex-2d',
          ('    changed = True\n    while changed:\n        changed = False\n        for node in reversed(list(gm.graph.nodes)):\n'
           '            if node.op not in ("placeholder", "output") and not node.users and not has_side_effects(gm, node):\n'
           '                gm.graph.erase_node(node)\n                changed = True\n',
           '    gm.graph.eliminate_dead_code(is_impure_node=has_side_effects)\n'),
          says='raised', hidden_says='raised'),
    # 2e
    wrong('02.fold_constants', 'a node judged constant by its positional Node arguments only: a live input inside a list '
          '(torch.cat([x, c])) or a keyword argument (other=x) is not seen', 'ex-2e',
          ('and all(i in values for i in node.all_input_nodes)', 'and all(a in values for a in node.args if isinstance(a, fx.Node))'),
          says='raised.*all_input_nodes', hidden_says='raised.*all_input_nodes'),
    wrong('02.fold_constants', "the readers rewired in a loop over node.users, which the rewiring changes as it goes",
          'ex-2e',
          ('        node.replace_all_uses_with(attr)', '        for user in node.users:\n            user.replace_input_with(node, attr)'),
          says='raised', hidden_says='raised'),
    # 3
    wrong('02.node_costs', 'rows sorted by bytes, the largest first (as the notebook prints them), not in graph order',
          'ex-3',
          ('    return rows\n    ### END SOLUTION', '    return sorted(rows, key=lambda r: -r["bytes"])\n    ### END SOLUTION'),
          says='graph order', hidden_says='graph order'),
    wrong('02.node_costs', 'parameters read through get_attr nodes left out of the bytes (only activations counted)', 'ex-3',
          ('for i in node.all_input_nodes)', 'for i in node.all_input_nodes if i.op != "get_attr")'),
          says='bytes', hidden_says='bytes'),
    wrong('02.node_costs', 'a row for every node, placeholders and the output included', 'ex-3',
          ('        if node.op not in ("call_function", "call_method", "call_module"):\n            continue\n', ''),
          says='one row per', hidden_says='one row per'),
    # 4a
    wrong('02.passes', 'nodes_removed dry-runs on fx.GraphModule(gm, gm.graph): a new module around the same graph object',
          'ex-4a',
          ('    return count(gm) - count(fn(copy.deepcopy(gm)))', '    return count(gm) - count(fn(fx.GraphModule(gm, gm.graph)))'),
          says='analysis must only look', hidden_says='analysis must only look'),
    wrong('02.passes', "FoldConvBN.analyze counts conv → batch-norm pairs by hand, forgetting that a batch norm without "
          "running statistics (or in training mode) is not folded", 'ex-4a',
          ('return {"matches": nodes_removed(fold_conv_bn, gm)}',
           'return {"matches": sum(n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.BatchNorm2d) '
           'and isinstance(n.args[0], fx.Node) and n.args[0].op == "call_module" '
           'and isinstance(gm.get_submodule(n.args[0].target), nn.Conv2d) and len(n.args[0].users) == 1 '
           'for n in gm.graph.nodes)}'),
          says='sites', hidden_says='sites'),
    wrong('02.passes', 'FoldConstants.analyze counts the call_function nodes the dry run removes, not the methods',
          'ex-4a',
          ('nodes_removed(fold_constants, gm, ops=("call_function", "call_method"))', 'nodes_removed(fold_constants, gm, ops=("call_function",))'),
          says='sites', hidden_says='sites'),
    # 4b
    wrong('02.pipeline', 'the tolerance scaled by the norm of the reference (torch.linalg.norm), which grows with its '
          'number of elements', 'ex-4b',
          ('scale = max([1.0] + [t.abs().max().item() for t in leaves(reference) if t.numel()])',
           'scale = max([1.0] + [torch.linalg.norm(t).item() for t in leaves(reference) if t.numel()])'),
          says='without an error', hidden_says='without an error'),
    wrong('02.pipeline', 'outputs compared by their sums (a checksum per tensor)', 'ex-4b',
          ('diffs = [(a - b).abs().max().item() for a, b in pairs if a.numel()]',
           'diffs = [(a.sum() - b.sum()).abs().item() for a, b in pairs if a.numel()]'),
          says='raised|without an error', hidden_says='raised|without an error'),
    wrong('02.pipeline', 'the rewritten graph run before lint and recompile: a pass that changed the graph without '
          'recompiling is verified on its old code', 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()\n            gm.recompile()\n            seconds = time.perf_counter() - start\n'
           '            with torch.no_grad():\n                out = gm(*example)\n',
           '            gm = p.apply(gm)\n            with torch.no_grad():\n                out = gm(*example)\n'
           '            gm.graph.lint()\n            gm.recompile()\n            seconds = time.perf_counter() - start\n'),
          says='Recompile after every pass', hidden_says='Recompile after every pass'),
    wrong('02.pipeline', 'the model and the graph called with the first example input only (example[0])', 'ex-4b',
          ('        reference = model(*example)', '        reference = model(example[0])'),
          ('                out = gm(*example)', '                out = gm(example[0])'),
          says=r'model\(\*example\)', hidden_says=r'model\(\*example\)'),
    wrong('02.pipeline', 'only a single-tensor output compared: a tuple of outputs is not verified at all', 'ex-4b',
          ('        pairs = list(zip(leaves(out), leaves(reference)))\n',
           '        pairs = [(out, reference)] if isinstance(out, torch.Tensor) else []\n'),
          ('        if len(leaves(out)) != len(leaves(reference)) or any(', '        if any('),
          says='max_abs_diff', hidden_says='max_abs_diff'),
    # 5
    wrong('02.check_pass', "the pipeline's rule reused: max |got − expected| ≤ tol × max(1, max |expected|), one "
          "tolerance for every element, not allclose's per element", 'ex-5',
          ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)',
           '(got - case["expected"]).abs().max().item() <= tol * max(1.0, case["expected"].abs().max().item())'),
          says='let .* through.*largest value', hidden_says='let .* through.*largest value'),
    wrong('02.check_pass', 'the graph run before it is linted: a graph that uses a value before it exists is reported as '
          "'raised', not 'lint'", 'ex-5',
          ('        try:\n            gm.graph.lint()\n        except Exception as err:\n            return f"lint: {err}"\n'
           '        try:\n            with torch.no_grad():\n                got = gm(*case["inputs"])\n'
           '        except Exception as err:\n            return f"raised when run: {type(err).__name__}: {err}"\n',
           '        try:\n            with torch.no_grad():\n                got = gm(*case["inputs"])\n'
           '        except Exception as err:\n            return f"raised when run: {type(err).__name__}: {err}"\n'
           '        try:\n            gm.graph.lint()\n        except Exception as err:\n            return f"lint: {err}"\n'),
          says="should start with 'lint'", hidden_says="should start with 'lint'"),
    wrong('02.check_pass', 'the pass given the deep-copied model itself, not its trace', 'ex-5',
          ('gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))', 'gm = pass_fn(copy.deepcopy(case["model"]))'),
          says='where it is correct', hidden_says='where it is correct'),
    wrong('02.check_pass', "the pass's result recompiled by the harness \"to be safe\": a pass that forgot gm.recompile() "
          'looks right', 'ex-5',
          ('            gm.graph.lint()\n        except', '            gm.graph.lint()\n            gm.recompile()\n        except'),
          says='let .* through.*recompile', hidden_says='let .* through.*recompile'),
]

# ---------------------------------------------------------------- correct answers written another way
ANOTHER_EX_1 = '''
def graph_table(gm):
    out = []
    for n in gm.graph.nodes:
        found = []
        fx.node.map_arg((n.args, n.kwargs), lambda a: found.append(a.name))
        t = n.target
        out.append(dict(name=n.name, op=n.op, target=t if isinstance(t, str) else t.__name__,
                        inputs=list(dict.fromkeys(found)), users=sorted(u.name for u in n.users)))
    return out
'''

ANOTHER_EX_2A = '''
def is_relu(gm, node):
    return ((node.op == "call_function" and node.target in {torch.relu, F.relu})
            or (node.op == "call_method" and node.target == "relu")
            or (node.op == "call_module" and type(gm.get_submodule(node.target)) is nn.ReLU))


def relu_to_gelu(gm):
    for node in gm.graph.nodes:
        if node.op == "call_module" and is_relu(gm, node):
            gm.add_submodule(node.target, nn.GELU())      # gm's own attribute: the model keeps its ReLU
        elif is_relu(gm, node):
            node.op, node.target = "call_function", F.gelu
            node.kwargs = {k: v for k, v in node.kwargs.items() if k == "input"}    # F.relu's inplace=False goes
    gm.recompile()
    return gm
'''

ANOTHER_EX_2A_KWARGS_WIPED = ANOTHER_EX_2A.replace(
    '            node.op, node.target = "call_function", F.gelu\n'
    '            node.kwargs = {k: v for k, v in node.kwargs.items() if k == "input"}    # F.relu\'s inplace=False goes\n',
    '            node.op, node.target, node.kwargs = "call_function", F.gelu, {}\n')
assert ANOTHER_EX_2A_KWARGS_WIPED != ANOTHER_EX_2A, "ANOTHER_EX_2A changed: update its kwargs-wiped twin"
# the same answer with the keyword arguments wiped: a wrong answer (defined here, after the answer it edits)
WRONG.append(
    wrong('02.relu_to_gelu', "function and method ReLUs retargeted in place to F.gelu with their keyword arguments wiped "
          "(node.kwargs = {}): torch.relu(input=x) loses its input", 'ex-2a', source=ANOTHER_EX_2A_KWARGS_WIPED,
          says='relu_to_gelu raised', hidden_says='relu_to_gelu raised'))

ANOTHER_EX_2B = '''
def relu_to_gelu_pattern(gm):
    for node in gm.graph.nodes:                       # one spelling first: torch.relu
        if node.op == "call_method" and node.target == "relu":
            node.op, node.target = "call_function", torch.relu
        elif node.op == "call_function" and node.target is F.relu:
            node.target, node.kwargs = torch.relu, {}
        elif node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.ReLU):
            node.op, node.target = "call_function", torch.relu
    gm.recompile()
    subgraph_rewriter.replace_pattern(gm, lambda v: torch.relu(v), lambda v: F.gelu(v))
    gm.recompile()
    return gm
'''

ANOTHER_EX_2C = '''
from torch.nn.utils.fusion import fuse_conv_bn_eval


def fold_conv_bn(gm):
    mods = dict(gm.named_modules())
    pairs = [(n.args[0], n) for n in gm.graph.nodes
             if n.op == "call_module" and type(mods[n.target]) is nn.BatchNorm2d and mods[n.target].track_running_stats
             and not mods[n.target].training
             and isinstance(n.args[0], fx.Node)
             and n.args[0].op == "call_module" and type(mods[n.args[0].target]) is nn.Conv2d and len(n.args[0].users) == 1]
    for i, (conv, bn) in enumerate(pairs):
        name = f"fused_conv_{i}"
        while name in mods:
            name = "_" + name
        gm.add_submodule(name, fuse_conv_bn_eval(mods[conv.target], mods[bn.target]))
        mods[name] = gm.get_submodule(name)
        conv.target = name
        bn.replace_all_uses_with(conv)
        gm.graph.erase_node(bn)
    gm.recompile()
    return gm
'''

ANOTHER_EX_2D = '''
def has_side_effects(gm, node):
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    module_inplace = node.op == "call_module" and getattr(gm.get_submodule(node.target), "inplace", False)
    in_place_name = node.op in ("call_function", "call_method") and name.endswith("_") and not name.startswith("__")
    return node.is_impure() or bool(node.kwargs.get("inplace")) or module_inplace or in_place_name


def remove_dead_code(gm):
    gm.graph.eliminate_dead_code(is_impure_node=lambda n: has_side_effects(gm, n))
    gm.recompile()
    return gm
'''

ANOTHER_EX_2E = '''
def fold_constants(gm):
    interp = fx.Interpreter(gm)
    const, mutated = {}, set()
    for node in gm.graph.nodes:                 # what an in-place call changes, and what that is a view of
        if node.op.startswith("call") and has_side_effects(gm, node):
            todo = list(node.all_input_nodes)
            while todo:
                n = todo.pop()
                if n.op != "get_attr" and n not in mutated:
                    mutated.add(n)
                    todo += n.all_input_nodes
    for node in gm.graph.nodes:
        if node.op == "get_attr" or (node.op in ("call_function", "call_method") and len(node.all_input_nodes) > 0
                                     and all(a in const for a in node.all_input_nodes) and not is_random(node)
                                     and not has_side_effects(gm, node) and node not in mutated):
            interp.env = const
            const[node] = interp.run_node(node)
    for i, (node, value) in enumerate(list(const.items())):
        if node.op == "get_attr" or not torch.is_tensor(value):
            continue
        outside = [u for u in node.users if not (u in const and torch.is_tensor(const[u]))]
        if outside:
            gm.register_buffer(f"const_{i}_{node.name}", value.detach())
            with gm.graph.inserting_after(node):
                ref = gm.graph.get_attr(f"const_{i}_{node.name}")
            for u in outside:
                u.replace_input_with(node, ref)
    return remove_dead_code(gm)
'''

ANOTHER_EX_3 = '''
def tensor_bytes(meta):
    if type(meta).__name__ == "TensorMetadata":
        return torch.empty((), dtype=meta.dtype).element_size() * int(torch.Size(meta.shape).numel())
    if isinstance(meta, dict):
        meta = list(meta.values())
    return sum(map(tensor_bytes, meta)) if isinstance(meta, (list, tuple)) else 0


def node_flops(gm, node):
    meta = node.meta.get("tensor_meta")
    if type(meta).__name__ != "TensorMetadata":
        return 0
    out = torch.Size(meta.shape).numel()
    first = lambda: node.args[0].meta["tensor_meta"].shape
    if node.op == "call_module":
        m = gm.get_submodule(node.target)
        return 2 * out * (m.in_features if isinstance(m, nn.Linear) else m.weight[0].numel() if isinstance(m, CONV_MODULES) else 0)
    if node.op == "call_method":
        return 2 * out * first()[-1] if node.target in MATMUL_METHODS else 0
    if node.target in LINEAR_FUNCTIONS | MATMUL_FUNCTIONS:
        return 2 * out * first()[-1]
    if node.target in CONV_FUNCTIONS:
        return 2 * out * torch.Size(node.args[1].meta["tensor_meta"].shape[1:]).numel()
    return 0


def node_costs(gm, example, ridge):
    with torch.no_grad():
        ShapeProp(gm).run(*example)
    out = []
    for n in filter(lambda n: n.op.startswith("call"), gm.graph.nodes):
        b = tensor_bytes(n.meta.get("tensor_meta")) + sum(tensor_bytes(i.meta.get("tensor_meta")) for i in set(n.all_input_nodes))
        if n.op == "call_module":
            b += sum(t.nbytes for t in gm.get_submodule(n.target).state_dict().values())
        f = node_flops(gm, n)
        out.append(dict(name=n.name, op=n.op, target=n.target if isinstance(n.target, str) else n.target.__name__, flops=f, bytes=b,
                        intensity=(f / b) if b else 0.0, memory_bound=(f / b if b else 0.0) < ridge))
    return out
'''

ANOTHER_EX_4A = '''
def _sites(fn, gm, ops=None):
    keep = lambda g: [n for n in g.graph.nodes if ops is None or n.op in ops]
    return len(keep(gm)) - len(keep(fn(copy.deepcopy(gm))))


class ReluToGelu(OptimizationPass):
    name = "relu_to_gelu"

    def analyze(self, gm):
        return {"matches": len([n for n in gm.graph.nodes if is_relu(gm, n)])}

    def apply(self, gm):
        return relu_to_gelu(gm)


class FoldConvBN(OptimizationPass):
    name = "fold_conv_bn"

    def analyze(self, gm):
        pairs = [n for n in gm.graph.nodes if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.BatchNorm2d)
                 and not gm.get_submodule(n.target).training and gm.get_submodule(n.target).running_mean is not None
                 and isinstance(n.args[0], fx.Node) and n.args[0].op == "call_module"
                 and isinstance(gm.get_submodule(n.args[0].target), nn.Conv2d) and len(n.args[0].users) == 1]
        return {"matches": len(pairs), "where": [n.name for n in pairs]}

    def apply(self, gm):
        return fold_conv_bn(gm)


class FoldConstants(OptimizationPass):
    name = "fold_constants"

    def analyze(self, gm):
        return {"matches": _sites(fold_constants, gm, ("call_function", "call_method"))}

    def apply(self, gm):
        return fold_constants(gm)


class DeadCode(OptimizationPass):
    name = "dce"

    def analyze(self, gm):
        return {"matches": _sites(remove_dead_code, gm)}

    def apply(self, gm):
        return remove_dead_code(gm)
'''

ANOTHER_EX_4B = '''
def run_pipeline(model, example, passes, tol=1e-4):
    work = copy.deepcopy(model)
    gm = work if isinstance(work, fx.GraphModule) else fx.symbolic_trace(work)
    with torch.no_grad():
        ref = model(*example)
    report = []
    for p in passes:
        n0 = len(list(gm.graph.nodes))
        try:
            info = p.analyze(gm)
            t0 = time.perf_counter()
            new = p.apply(gm)
            new.graph.lint()
            new.recompile()
            dt = time.perf_counter() - t0
            with torch.no_grad():
                out = new(*example)
            outs, refs = torch.utils._pytree.tree_leaves(out), torch.utils._pytree.tree_leaves(ref)
            atol = tol * max([1.0] + [r.abs().max().item() for r in refs])
            ok = len(outs) == len(refs) and all(o.shape == r.shape and torch.allclose(o, r, rtol=0, atol=atol)
                                                for o, r in zip(outs, refs))
        except Exception as e:
            raise PassVerificationError(f"{p.name}: {e!r}") from e
        err = max([0.0] + [(o - r).abs().max().item() for o, r in zip(outs, refs) if o.shape == r.shape])
        if not ok:
            raise PassVerificationError(f"{p.name} broke the outputs (max error {err})")
        gm = new
        report.append(dict(analysis=info, max_abs_diff=err, nodes_after=len(list(gm.graph.nodes)), nodes_before=n0,
                           seconds=dt, **{"pass": p.name}))
    return gm, report
'''

ANOTHER_EX_5 = '''
def check_pass(pass_fn, cases, tol=1e-5):
    out = []
    for c in cases:
        problem = ""
        try:
            g = pass_fn(fx.symbolic_trace(copy.deepcopy(c["model"])))
        except Exception as e:
            problem = "raised: " + repr(e)
        else:
            try:
                g.graph.lint()
            except Exception as e:
                problem = "lint: " + str(e)
        if not problem:
            try:
                y = g(*c["inputs"])
            except Exception as e:
                problem = "raised at run time: " + repr(e)
            else:
                if y.shape != c["expected"].shape or not torch.allclose(y, c["expected"], rtol=tol, atol=tol):
                    problem = "output differs"
        if not problem:
            before = [(n.op, str(n.target)) for n in g.graph.nodes]
            try:
                after = [(n.op, str(n.target)) for n in pass_fn(g).graph.nodes]
                if after != before:
                    problem = "idempotent? no: the graph changed"
            except Exception as e:
                problem = "idempotent? no: " + repr(e)
        out.append({"case": c["name"], "ok": not problem, "problem": problem})
    return out
'''

ANOTHER_EX_1_COMPREHENSION = '''
def graph_table(gm):
    text = lambda t: t if isinstance(t, str) else f"{t.__module__}.{t.__name__}"
    return [{"name": n.name, "op": n.op, "target": text(n.target), "inputs": [i.name for i in n.all_input_nodes],
             "users": [u.name for u in n.users]} for n in gm.graph.nodes]
'''

ANOTHER_EX_2A_TRANSFORMER = '''
def is_relu(gm, node):
    if node.op == "call_module":
        return type(gm.get_submodule(node.target)) is nn.ReLU
    name = getattr(node.target, "__name__", node.target)
    return node.op in ("call_function", "call_method") and name in ("relu", "relu_")


class _ToGelu(fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target in (torch.relu, torch.relu_, F.relu):
            return F.gelu(args[0] if args else kwargs["input"])
        return super().call_function(target, args, kwargs)

    def call_method(self, target, args, kwargs):
        if target in ("relu", "relu_"):
            return F.gelu(args[0])
        return super().call_method(target, args, kwargs)

    def call_module(self, target, args, kwargs):
        if isinstance(self.fetch_attr(target), nn.ReLU):
            return F.gelu(args[0])
        return super().call_module(target, args, kwargs)


def relu_to_gelu(gm):
    new = _ToGelu(gm).transform()
    new.graph.lint()
    new.recompile()
    return new
'''

RIGHT = [
    right('02.graph_table', 'inputs gathered with fx.node.map_arg, targets by __name__, users sorted', 'ex-1',
          source=ANOTHER_EX_1),
    right('02.relu_to_gelu', 'ReLU modules replaced by nn.GELU modules of the GraphModule, the other '
          'spellings retargeted in place', 'ex-2a', source=ANOTHER_EX_2A),
    right('02.rewriter', 'every spelling first turned into torch.relu, then one pattern', 'ex-2b', source=ANOTHER_EX_2B),
    right(('02.fold_conv_bn', '02.passes'), "torch's fuse_conv_bn_eval on the eval-mode pairs", 'ex-2c',
          source=ANOTHER_EX_2C),
    right('02.fold_conv_bn', 'the scale written as 1 / sqrt(var + eps)', 'ex-2c',
          ('torch.rsqrt(bn.running_var + bn.eps)', '1 / torch.sqrt(bn.running_var + bn.eps)')),
    right(('02.dead_code', '02.fold_constants', '02.passes'), "the library's DCE with the in-place rule as "
          'is_impure_node', 'ex-2d', source=ANOTHER_EX_2D),
    right(('02.fold_constants', '02.passes'), 'constants through fx.Interpreter, kept under names of its own '
          '(const_<i>_<node>), readers rewired one by one', 'ex-2e', source=ANOTHER_EX_2E),
    right('02.node_costs', 'sizes through torch.Size, bytes through element_size and nbytes, ShapeProp.run', 'ex-3',
          source=ANOTHER_EX_3),
    right('02.passes', 'analyze by the nodes each pass would find, or a dry run on a deep copy', 'ex-4a',
          source=ANOTHER_EX_4A),
    right('02.pipeline', 'allclose with an absolute tolerance scaled by the output, errors wrapped in one place',
          'ex-4b', source=ANOTHER_EX_4B),
    right('02.check_pass', 'problems that start with the asked word and go on in other words', 'ex-5',
          source=ANOTHER_EX_5),
    right('02.graph_table', 'inputs as the names of the Node leaves of (args, kwargs), found with pytree', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]',
           '"inputs": [a.name for a in torch.utils._pytree.tree_leaves((node.args, node.kwargs)) if isinstance(a, fx.Node)]')),
    right(('02.fold_conv_bn', '02.passes'), "the deep copy's weight scaled in place (weight.mul_ under no_grad)", 'ex-2c',
          ('folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))', 'folded.weight.mul_(s.reshape(-1, 1, 1, 1))')),
    right(('02.dead_code', '02.fold_constants'), 'one backward sweep, no loop: in graph order every user comes after what '
          'it reads, so a dead chain goes in one pass', 'ex-2d',
          ('    changed = True\n    while changed:\n        changed = False\n        for node in reversed(list(gm.graph.nodes)):',
           '    if True:\n        for node in reversed(list(gm.graph.nodes)):')),
    right(('02.fold_constants', '02.passes'), 'folded constants kept as non-persistent buffers (register_buffer(..., '
          'persistent=False))', 'ex-2e',
          ('gm.register_buffer(name, values[node].detach().clone())', 'gm.register_buffer(name, values[node].detach().clone(), persistent=False)')),
    right('02.passes', 'ReluToGelu.apply calls the pattern version, relu_to_gelu_pattern', 'ex-4a',
          ('        return relu_to_gelu(gm)\n', '        return relu_to_gelu_pattern(gm)\n')),
    right('02.check_pass', 'the deep copy taken of the traced GraphModule (copy.deepcopy(fx.symbolic_trace(model)))', 'ex-5',
          ('gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))', 'gm = pass_fn(copy.deepcopy(fx.symbolic_trace(case["model"])))')),
    right(('02.fold_conv_bn', '02.passes'), 'ConvTranspose2d → batch norm folded too, along dim 1 of its weight (where a '
          "transposed conv keeps its output channels)", 'ex-2c',
          ('isinstance(gm.get_submodule(conv_node.target), nn.Conv2d)',
           'isinstance(gm.get_submodule(conv_node.target), (nn.Conv2d, nn.ConvTranspose2d))'),
          ('folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))',
           'folded.weight = nn.Parameter(conv.weight * (s.reshape(1, -1, 1, 1) if isinstance(conv, nn.ConvTranspose2d) '
           'else s.reshape(-1, 1, 1, 1)))')),
    right('02.relu_to_gelu', 'each ReLU replaced by a call of a new nn.GELU module of its own (add_submodule, a fresh name)',
          'ex-2a',
          ('        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_function(F.gelu, (source,))\n',
           '        name = f"gelu_{node.name}"\n        gm.add_submodule(name, nn.GELU())\n'
           '        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_module(name, (source,))\n')),
    right('02.check_pass', 'outputs compared with torch.testing.assert_close(rtol=tol, atol=tol) inside try/except', 'ex-5',
          ('        if not (isinstance(got, torch.Tensor) and got.shape == case["expected"].shape\n'
           '                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)):\n'
           '            return "output: the rewritten graph computes something else"\n',
           '        try:\n            torch.testing.assert_close(got, case["expected"], rtol=tol, atol=tol)\n'
           '        except AssertionError as err:\n            return f"output: {err}"\n')),
    right(('02.dead_code', '02.fold_constants'), 'the in-place rule as a regular expression: one trailing underscore after '
          'a character that is not one', 'ex-2d',
          ('    return node.op in ("call_function", "call_method") and name.endswith("_") and not name.endswith("__")',
           '    import re\n    return node.op in ("call_function", "call_method") and re.fullmatch(r".*[^_]_", name) is not None')),
    right('02.pipeline', 'the pass timed with time.monotonic(), the verification with the largest difference in float64',
          'ex-4b',
          ('start = time.perf_counter()', 'start = time.monotonic()'),
          ('seconds = time.perf_counter() - start', 'seconds = time.monotonic() - start'),
          ('diffs = [(a - b).abs().max().item() for a, b in pairs if a.numel()]',
           'diffs = [(a.double() - b.double()).abs().max().item() for a, b in pairs if a.numel()]')),
    # a second fair-grades round
    right('02.pipeline', 'refuses when diff > tol × scale or a difference is NaN (math.isnan)', 'ex-4b',
          ('        diff = max([0.0] + diffs) if all(d == d for d in diffs) else float("nan")   # max() would skip a NaN\n'
           '        if not diff <= tol * scale:',
           '        diff = max([0.0] + diffs)\n        if any(math.isnan(d) for d in diffs) or diff > tol * scale:')),
    right('02.pipeline', 'the model traced first, then the GraphModule deep-copied (its submodules copied with it)', 'ex-4b',
          ('else fx.symbolic_trace(copy.deepcopy(model))', 'else copy.deepcopy(fx.symbolic_trace(model))')),
    right('02.pipeline', 'only p.apply(gm) timed; lint and recompile after the clock stops', 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()\n            gm.recompile()\n            seconds = time.perf_counter() - start\n',
           '            gm = p.apply(gm)\n            seconds = time.perf_counter() - start\n            gm.graph.lint()\n            gm.recompile()\n')),
    right('02.check_pass', 'the second run on a deep copy of the rewritten graph', 'ex-5',
          ('second = signature(pass_fn(gm))', 'second = signature(pass_fn(copy.deepcopy(gm)))')),
    right('02.relu_to_gelu', "F.gelu inserted after the ReLU (it reads the ReLU's input), approximate='none' spelled out",
          'ex-2a',
          ('        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_function(F.gelu, (source,))',
           '        with gm.graph.inserting_after(node):\n            gelu = gm.graph.call_function(F.gelu, (source,), {"approximate": "none"})')),
    right('02.relu_to_gelu', 'one nn.GELU module, registered once as gm.shared_gelu, called by every rewritten ReLU', 'ex-2a',
          ('        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_function(F.gelu, (source,))',
           '        if not isinstance(getattr(gm, "shared_gelu", None), nn.GELU):\n'
           '            gm.add_submodule("shared_gelu", nn.GELU())\n'
           '        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_module("shared_gelu", (source,))')),
    right('02.rewriter', 'nn.ReLU calls normalized to F.relu(x, inplace=False), which the F.relu pattern matches keyword '
          'and all', 'ex-2b',
          ('call = gm.graph.call_function(torch.relu, (node.args[0],))', 'call = gm.graph.call_function(F.relu, (node.args[0],), {"inplace": False})')),
    right(('02.fold_constants', '02.passes'), 'readers rewired with replace_all_uses_with(attr, delete_user_cb=...): only '
          'those that are not folded themselves', 'ex-2e',
          ('        node.replace_all_uses_with(attr)', '        node.replace_all_uses_with(attr, delete_user_cb=lambda user: user not in folded)')),
    right('02.node_costs', "a conv module's FLOPs from in_channels // groups × prod(kernel_size)", 'ex-3',
          ('return 2 * out * mod.weight[0].numel()', 'return 2 * out * (mod.in_channels // mod.groups) * math.prod(mod.kernel_size)')),
    right(('02.fold_conv_bn', '02.passes'), 'FoldConvBN.apply folds a deep copy and returns that new GraphModule', 'ex-4a',
          ('        return fold_conv_bn(gm)\n', '        return fold_conv_bn(copy.deepcopy(gm))\n')),
    right('02.passes', 'nodes_removed dry-runs on fx.GraphModule(gm, copy.deepcopy(gm.graph)): a new module around a copy '
          'of the graph', 'ex-4a',
          ('    return count(gm) - count(fn(copy.deepcopy(gm)))', '    return count(gm) - count(fn(fx.GraphModule(gm, copy.deepcopy(gm.graph))))')),
    # a third fair-grades round
    right('02.graph_table', "a list comprehension; a function's target as its module and name (f'{t.__module__}.{t.__name__}')",
          'ex-1', source=ANOTHER_EX_1_COMPREHENSION),
    right('02.relu_to_gelu', 'a torch.fx.Transformer that emits F.gelu for every ReLU and returns a new GraphModule; is_relu '
          "by the function's __name__", 'ex-2a', source=ANOTHER_EX_2A_TRANSFORMER),
    right('02.relu_to_gelu', 'the graph walked as it is, no list() copy (erasing the node the loop stands on is safe in FX)',
          'ex-2a',
          ('    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):', '    for node in gm.graph.nodes:\n        if not is_relu(gm, node):')),
    right('02.relu_to_gelu', "nn.ReLU modules swapped for nn.GELU on their parent in the GraphModule (setattr(gm.get_submodule("
          "owner), name, ...)): the trace holds containers of its own, not the model's", 'ex-2a',
          ('    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):\n            continue\n',
           '    for node in list(gm.graph.nodes):\n        if not is_relu(gm, node):\n            continue\n'
           '        if node.op == "call_module":\n            owner, _, attr = node.target.rpartition(".")\n'
           '            setattr(gm.get_submodule(owner), attr, nn.GELU())\n            continue\n')),
    right('02.rewriter', 'nn.ReLU calls normalized to the method x.relu(), which the method pattern then matches', 'ex-2b',
          ('call = gm.graph.call_function(torch.relu, (node.args[0],))', 'call = gm.graph.call_method("relu", (node.args[0],))')),
    right(('02.fold_conv_bn', '02.passes'), "the batch-norm node pointed at the folded conv and given the conv's input; the "
          'conv node erased', 'ex-2c',
          ('        conv_node.target = name\n        bn_node.replace_all_uses_with(conv_node)\n        gm.graph.erase_node(bn_node)\n',
           '        bn_node.target, bn_node.args, bn_node.kwargs = name, conv_node.args, conv_node.kwargs\n        gm.graph.erase_node(conv_node)\n')),
    right(('02.fold_conv_bn', '02.passes'), "the scale and bias worked out in float64, cast back to the conv's dtype", 'ex-2c',
          ('            s = torch.rsqrt(bn.running_var + bn.eps)\n', '            s = torch.rsqrt(bn.running_var.double() + bn.eps)\n'),
          ('            folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))\n'
           '            folded.bias = nn.Parameter((b - bn.running_mean) * s + shift)\n',
           '            folded.weight = nn.Parameter((conv.weight * s.reshape(-1, 1, 1, 1)).to(conv.weight.dtype))\n'
           '            folded.bias = nn.Parameter(((b - bn.running_mean) * s + shift).to(conv.weight.dtype))\n')),
    right(('02.dead_code', '02.fold_constants'), 'dead code removed by recursion: erasing a node tries its inputs next',
          'ex-2d',
          ('    changed = True\n    while changed:\n        changed = False\n        for node in reversed(list(gm.graph.nodes)):\n'
           '            if node.op not in ("placeholder", "output") and not node.users and not has_side_effects(gm, node):\n'
           '                gm.graph.erase_node(node)\n                changed = True\n',
           '    gone = set()\n\n    def drop(node):\n'
           '        if node in gone or node.op in ("placeholder", "output") or node.users or has_side_effects(gm, node):\n'
           '            return\n        inputs = node.all_input_nodes\n        gm.graph.erase_node(node)\n        gone.add(node)\n'
           '        for i in inputs:\n            drop(i)\n\n    for node in reversed(list(gm.graph.nodes)):\n        drop(node)\n')),
    right(('02.dead_code', '02.fold_constants', '02.passes'), 'remove_dead_code returns a new GraphModule built around the '
          'cleaned graph (fx.GraphModule(gm, gm.graph))', 'ex-2d',
          ('    gm.delete_all_unused_submodules()\n    gm.graph.lint()\n    gm.recompile()\n    return gm\n    ### END SOLUTION',
           '    new = fx.GraphModule(gm, gm.graph)\n    new.graph.lint()\n    return new\n    ### END SOLUTION')),
    right(('02.fold_constants', '02.passes'), "a get_attr's value found with functools.reduce(getattr, target.split('.'), gm)",
          'ex-2e',
          ('            owner, _, attr = node.target.rpartition(".")\n            values[node] = getattr(gm.get_submodule(owner) if owner else gm, attr)',
           '            values[node] = functools.reduce(getattr, node.target.split("."), gm)')),
    right('02.node_costs', "a tensor's bytes as the nbytes of an empty tensor of its shape and dtype on the meta device",
          'ex-3',
          ('return math.prod(meta.shape) * meta.dtype.itemsize', 'return torch.empty(meta.shape, dtype=meta.dtype, device="meta").nbytes')),
    right('02.node_costs', 'the FLOPs of each node measured with FlopCounterMode while an fx.Interpreter runs it', 'ex-3',
          ('def node_flops(gm, node):\n    """FLOPs of one node: matrix products and convolutions (2 per multiply-add); 0 for the rest."""\n    ### BEGIN SOLUTION\n',
           'def node_flops(gm, node):\n    """FLOPs of one node: matrix products and convolutions (2 per multiply-add); 0 for the rest."""\n'
           '    ### BEGIN SOLUTION\n    return _MEASURED.get(node, 0)\n\n\ndef _unused(gm, node):\n'),
          ('    with torch.no_grad():\n        ShapeProp(gm).propagate(*example)\n',
           '    with torch.no_grad():\n        ShapeProp(gm).propagate(*example)\n        _MEASURED.clear()\n'
           '        interp = fx.Interpreter(gm)\n        run_node = interp.run_node\n\n        def counted(n):\n'
           '            with FlopCounterMode(display=False) as counter:\n                result = run_node(n)\n'
           '            _MEASURED[n] = counter.get_total_flops() if n.op.startswith("call") else 0\n            return result\n'
           '        interp.run_node = counted\n        interp.run(*example)\n'),
          ('def tensor_bytes(meta):', '_MEASURED = {}\n\n\ndef tensor_bytes(meta):')),
    right('02.passes', 'names given in __init__; ReluToGelu.analyze with graph.find_nodes per spelling', 'ex-4a',
          ('    name = "relu_to_gelu"\n\n    def analyze(self, gm):\n        ### BEGIN SOLUTION\n'
           '        return {"matches": sum(is_relu(gm, n) for n in gm.graph.nodes)}',
           '    def __init__(self):\n        self.name = "relu_to_gelu"\n\n    def analyze(self, gm):\n        ### BEGIN SOLUTION\n'
           '        found = [*gm.graph.find_nodes(op="call_function", target=torch.relu),\n'
           '                 *gm.graph.find_nodes(op="call_function", target=F.relu),\n'
           '                 *gm.graph.find_nodes(op="call_method", target="relu"),\n'
           '                 *(n for n in gm.graph.find_nodes(op="call_module") if isinstance(gm.get_submodule(n.target), nn.ReLU))]\n'
           '        return {"matches": len(found)}')),
    right('02.passes', 'nodes_removed dry-runs the pass on a fresh trace of gm (fx.symbolic_trace(gm)), not a deep copy',
          'ex-4a',
          ('    return count(gm) - count(fn(copy.deepcopy(gm)))', '    return count(gm) - count(fn(fx.symbolic_trace(gm)))')),
    right('02.pipeline', 'each pass applied to a deep copy of the graph the previous pass left', 'ex-4b',
          ('            gm = p.apply(gm)\n            gm.graph.lint()', '            gm = p.apply(copy.deepcopy(gm))\n            gm.graph.lint()')),
    right('02.check_pass', 'the rows as one list comprehension over the verdicts', 'ex-5',
          ('    rows = []\n    for case in cases:\n        problem = verdict(case)\n'
           '        rows.append({"case": case["name"], "ok": problem == "", "problem": problem})\n    return rows\n',
           '    return [{"case": c["name"], "ok": not p, "problem": p} for c, p in ((c, verdict(c)) for c in cases)]\n')),
    # a fourth fair-grades round
    right('02.graph_table', 'inputs and users as the str() of each node (a Node prints as its name)', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes], "users": [u.name for u in node.users]',
           '"inputs": [str(n) for n in node.all_input_nodes], "users": list(map(str, node.users))')),
    right('02.relu_to_gelu', "the ReLU's input as node.all_input_nodes[0], whether given by position or keyword", 'ex-2a',
          ('source = node.args[0] if node.args else node.kwargs["input"]', 'source = node.all_input_nodes[0]')),
    right('02.relu_to_gelu', 'the GELU inserted right after the node it reads (inserting_after(source))', 'ex-2a',
          ('        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_function(F.gelu, (source,))',
           '        with gm.graph.inserting_after(source):\n            gelu = gm.graph.call_function(F.gelu, (source,))')),
    right('02.rewriter', 'the patterns applied with replace_pattern_with_filters and no filter', 'ex-2b',
          ('        subgraph_rewriter.replace_pattern(gm, pattern, gelu)',
           '        subgraph_rewriter.replace_pattern_with_filters(gm, pattern, gelu, match_filters=[])')),
    right(('02.fold_constants', '02.passes'), "a method evaluated through its unbound form, getattr(torch.Tensor, name)(*args)",
          'ex-2e',
          ('values[node] = getattr(args[0], node.target)(*args[1:], **kwargs)',
           'values[node] = getattr(torch.Tensor, node.target)(*args, **kwargs)')),
    right(('02.fold_constants', '02.passes'), 'constants computed under torch.inference_mode(), cloned into buffers outside it',
          'ex-2e',
          ('            with torch.no_grad():\n                if node.op == "call_function":',
           '            with torch.inference_mode():\n                if node.op == "call_function":')),
    right('02.node_costs', 'ShapeProp run under torch.inference_mode()', 'ex-3',
          ('    with torch.no_grad():\n        ShapeProp(gm).propagate(*example)', '    with torch.inference_mode():\n        ShapeProp(gm).propagate(*example)')),
    right('02.passes', 'FoldConvBN.analyze counts the call_module nodes the dry run removes (each fold removes its batch norm)',
          'ex-4a',
          ('return {"matches": nodes_removed(fold_conv_bn, gm)}', 'return {"matches": nodes_removed(fold_conv_bn, gm, ops=("call_module",))}')),
    right('02.pipeline', "each pass's analysis taken on a deep copy of the graph", 'ex-4b',
          ('            analysis = p.analyze(gm)', '            analysis = p.analyze(copy.deepcopy(gm))')),
    right('02.pipeline', 'the reference computed from the traced copy before any pass runs', 'ex-4b',
          ('    with torch.no_grad():\n        reference = model(*example)\n'
           '    scale = max([1.0] + [t.abs().max().item() for t in leaves(reference) if t.numel()])\n'
           '    gm = copy.deepcopy(model) if isinstance(model, fx.GraphModule) else fx.symbolic_trace(copy.deepcopy(model))\n',
           '    gm = copy.deepcopy(model) if isinstance(model, fx.GraphModule) else fx.symbolic_trace(copy.deepcopy(model))\n'
           '    with torch.no_grad():\n        reference = gm(*example)\n'
           '    scale = max([1.0] + [t.abs().max().item() for t in leaves(reference) if t.numel()])\n')),
]

# ---------------------------------------------------------------- a further round, from learners' real mistakes
WRONG += [
    wrong('02.relu_to_gelu', 'ReLUs whose input is given by keyword skipped (no node.args: "nothing to rewrite")', 'ex-2a',
          ('        source = node.args[0] if node.args else node.kwargs["input"]\n',
           '        if not node.args:\n            continue\n        source = node.args[0]\n'),
          says='relu|keyword', hidden_says='relu|keyword'),
    wrong('02.relu_to_gelu', 'stops after the first ReLU it rewrites (a return inside the loop)', 'ex-2a',
          ('        gm.graph.erase_node(node)\n    gm.delete_all_unused_submodules()',
           '        gm.graph.erase_node(node)\n        break\n    gm.delete_all_unused_submodules()'),
          says='relu', hidden_says='relu'),
    wrong('02.fold_conv_bn', "the conv's own bias left out of the fold (b taken as 0 whether the conv has a bias or not)",
          'ex-2c', ('b = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)',
                    'b = torch.zeros_like(bn.running_mean)'),
          says='bias|output|differ', hidden_says='bias|output|differ'),
    wrong('02.fold_conv_bn', "the conv found as the node before the batch norm in graph order (bn_node.prev), not its input",
          'ex-2c', ('conv_node = bn_node.args[0]\n', 'conv_node = bn_node.prev\n'),
          says='input|read|conv|output', hidden_says='input|read|conv|output'),
    wrong('02.dead_code', 'node.is_impure written without its call (a bound method is always true): nothing is ever removed',
          'ex-2d', ('if node.is_impure() or', 'if node.is_impure or'),
          says='dead|remov|kept|left', hidden_says='dead|remov|kept|left'),
    wrong('02.dead_code', "the dead nodes collected once, then erased: a node whose only readers are dead stays",
          'ex-2d', ('    changed = True\n    while changed:\n        changed = False\n        for node in reversed(list(gm.graph.nodes)):\n'
                    '            if node.op not in ("placeholder", "output") and not node.users and not has_side_effects(gm, node):\n'
                    '                gm.graph.erase_node(node)\n                changed = True\n',
                    '    dead = [node for node in gm.graph.nodes\n'
                    '            if node.op not in ("placeholder", "output") and not node.users and not has_side_effects(gm, node)]\n'
                    '    for node in dead:\n        gm.graph.erase_node(node)\n'),
          says='dead|chain|remov', hidden_says='dead|chain|remov'),
    wrong('02.fold_constants', 'random methods not tested (only the functions in RANDOM_FUNCTIONS): w.bernoulli() is folded',
          'ex-2e', ('and not is_random(node) and', 'and not (node.op == "call_function" and node.target in RANDOM_FUNCTIONS) and'),
          says='random', hidden_says='random'),
    wrong('02.fold_constants', 'only the direct inputs of an in-place call protected, not what they are views of: '
          't = w * 2; t[:2].mul_(0.5) folds t into a buffer the call then changes', 'ex-2e',
          ('            changed.add(n)\n            stack.extend(n.all_input_nodes)\n', '            changed.add(n)\n'),
          says='in.place|view|changed|buffer', hidden_says='in.place|view|changed|buffer'),
    wrong('02.fold_constants', 'call_module nodes on constants folded too: a Dropout module in training mode is frozen',
          'ex-2e', ('(node.op in ("call_function", "call_method") and node.all_input_nodes\n',
                    '(node.op in ("call_function", "call_method", "call_module") and node.all_input_nodes\n'),
          ('                if node.op == "call_function":\n                    values[node] = node.target(*args, **kwargs)\n',
           '                if node.op == "call_module":\n                    values[node] = gm.get_submodule(node.target)(*args, **kwargs)\n'
           '                elif node.op == "call_function":\n                    values[node] = node.target(*args, **kwargs)\n'),
          says='module|random|dropout', hidden_says='module|random|dropout'),
    wrong('02.node_costs', "a Linear's FLOPs from its weight's element count times the batch (shape[0]): a 3-D input "
          "loses its middle dimension", 'ex-3',
          ('            return 2 * out * mod.in_features\n',
           '            return 2 * mod.weight.numel() * meta.shape[0]\n'),
          says='flop', hidden_says='flop'),
    wrong('02.node_costs', "a module's parameters counted with parameters(recurse=False) and buffers left out", 'ex-3',
          ('moved += sum(t.numel() * t.element_size() for t in [*mod.parameters(), *mod.buffers()])',
           'moved += sum(t.numel() * t.element_size() for t in mod.parameters(recurse=False))'),
          says='bytes|buffer', hidden_says='bytes|buffer'),
    wrong('02.passes', 'analyze memoized on the pass object: a second graph gets the count of the first', 'ex-4a',
          ('        return {"matches": nodes_removed(remove_dead_code, gm)}\n',
           '        if not hasattr(self, "_matches"):\n            self._matches = nodes_removed(remove_dead_code, gm)\n'
           '        return {"matches": self._matches}\n'),
          says='sites', hidden_says='sites'),
    wrong('02.pipeline', 'the largest signed difference max(out − ref), no abs: a pass that lowers the outputs goes through',
          'ex-4b', ('diffs = [(a - b).abs().max().item() for a, b in pairs if a.numel()]',
                    'diffs = [(a - b).max().item() for a, b in pairs if a.numel()]'),
          says='refus|let .* through|chang|differ', hidden_says='refus|let .* through|chang|differ'),
    wrong('02.pipeline', "the tolerance scaled by the rewritten graph's outputs, not the reference's: a pass that blows "
          'the outputs up widens its own tolerance', 'ex-4b',
          ('        if not diff <= tol * scale:\n',
           '        scale = max([1.0] + [t.abs().max().item() for t in leaves(out) if t.numel()])\n'
           '        if not diff <= tol * scale:\n'),
          says='refus|let .* through|chang|differ|toleran', hidden_says='refus|let .* through|chang|differ|toleran'),
    wrong('02.pipeline', 'the outputs compared on the example and the reference kept from the first call: a second call '
          'with another example compares against the first', 'ex-4b',
          ('    leaves = torch.utils._pytree.tree_leaves\n    with torch.no_grad():\n        reference = model(*example)\n',
           '    leaves = torch.utils._pytree.tree_leaves\n    global _REFERENCE\n'
           '    if "_REFERENCE" not in globals():\n        with torch.no_grad():\n            _REFERENCE = model(*example)\n'
           '    reference = _REFERENCE\n'),
          says='refus|chang|differ|reference|raised|output', hidden_says='refus|chang|differ|reference|raised|output'),
    wrong('02.check_pass', 'idempotence compared as sets of (op, target): a pass that adds one more copy of a node on '
          'every run goes through', 'ex-5',
          ('        return [(n.op, str(n.target)) for n in gm.graph.nodes]\n',
           '        return {(n.op, str(n.target)) for n in gm.graph.nodes}\n'),
          says='idempot|every run', hidden_says='idempot|every run'),
    wrong('02.check_pass', 'allclose with rtol=0 (atol=tol only): a right pass that rounds on large outputs is called wrong',
          'ex-5', ('torch.allclose(got, case["expected"], rtol=tol, atol=tol)',
                   'torch.allclose(got, case["expected"], rtol=0, atol=tol)'),
          says='rtol|relative|toleran|output', hidden_says='rtol|relative|toleran|output'),
    wrong('02.check_pass', 'the rewritten graph called with the tuple of inputs as one argument (gm(case["inputs"]))', 'ex-5',
          ('got = gm(*case["inputs"])', 'got = gm(case["inputs"])'),
          says='input|raised|ok', hidden_says='input|raised|ok'),
    wrong('02.graph_table', 'inputs from node.args and the kwargs values, with lists walked but tuples not: a node inside a '
          'tuple argument is missed', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]',
           '"inputs": [a.name for v in (*node.args, *node.kwargs.values()) for a in (v if isinstance(v, list) else [v]) '
           'if isinstance(a, fx.Node)]'),
          says='inputs', hidden_says='inputs'),
    wrong('02.node_costs', "input bytes counted only for inputs made by call nodes: what a placeholder or get_attr holds "
          "is left out", 'ex-3',
          ('moved = sum(tensor_bytes(i.meta.get("tensor_meta")) for i in node.all_input_nodes)',
           'moved = sum(tensor_bytes(i.meta.get("tensor_meta")) for i in node.all_input_nodes if i.op.startswith("call"))'),
          says='bytes', hidden_says='bytes'),
    wrong('02.passes', 'ReluToGelu.analyze counts the nn.ReLU modules of gm (gm.modules()), not the ReLU nodes: the '
          'function and method spellings count 0, a module called twice once', 'ex-4a',
          ('        return {"matches": sum(is_relu(gm, n) for n in gm.graph.nodes)}\n',
           '        return {"matches": sum(isinstance(m, nn.ReLU) for m in gm.modules())}\n'),
          says='match|count|relu', hidden_says='match|count|relu'),
]

ANOTHER_EX_1_WALK = '''
def graph_table(gm):
    def nodes_in(value):
        if isinstance(value, fx.Node):
            return [value]
        if isinstance(value, (list, tuple)):
            return [n for v in value for n in nodes_in(v)]
        if isinstance(value, dict):
            return [n for v in value.values() for n in nodes_in(v)]
        if isinstance(value, slice):
            return nodes_in((value.start, value.stop, value.step))
        return []

    rows = []
    for node in gm.graph.nodes:
        t = node.target
        inputs = list(dict.fromkeys(n.name for n in nodes_in((node.args, node.kwargs))))
        rows.append({"name": node.name, "op": node.op, "target": t if isinstance(t, str) else getattr(t, "__name__", str(t)),
                     "inputs": inputs, "users": [u.name for u in node.users.keys()]})
    return rows
'''

SIDE_EFFECTS = '''
def has_side_effects(gm, node):
    if node.is_impure() or node.kwargs.get("inplace") is True:
        return True
    if node.op == "call_module":
        return getattr(gm.get_submodule(node.target), "inplace", False) is True
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    return node.op in ("call_function", "call_method") and name.endswith("_") and not name.endswith("__")
'''

MARK_AND_SWEEP = '''
def remove_dead_code(gm):
    live, stack = set(), [n for n in gm.graph.nodes
                          if n.op in ("placeholder", "output") or (n.op != "get_attr" and has_side_effects(gm, n))]
    while stack:
        n = stack.pop()
        if n not in live:
            live.add(n)
            stack.extend(n.all_input_nodes)
    for node in reversed(list(gm.graph.nodes)):
        if node not in live:
            gm.graph.erase_node(node)
    gm.delete_all_unused_submodules()
    gm.graph.lint()
    gm.recompile()
    return gm
'''

RIGHT += [
    right('02.graph_table', 'inputs found by a small recursive walk over args and kwargs (tuples, lists, dicts, slices)',
          'ex-1', source=ANOTHER_EX_1_WALK),
    right('02.relu_to_gelu', 'every ReLU node retargeted in place to F.gelu, module calls included (op, target, args)',
          'ex-2a', ('        source = node.args[0] if node.args else node.kwargs["input"]\n'
                    '        with gm.graph.inserting_before(node):\n            gelu = gm.graph.call_function(F.gelu, (source,))\n'
                    '        node.replace_all_uses_with(gelu)\n        gm.graph.erase_node(node)\n',
                    '        source = node.args[0] if node.args else node.kwargs["input"]\n'
                    '        node.op, node.target, node.args, node.kwargs = "call_function", F.gelu, (source,), {}\n')),
    right(('02.fold_conv_bn', '02.passes'), "the folded weight and bias from torch's fuse_conv_bn_weights, set on a deep copy",
          'ex-2c', ('            folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))\n'
                    '            folded.bias = nn.Parameter((b - bn.running_mean) * s + shift)\n',
                    '            folded.weight, folded.bias = torch.nn.utils.fusion.fuse_conv_bn_weights(\n'
                    '                conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)\n')),
    right(('02.dead_code', '02.fold_constants', '02.passes'), 'dead code by mark and sweep: live from the inputs, the output '
          'and the side effects backwards, the rest erased', 'ex-2d', source=SIDE_EFFECTS + MARK_AND_SWEEP),
    right('02.node_costs', "a Linear's FLOPs from its input's last dimension (tensor_meta), not in_features", 'ex-3',
          ('            return 2 * out * mod.in_features\n', '            return 2 * out * inner(0)[-1]\n')),
    right('02.pipeline', 'outputs compared with torch.testing.assert_close(rtol=0, atol=tol × scale), which checks shapes too',
          'ex-4b', ('        if not diff <= tol * scale:\n            raise',
                    '        try:\n            for a, b in pairs:\n'
                    '                torch.testing.assert_close(a, b, rtol=0, atol=tol * scale, check_dtype=False)\n'
                    '        except AssertionError:\n            raise')),
    right('02.passes', 'nodes_removed with a Counter of ops before and after the dry run', 'ex-4a',
          ('    count = lambda g: sum(ops is None or n.op in ops for n in g.graph.nodes)\n'
           '    return count(gm) - count(fn(copy.deepcopy(gm)))\n',
           '    before = Counter(n.op for n in gm.graph.nodes)\n    after = Counter(n.op for n in fn(copy.deepcopy(gm)).graph.nodes)\n'
           '    return int(sum(before[o] - after[o] for o in (ops if ops is not None else set(before) | set(after))))\n')),
    right('02.check_pass', 'idempotence by (op, target) pairs compared with the target objects themselves, not their str',
          'ex-5', ('        return [(n.op, str(n.target)) for n in gm.graph.nodes]\n',
                   '        return [(n.op, n.target) for n in gm.graph.nodes]\n')),
]

# ---------------------------------------------------------------- a fifth fair-grades round: readers by keyword or inside
# containers rewired by hand, shared modules, tuple outputs, erased nodes still read, passes that return a new module
REMOVE_DEAD_CODE = ('def remove_dead_code(gm):\n    """Erase nodes nobody reads (except those with side effects and the inputs); '
                    'lint, recompile, return gm."""\n    ### BEGIN SOLUTION\n')
SOLUTION_DCE_LOOP = ('    changed = True\n    while changed:\n        changed = False\n        for node in reversed(list(gm.graph.nodes)):\n'
                     '            if node.op not in ("placeholder", "output") and not node.users and not has_side_effects(gm, node):\n'
                     '                gm.graph.erase_node(node)\n                changed = True\n')

DCE_FROM_OUTPUT_ARG = '''    output = next(n for n in gm.graph.nodes if n.op == "output")
    live, stack = set(), [output.args[0], *(n for n in gm.graph.nodes if n.op.startswith("call") and has_side_effects(gm, n))]
    while stack:                                   # everything the result or a side effect needs is live
        n = stack.pop()
        if n not in live:
            live.add(n)
            stack.extend(n.all_input_nodes)
    for node in reversed(list(gm.graph.nodes)):
        if node.op not in ("placeholder", "output") and node not in live:
            gm.graph.erase_node(node)
'''

DCE_RECURSIVE_AFTER_ERASE = '''    def drop(node):
        if node.op in ("placeholder", "output") or node.users or has_side_effects(gm, node):
            return
        gm.graph.erase_node(node)
        for i in node.all_input_nodes:        # its inputs may be dead now
            drop(i)

    for node in list(gm.graph.nodes):
        if not getattr(node, "_erased", False):
            drop(node)
'''

DCE_SWEEP_IN_GRAPH_ORDER = '''    live, stack = set(), [n for n in gm.graph.nodes if n.op in ("placeholder", "output") or has_side_effects(gm, n)]
    while stack:
        n = stack.pop()
        if n not in live:
            live.add(n)
            stack.extend(n.all_input_nodes)
    for node in list(gm.graph.nodes):
        if node not in live:
            gm.graph.erase_node(node)
'''

WRONG += [
    wrong('02.relu_to_gelu', "each reader's positional args rewired by hand: a reader that takes the ReLU by keyword "
          "(or inside a list) still reads it, and erasing it raises", 'ex-2a',
          ('        node.replace_all_uses_with(gelu)\n',
           '        for user in list(node.users):             # point each reader at the GELU\n'
           '            user.args = tuple(gelu if a is node else a for a in user.args)\n'),
          says='keyword.*replace_all_uses_with', hidden_says='keyword.*replace_all_uses_with'),
    wrong('02.rewriter', "the nn.ReLU calls' readers rewired by hand through their positional args: a reader that takes "
          "the module's result by keyword still reads the old node", 'ex-2b',
          ('            node.replace_all_uses_with(call)\n',
           '            for user in list(node.users):\n'
           '                user.args = tuple(call if a is node else a for a in user.args)\n'),
          says='keyword.*replace_all_uses_with', hidden_says='keyword.*replace_all_uses_with'),
    wrong('02.fold_conv_bn', "the folded batch norm's module swapped for nn.Identity under its own name (as "
          "torch.ao.quantization.fuse_modules does): a batch-norm module called a second time, where nothing is folded, "
          "stops normalizing", 'ex-2c',
          ('        bn_node.replace_all_uses_with(conv_node)\n        gm.graph.erase_node(bn_node)\n',
           '        gm.add_submodule(bn_node.target, nn.Identity())     # folded: the batch norm passes values through\n'),
          says='computes something else.*called twice.*never by changing, swapping',
          hidden_says='computes something else.*called twice'),
    wrong('02.fold_conv_bn', "each folded batch norm's submodule deleted right after its fold: a batch-norm module "
          'called twice is gone before its second call', 'ex-2c',
          ('        gm.graph.erase_node(bn_node)\n',
           '        gm.graph.erase_node(bn_node)\n        gm.delete_submodule(bn_node.target)\n'),
          says='raised.*called twice.*deleting the module', hidden_says='raised.*called twice'),
    wrong('02.fold_conv_bn', "the batch norm's readers rewired by hand through their positional args: the output node, "
          'which holds it inside a tuple, still reads it', 'ex-2c',
          ('        bn_node.replace_all_uses_with(conv_node)\n',
           '        for user in list(bn_node.users):\n'
           '            user.args = tuple(conv_node if a is bn_node else a for a in user.args)\n'),
          says="raised.*output node's tuple", hidden_says="raised.*output node's tuple"),
    wrong('02.dead_code', "dead code by mark and sweep from output.args[0]: a graph that returns a tuple hands it a tuple, "
          'not a node', 'ex-2d', (REMOVE_DEAD_CODE + SOLUTION_DCE_LOOP, REMOVE_DEAD_CODE + DCE_FROM_OUTPUT_ARG),
          says=r'raised.*returns a tuple.*all_input_nodes', hidden_says=r'raised.*returns a tuple'),
    wrong('02.dead_code', "the submodule of each dead call_module deleted with it: a module also called by a live node "
          'is gone', 'ex-2d',
          ('                gm.graph.erase_node(node)\n                changed = True\n',
           '                gm.graph.erase_node(node)\n                if node.op == "call_module":\n'
           '                    gm.delete_submodule(node.target)      # the module goes with its call\n'
           '                changed = True\n'),
          says='raised.*called twice.*may still be used', hidden_says='raised.*called twice'),
    wrong('02.dead_code', "the attribute of each dead get_attr deleted with it (delattr(gm, node.target)): a dotted "
          "target (fc.weight) raises", 'ex-2d',
          ('                gm.graph.erase_node(node)\n                changed = True\n',
           '                gm.graph.erase_node(node)\n                if node.op == "get_attr":\n'
           '                    delattr(gm, node.target)               # the parameter goes with its read\n'
           '                changed = True\n'),
          says='raised.*fc.weight.*may still be used', hidden_says='raised.*may still be used'),
    wrong('02.dead_code', "a recursive DCE that reads an erased node's inputs after erasing it (erase_node clears them): "
          'a dead chain is cut at its end only', 'ex-2d', (SOLUTION_DCE_LOOP, DCE_RECURSIVE_AFTER_ERASE),
          says='second time|still there', hidden_says='second time|still there'),
    wrong('02.dead_code', 'mark and sweep with the sweep in graph order: a dead node is erased while a dead node after it '
          'still reads it', 'ex-2d', (SOLUTION_DCE_LOOP, DCE_SWEEP_IN_GRAPH_ORDER),
          says='raised', hidden_says='raised'),
    wrong('02.fold_constants', "the readers of a folded value rewired by hand through their positional args: a reader "
          'that takes it by keyword or inside a tuple keeps the computation', 'ex-2e',
          ('        node.replace_all_uses_with(attr)\n',
           '        for user in list(node.users):\n'
           '            user.args = tuple(attr if a is node else a for a in user.args)\n'),
          says='still there|buffer', hidden_says='still there|buffer'),
    wrong('02.fold_constants', "a constant's keyword arguments passed as they are (only the positional ones looked up): "
          'a constant computed with a constant keyword argument gets the Node itself', 'ex-2e',
          ('args, kwargs = fx.node.map_arg((node.args, node.kwargs), lambda n: values[n])',
           'args, kwargs = fx.node.map_arg(node.args, lambda n: values[n]), node.kwargs'),
          says='raised.*keyword.*map_arg', hidden_says='raised.*keyword'),
    wrong('02.fold_constants', 'its own dead-code step with gm.graph.eliminate_dead_code(is_impure_node=...), and no '
          'recompile after it', 'ex-2e',
          ('    return remove_dead_code(gm)', '    gm.graph.eliminate_dead_code(is_impure_node=lambda n: has_side_effects(gm, n))\n    return gm'),
          says=r'recompile', hidden_says=r'recompile'),
    wrong('02.fold_constants', "what an in-place call changes found from the in-place methods only (x.mul_()): a "
          'function that works in place on a constant (torch.sigmoid_(g)) is not seen, and g is folded into a buffer it '
          'then changes at every call', 'ex-2e',
          ('    changed, stack = set(), [i for n in gm.graph.nodes if n.op.startswith("call") and has_side_effects(gm, n)\n',
           '    changed, stack = set(), [i for n in gm.graph.nodes if n.op == "call_method" and n.target.endswith("_")\n'),
          says='called again.*function', hidden_says='called again'),
    wrong('02.fold_constants', 'the folded nodes erased directly, in graph order, instead of by dead-code elimination: a '
          'folded node is erased while another folded node still reads it', 'ex-2e',
          ('    return remove_dead_code(gm)',
           '    for node in list(gm.graph.nodes):\n        if node in folded and all(u in folded for u in node.users):\n'
           '            gm.graph.erase_node(node)\n    gm.graph.lint()\n    gm.recompile()\n    return gm'),
          says='raised', hidden_says='raised'),
    wrong('02.node_costs', "F.conv FLOPs from the input's channels × the kernel (inner(0)[1] × kernel): a grouped F.conv2d "
          'counts groups times too many', 'ex-3',
          ('        return 2 * out * math.prod(inner(1)[1:])', '        return 2 * out * inner(0)[1] * math.prod(inner(1)[2:])'),
          says='flops.*grouped', hidden_says='flops.*grouped'),
    wrong('02.check_pass', "shapes compared by len() (the first dimension): a pass that adds a leading dimension of 1 to "
          'an output whose first dimension is 1 goes through', 'ex-5',
          ('got.shape == case["expected"].shape', 'len(got) == len(case["expected"])'),
          says=r'let .* through.*whole shape', hidden_says=r'let .* through'),
    wrong('02.check_pass', "the pass's return value ignored (pass_fn(gm) as if it always changed gm in place): a pass that "
          'returns a new GraphModule is judged on the graph it was given', 'ex-5',
          ('            gm = pass_fn(fx.symbolic_trace(copy.deepcopy(case["model"])))\n',
           '            gm = fx.symbolic_trace(copy.deepcopy(case["model"]))\n            pass_fn(gm)\n'),
          says=r'new GraphModule.*gm = pass_fn', hidden_says=r'new GraphModule'),
    wrong('02.check_pass', 'values compared before shapes (allclose first): a pass whose output does not broadcast with '
          'the expected one makes torch.allclose raise, and check_pass with it', 'ex-5',
          ('        if not (isinstance(got, torch.Tensor) and got.shape == case["expected"].shape\n'
           '                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)):\n',
           '        if not (isinstance(got, torch.Tensor) and torch.allclose(got, case["expected"], rtol=tol, atol=tol)\n'
           '                and got.shape == case["expected"].shape):\n'),
          says='itself raised.*before the values', hidden_says='itself raised.*before the values'),
    wrong('02.check_pass', "check_pass's default tol copied from run_pipeline (1e-4): a pass off by 1e-4 of each value "
          'goes through', 'ex-5',
          ('def check_pass(pass_fn, cases, tol=1e-5):', 'def check_pass(pass_fn, cases, tol=1e-4):'),
          says='let .* through', hidden_says='let .* through'),
]

RIGHT += [
    right('02.relu_to_gelu', "each reader rewired with user.replace_input_with(node, gelu), which looks in its kwargs "
          'and nested lists too', 'ex-2a',
          ('        node.replace_all_uses_with(gelu)\n',
           '        for user in list(node.users):\n            user.replace_input_with(node, gelu)\n')),
    right('02.rewriter', 'the three patterns and the replacement written as lambdas', 'ex-2b',
          ('    for pattern in (as_function, as_functional, as_method):\n        subgraph_rewriter.replace_pattern(gm, pattern, gelu)\n',
           '    for pattern in (lambda x: torch.relu(x), lambda x: F.relu(x), lambda x: x.relu()):\n'
           '        subgraph_rewriter.replace_pattern(gm, pattern, lambda x: F.gelu(x))\n')),
    right('02.fold_conv_bn', 'the folded conv set with setattr(gm, name, folded), its name from a counter',
          'ex-2c',
          ('        name = conv_node.target.replace(".", "_") + "_folded"\n        while hasattr(gm, name):\n'
           '            name += "_"\n        gm.add_submodule(name, folded)\n',
           '        k = 0\n        while hasattr(gm, f"folded_conv_{k}"):\n            k += 1\n        name = f"folded_conv_{k}"\n'
           '        setattr(gm, name, folded)\n')),
    right('02.dead_code', 'sweeps over reversed(gm.graph.nodes) itself (no list copy), repeated until '
          'one erases nothing', 'ex-2d',
          ('        for node in reversed(list(gm.graph.nodes)):\n', '        for node in reversed(gm.graph.nodes):\n')),
    right('02.dead_code', "a worklist: the nodes nobody reads, and each erased node's "
          'inputs (taken before the erase) tried again', 'ex-2d',
          (SOLUTION_DCE_LOOP,
           '    work = [n for n in gm.graph.nodes if not n.users]\n    while work:\n        node = work.pop()\n'
           '        if node.op in ("placeholder", "output") or node.users or has_side_effects(gm, node) or node.graph is None:\n'
           '            continue\n        inputs = node.all_input_nodes\n        gm.graph.erase_node(node)\n'
           '        work.extend(i for i in inputs if not i.users)\n')),
    right('02.fold_constants', 'each reader of a folded value rewired with user.replace_input_with(node, attr)',
          'ex-2e',
          ('        node.replace_all_uses_with(attr)\n',
           '        for user in list(node.users):\n            if user is not attr:\n                user.replace_input_with(node, attr)\n')),
    right('02.node_costs', "F.conv FLOPs from the weight's in-channels × its kernel (weight.shape[1] × prod(shape[2:]))",
          'ex-3',
          ('        return 2 * out * math.prod(inner(1)[1:])', '        w = inner(1)\n        return 2 * out * w[1] * math.prod(w[2:])')),
    right('02.check_pass', 'shapes compared with .size(), values with torch.isclose(...).all()', 'ex-5',
          ('got.shape == case["expected"].shape\n                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)',
           'got.size() == case["expected"].size()\n'
           '                and bool(torch.isclose(got, case["expected"], rtol=tol, atol=tol).all())')),
    right('02.pipeline', 'outputs flattened by a small recursive function over tuples, lists and dicts, not pytree', 'ex-4b',
          ('    leaves = torch.utils._pytree.tree_leaves\n',
           '    def leaves(v):\n        if isinstance(v, torch.Tensor):\n            return [v]\n'
           '        if isinstance(v, dict):\n            v = list(v.values())\n'
           '        return [t for item in v for t in leaves(item)] if isinstance(v, (tuple, list)) else []\n')),
    right('02.graph_table', 'inputs collected with fx.node.map_arg over (args, kwargs), duplicates kept', 'ex-1',
          ('"inputs": [n.name for n in node.all_input_nodes]',
           '"inputs": (lambda found: (fx.node.map_arg((node.args, node.kwargs), lambda n: found.append(n.name)), found)[1])([])')),
]

# Round 3: a trailing underscore on a module or parameter name, tol=0, nested outputs, the caller's model's mode,
# nodes_removed on a pass that returns a new GraphModule, FLOPs as floats, idempotence by str(graph).
WRONG += [
    # ---- fold_conv_bn
    wrong('02.fold_conv_bn', "the folded weight set on the model's own conv (conv.weight = nn.Parameter(...)): rebinding the shared module's parameter changes the model", 'ex-2c',
          ('        folded = copy.deepcopy(conv)\n', '        folded = conv\n'),
          says='original model'),
    wrong('02.fold_conv_bn', 'the folded conv added as a new node that reads the conv\'s input; the old conv node left in the graph, dead', 'ex-2c',
          ('        conv_node.target = name\n        bn_node.replace_all_uses_with(conv_node)\n        gm.graph.erase_node(bn_node)\n',
           '        with gm.graph.inserting_before(bn_node):\n            new = gm.graph.call_module(name, conv_node.args, conv_node.kwargs)\n'
           '        bn_node.replace_all_uses_with(new)\n        gm.graph.erase_node(bn_node)\n'),
          says='conv|dead|node'),
    # ---- dead_code
    wrong('02.dead_code', "the trailing-underscore rule applied to every string target, whatever node.op: a dead call of a submodule named 'in_' is kept", 'ex-2d',
          ('    if node.op == "call_module":\n        return getattr(gm.get_submodule(node.target), "inplace", False) is True\n    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")\n    return node.op in ("call_function", "call_method") and name.endswith("_") and not name.endswith("__")\n',
           '    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")\n'
           '    if name.endswith("_") and not name.endswith("__"):\n        return True\n'
           '    if node.op == "call_module":\n        return getattr(gm.get_submodule(node.target), "inplace", False) is True\n    return False\n'),
          says='trailing underscore'),
    # ---- passes
    wrong('02.passes', "nodes_removed counts the deep copy after the pass, ignoring what the pass returned: a pass that returns a new GraphModule shows 0", 'ex-4a',
          ('    return count(gm) - count(fn(copy.deepcopy(gm)))\n',
           '    dry = copy.deepcopy(gm)\n    fn(dry)\n    return count(gm) - count(dry)\n'),
          says='returns a new GraphModule'),
    # ---- pipeline
    wrong('02.pipeline', 'refuses when diff >= tol × scale: with tol=0 a pass that changes nothing is refused', 'ex-4b',
          ('        if not diff <= tol * scale:\n', '        if not diff < tol * scale:\n'),
          says='tol=0|bit for bit'),
    wrong('02.pipeline', "model.eval() called on the caller's model before the reference 'to be sure': a module left in training mode is switched to eval", 'ex-4b',
          ('    with torch.no_grad():\n        reference = model(*example)\n',
           '    model.eval()\n    with torch.no_grad():\n        reference = model(*example)\n'),
          says='mode'),
    wrong('02.pipeline', 'outputs flattened one level (a tuple of tensors): a nested tuple output compares a tuple with .shape', 'ex-4b',
          ('    leaves = torch.utils._pytree.tree_leaves\n',
           '    leaves = lambda out: list(out) if isinstance(out, (tuple, list)) else [out]\n'),
          says='nests a tuple|flatten'),
    # ---- node_costs
    wrong('02.node_costs', 'FLOPs as floats (2.0 × ...) instead of integers', 'ex-3',
          ('        flops = node_flops(gm, node)\n', '        flops = float(node_flops(gm, node))\n'),
          says='int'),
    # ---- check_pass
    wrong('02.check_pass', 'idempotence judged by str(gm.graph), which names each node: a pass that rebuilds the same nodes under new names is called not idempotent', 'ex-5',
          ('    def signature(gm):\n        return [(n.op, str(n.target)) for n in gm.graph.nodes]\n',
           '    def signature(gm):\n        return str(gm.graph)\n'),
          says='idempotent'),
    wrong('02.rewriter', 'the method pattern written as torch.Tensor.relu(x): it traces as a call_function, so x.relu() is never matched', 'ex-2b',
          ('    def as_method(x):\n        return x.relu()\n', '    def as_method(x):\n        return torch.Tensor.relu(x)\n'),
          says='relu_to_gelu_pattern raised'),
    wrong('02.fold_conv_bn', 'the conv found by comparing conv_node.users with {bn_node} (a dict of users is never equal to a set): nothing is folded', 'ex-2c',
          ('and len(conv_node.users) == 1):', 'and conv_node.users == {bn_node}):'),
          says='batch norm|fold'),
    wrong('02.pipeline', "the caller's model put in eval mode by tracing model.eval() (it returns the model itself, not a copy)", 'ex-4b',
          ('fx.symbolic_trace(copy.deepcopy(model))', 'fx.symbolic_trace(copy.deepcopy(model.eval()))'),
          says='mode'),
]

RIGHT += [
    right('02.graph_table', "a function's target as torch.typename(target) ('torch.nn.functional.relu')", 'ex-1',
          ('fx.node._get_qualified_name(node.target)', 'torch.typename(node.target)')),
    right('02.pipeline', 'outputs flattened with tree_flatten, the structures (treespecs) compared as well as the shapes', 'ex-4b',
          ('        pairs = list(zip(leaves(out), leaves(reference)))\n        if len(leaves(out)) != len(leaves(reference)) or any(a.shape != b.shape for a, b in pairs):\n',
           '        (got, got_spec), (ref, ref_spec) = torch.utils._pytree.tree_flatten(out), torch.utils._pytree.tree_flatten(reference)\n'
           '        pairs = list(zip(got, ref))\n        if got_spec != ref_spec or any(a.shape != b.shape for a, b in pairs):\n')),
    right('02.pipeline', "the reference computed on a deep copy of the model, the caller's model never called", 'ex-4b',
          ('    with torch.no_grad():\n        reference = model(*example)\n',
           '    with torch.no_grad():\n        reference = copy.deepcopy(model)(*example)\n')),
    right('02.node_costs', 'FLOPs and bytes cast with int() at the end, intensity as a plain division', 'ex-3',
          ('        flops = node_flops(gm, node)\n', '        flops, moved = int(float(node_flops(gm, node))), int(moved)\n')),
    right('02.dead_code', 'the in-place rule asked only of call_function and call_method targets, tested by name[-1] and name[-2]', 'ex-2d',
          ('    return node.op in ("call_function", "call_method") and name.endswith("_") and not name.endswith("__")\n',
           '    if node.op not in ("call_function", "call_method") or len(name) < 2:\n        return False\n    return name[-1] == "_" and name[-2] != "_"\n')),
]

# Round 4: autograd and inference mode around a pass, a fold generalized past Conv2d, grouped convs, pairs skipped for a
# missing bias or affine, a fold never pointed at, impure random calls on constants, mark and sweep from the output
# only, views and units in the byte count, negative outputs, a failing pass named by the one before, problem '' when ok.
DCE_FROM_OUTPUT = ('    live, stack = set(), [n for n in gm.graph.nodes if n.op == "output"]\n'
                   '    while stack:                               # everything the output reads, directly or not, is live\n'
                   '        n = stack.pop()\n        if n not in live:\n            live.add(n)\n'
                   '            stack.extend(n.all_input_nodes)\n'
                   '    for node in reversed(list(gm.graph.nodes)):\n'
                   '        if node not in live and node.op != "placeholder" and not has_side_effects(gm, node):\n'
                   '            gm.graph.erase_node(node)\n')

WRONG += [
    # ---- fold_conv_bn
    wrong('02.fold_conv_bn', 'generalized to every dimension (any _BatchNorm after a Conv1d, Conv2d or Conv3d) with the '
          'scale still reshaped to (-1, 1, 1, 1): a Conv1d\'s 3-D weight broadcasts into a 4-D one', 'ex-2c',
          ('isinstance(gm.get_submodule(bn_node.target), nn.BatchNorm2d)',
           'isinstance(gm.get_submodule(bn_node.target), nn.modules.batchnorm._BatchNorm)'),
          ('isinstance(gm.get_submodule(conv_node.target), nn.Conv2d)',
           'isinstance(gm.get_submodule(conv_node.target), (nn.Conv1d, nn.Conv2d, nn.Conv3d))'),
          says=r"weight's own number of dimensions", hidden_says=r"weight's own number of dimensions"),
    wrong('02.fold_conv_bn', "the folded weight scaled in place on the deep copy with autograd on (no torch.no_grad()): "
          'fold_conv_bn raises when it is called outside no_grad, as a pipeline calls it', 'ex-2c',
          ('        with torch.no_grad():\n            s = torch.rsqrt', '        with contextlib.nullcontext():\n            s = torch.rsqrt'),
          ('            folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))\n',
           '            folded.weight.mul_(s.reshape(-1, 1, 1, 1))\n'),
          says=r'autograd on.*no_grad', hidden_says=r'autograd on.*no_grad'),
    wrong('02.fold_conv_bn', 'the fold computed under torch.inference_mode() "because it is faster than no_grad": the '
          'folded weights are inference tensors, and any call of the folded model with autograd on raises', 'ex-2c',
          ('        with torch.no_grad():\n            s = torch.rsqrt', '        with torch.inference_mode():\n            s = torch.rsqrt'),
          says='inference_mode', hidden_says='inference_mode'),
    wrong('02.fold_conv_bn', 'the scale expanded to (out_channels, in_channels, *kernel_size): a grouped conv holds '
          'in_channels / groups channels per filter, so its folded weight has the wrong shape', 'ex-2c',
          ('folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1))',
           'folded.weight = nn.Parameter(conv.weight * s.reshape(-1, 1, 1, 1).expand(conv.out_channels, conv.in_channels, *conv.kernel_size))'),
          says='grouped', hidden_says='grouped'),
    wrong('02.fold_conv_bn', 'the folded conv registered, the batch norm erased, but the conv node never pointed at the '
          'folded conv: the graph still calls the original conv', 'ex-2c',
          ('        conv_node.target = name\n', ''),
          says=r'still calls.*node\.target', hidden_says=r'still calls.*node\.target'),
    wrong('02.fold_conv_bn', 'batch norms with affine=False skipped (no weight and bias to fold): a foldable pair is left',
          'ex-2c',
          ('            continue                                  # batch statistics: not a fixed map\n',
           '            continue                                  # batch statistics: not a fixed map\n'
           '        if not bn.affine:\n            continue\n'),
          says='affine', hidden_says='affine'),
    wrong('02.fold_conv_bn', 'convs without a bias skipped (no bias to fold into): a foldable pair is left', 'ex-2c',
          ('            continue                                  # batch statistics: not a fixed map\n',
           '            continue                                  # batch statistics: not a fixed map\n'
           '        if conv.bias is None:\n            continue\n'),
          says='without a bias', hidden_says='without a bias'),
    # ---- fold_constants
    wrong('02.fold_constants', 'the whole pass decorated with @torch.inference_mode() "to be faster": the buffers it keeps '
          'are inference tensors, which a backward through the folded model cannot use', 'ex-2e',
          ('def fold_constants(gm):\n', '@torch.inference_mode()\ndef fold_constants(gm):\n'),
          says='inference_mode', hidden_says='inference_mode'),
    wrong('02.fold_constants', 'random calls judged by is_random alone (has_side_effects not asked): torch.poisson(p), which '
          'node.is_impure() knows to be random and the lists do not hold, is folded and its one sample frozen', 'ex-2e',
          ('and not is_random(node) and not has_side_effects(gm, node)', 'and not is_random(node)'),
          says=r'is_impure', hidden_says=r'is_impure'),
    # ---- dead_code
    wrong('02.dead_code', 'mark and sweep from the output only, calls with side effects kept but not marked live: what '
          'such a call reads (the condition of a torch._assert) is erased under it', 'ex-2d',
          (SOLUTION_DCE_LOOP, DCE_FROM_OUTPUT),
          says=r'still read', hidden_says=r'still read'),
    # ---- node_costs
    wrong('02.node_costs', 'views and reshapes (flatten, view, transpose, getitem ...) counted as 0 bytes, as a real '
          'compiler would: the rule counts every call node', 'ex-3',
          ('        flops = node_flops(gm, node)\n',
           '        if getattr(node.target, "__name__", node.target) in ("view", "reshape", "flatten", "transpose", "permute", '
           '"getitem", "unsqueeze", "squeeze", "t"):\n            moved = 0      # a view moves nothing\n'
           '        flops = node_flops(gm, node)\n'),
          says='views', hidden_says='views'),
    wrong('02.node_costs', 'a batched matrix product counted for one batch element (2·M·N·K from the last two '
          'dimensions of its operands)', 'ex-3',
          ('        return 2 * out * inner(0)[-1]\n    if node.op == "call_function" and node.target in CONV_FUNCTIONS',
           '        a, b = inner(0), inner(1)\n        return 2 * a[-2] * b[-1] * a[-1]\n'
           '    if node.op == "call_function" and node.target in CONV_FUNCTIONS'),
          says='output elements', hidden_says='output elements'),
    wrong('02.node_costs', 'bytes reported in kilobytes (÷ 1000, easier to read), intensity computed from them', 'ex-3',
          ('        flops = node_flops(gm, node)\n', '        moved = moved // 1000\n        flops = node_flops(gm, node)\n'),
          says='kB', hidden_says='kB'),
    wrong('02.node_costs', 'bytes counted as elements (math.prod of the shape, no itemsize)', 'ex-3',
          ('        return math.prod(meta.shape) * meta.dtype.itemsize\n', '        return math.prod(meta.shape)\n'),
          ('            moved += sum(t.numel() * t.element_size() for t in', '            moved += sum(t.numel() for t in'),
          says='itemsize', hidden_says='itemsize'),
    # ---- pipeline
    wrong('02.pipeline', "the tolerance's scale from max(ref), not max |ref|: outputs that are large and negative get "
          'the floor of 1', 'ex-4b',
          ('[t.abs().max().item() for t in leaves(reference)', '[t.max().item() for t in leaves(reference)'),
          says='negative', hidden_says='negative'),
    wrong('02.pipeline', 'outputs compared with torch.allclose(rtol=tol, atol=tol × scale): the rtol on top lets a large '
          'element drift by up to twice the tolerance', 'ex-4b',
          ('        if not diff <= tol * scale:\n',
           '        if not all(torch.allclose(a, b, rtol=tol, atol=tol * scale) for a, b in pairs):\n'),
          says='went through', hidden_says='went through'),
    wrong('02.pipeline', 'PassVerificationError names the last pass that passed ("broke after ..."), not the one that '
          'failed: a first pass that fails is named as "the start"', 'ex-4b',
          ('        before = len(gm.graph.nodes)\n',
           '        before = len(gm.graph.nodes)\n        last_good = report[-1]["pass"] if report else "the start"\n'),
          ('f"pass {p.name!r}', 'f"the outputs broke after {last_good!r}'),
          says='does not name that pass', hidden_says='does not name that pass'),
    # ---- check_pass
    wrong('02.check_pass', "problem 'ok' for a case that passes, not ''", 'ex-5',
          ('"problem": problem})', '"problem": problem or "ok"})'),
          says="problem should be ''", hidden_says="problem should be ''"),
    wrong('02.check_pass', "a shape that differs reported as 'shape: ...', not 'output'", 'ex-5',
          ('        if not (isinstance(got, torch.Tensor) and got.shape',
           '        if isinstance(got, torch.Tensor) and got.shape != case["expected"].shape:\n'
           '            return f"shape: {tuple(got.shape)} instead of {tuple(case[\'expected\'].shape)}"\n'
           '        if not (isinstance(got, torch.Tensor) and got.shape'),
          says="should start with 'output'", hidden_says="should start with 'output'"),
    wrong('02.check_pass', 'the values compared only where the shapes agree: a shape that differs skips the comparison',
          'ex-5',
          ('        if not (isinstance(got, torch.Tensor) and got.shape == case["expected"].shape\n'
           '                and torch.allclose(got, case["expected"], rtol=tol, atol=tol)):\n',
           '        if isinstance(got, torch.Tensor) and got.shape == case["expected"].shape \\\n'
           '                and not torch.allclose(got, case["expected"], rtol=tol, atol=tol):\n'),
          says='let .* through', hidden_says='let .* through'),
]

RIGHT += [
    right('02.fold_conv_bn', 'generalized to Conv1d/2d/3d → BatchNorm1d/2d/3d, the scale shaped to the weight\'s own '
          'number of dimensions', 'ex-2c',
          ('isinstance(gm.get_submodule(bn_node.target), nn.BatchNorm2d)',
           'isinstance(gm.get_submodule(bn_node.target), nn.modules.batchnorm._BatchNorm)'),
          ('isinstance(gm.get_submodule(conv_node.target), nn.Conv2d)',
           'isinstance(gm.get_submodule(conv_node.target), (nn.Conv1d, nn.Conv2d, nn.Conv3d))'),
          ('s.reshape(-1, 1, 1, 1)', 's.reshape(-1, *[1] * (conv.weight.dim() - 1))')),
    right('02.fold_constants', 'an in-place call protects only the tensor it changes (its first argument) and what that '
          'is a view of, not its other arguments', 'ex-2e',
          ('                             for i in n.all_input_nodes]\n',
           '                             for i in n.all_input_nodes[:1]]\n')),
]
