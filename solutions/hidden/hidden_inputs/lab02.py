"""Lab 02: what the grader asks the learner's functions to work on, inside the job.

The models of the hidden cases (instances travel pickled, weights included, and the job unpickles them from
here), the grader's passes that break a pipeline, and another gallery's models and broken passes for the
edge-case harness. No expected answers: those stay in solutions/hidden/lab02.py.
"""

import operator

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F

from helpers.checks.lab02 import GraderPass, HandBuilt


# ---------------------------------------------------------------- 1: the graph as a table
class HTable(nn.Module):
    """Nested submodules, a keyword input, inputs in a tuple, two outputs."""

    def __init__(self):
        super().__init__()
        self.sub = nn.Sequential(nn.Linear(5, 5), nn.Tanh())
        self.gain = nn.Parameter(torch.ones(5))

    def forward(self, x, y, z):
        a = self.sub(x)
        b = torch.add(a, other=y)
        c = torch.stack((b, z * self.gain))
        return c.max(dim=0).values, a


# ---------------------------------------------------------------- 2: rewrites
class HRelu(nn.Module):
    """One nn.ReLU module called twice, ReLUs after two-input ops, a ReLU two Sequentials deep, one read three times."""

    def __init__(self, gelu=False):
        super().__init__()
        self.gelu = gelu
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)
        self.act = nn.GELU() if gelu else nn.ReLU()
        self.deep = nn.Sequential(nn.Sequential(nn.Linear(6, 6), nn.GELU() if gelu else nn.ReLU()))

    def forward(self, x, y):
        h = self.act(self.a(x)) + self.act(self.b(y))
        r = F.gelu(h * y) if self.gelu else F.relu(h * y)
        s = F.gelu(self.deep(r)) if self.gelu else self.deep(r).relu()
        t = F.gelu(s - x) if self.gelu else torch.relu(s - x)
        return t * r + r.mean() - r.abs()


class HNoAct(nn.Module):
    """No activation at all."""

    def __init__(self, gelu=False):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).tanh()


class HLookalikes(nn.Module):
    """Activations named like ReLU that are not ReLU (nn.RReLU in eval, F.relu6, F.leaky_relu, nn.LeakyReLU), one F.relu."""

    def __init__(self, gelu=False):
        super().__init__()
        self.gelu = gelu
        self.rrelu = nn.RReLU(0.1, 0.3)
        self.leaky = nn.LeakyReLU(0.05)

    def forward(self, x):
        a = self.rrelu(x) * F.relu6(3 * x) - F.leaky_relu(x, 0.3) + self.leaky(2 * x)
        return F.gelu(a + 0.5) if self.gelu else F.relu(a + 0.5)


class HSingle(nn.Module):
    """A graph whose only op is x.relu()."""

    def __init__(self, gelu=False):
        super().__init__()
        self.gelu = gelu

    def forward(self, x):
        return F.gelu(x) if self.gelu else x.relu()


class HFold(nn.Module):
    """A conv called twice (each call with its own batch norm), grouped, strided and dilated convs, a batch norm
    without affine parameters, a conv read twice, a batch norm after a ReLU."""

    def __init__(self):
        super().__init__()
        self.shared = nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False)
        self.bn_a = nn.BatchNorm2d(4, eps=1e-3)
        self.bn_b = nn.BatchNorm2d(4, affine=False)
        self.down = nn.Conv2d(4, 6, 3, stride=2, dilation=2)
        self.bn_d = nn.BatchNorm2d(6)
        self.tap = nn.Conv2d(6, 6, 1)
        self.bn_t = nn.BatchNorm2d(6)
        self.bn_late = nn.BatchNorm2d(6)

    def forward(self, x):
        a = self.bn_a(self.shared(x))
        b = self.bn_b(self.shared(a))
        d = self.bn_d(self.down(b))
        t = self.tap(d)
        u = self.bn_t(t) * t.sigmoid()
        return self.bn_late(F.relu(u))


class HSmallVar(nn.Module):
    """Two foldable pairs (a depthwise conv among them) whose batch norms have a large eps and variances of its order."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 5, 3, padding=1)
        self.b1 = nn.BatchNorm2d(5)
        self.c2 = nn.Conv2d(5, 5, 3, padding=1, groups=5, bias=False)
        self.b2 = nn.BatchNorm2d(5)

    def forward(self, x):
        a = self.b1(self.c1(x))
        return a * 0.5 + self.b2(self.c2(a))


class HBatchStats(nn.Module):
    """A strided conv into a batch norm that keeps no running statistics, then a foldable pair."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 3, 3, stride=2)
        self.b1 = nn.BatchNorm2d(3, track_running_stats=False)
        self.c2 = nn.Conv2d(3, 3, 1)
        self.b2 = nn.BatchNorm2d(3)

    def forward(self, x):
        return self.b2(self.c2(self.b1(self.c1(x))))


class HStaysTraining(nn.Module):
    """A strided conv into a batch norm that eval() leaves in training mode, a ReLU, then a foldable pair."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 3, stride=2)
        self.b1 = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 4, 1)
        self.b2 = nn.BatchNorm2d(4)

    def train(self, mode=True):
        super().train(mode)
        self.b1.train(True)
        return self

    def forward(self, x):
        return self.b2(self.c2(F.relu(self.b1(self.c1(x)))))


class HSquares(nn.Module):
    """In bfloat16: a depthwise conv, x * x and a sum of a tensor with itself (one input node read twice each)."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(3, 6, 3, groups=3)

    def forward(self, x):
        h = self.dw(x)
        return torch.add(h * h, h).sum(dim=1)


class HOnlyBN(nn.Module):
    """One batch norm, no conv."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(x)


class HIdentity(nn.Module):
    """The empty graph."""

    def forward(self, x):
        return x


class HDunders(HandBuilt):
    """Unread dunder calls (__sub__, __truediv__, __neg__) around an in-place add_ and a live sigmoid, built by hand."""

    def forward(self, x):
        y = x.clone()
        y.add_(0.5)
        return y.sigmoid()

    def graph_module(self) -> fx.GraphModule:
        g = fx.Graph()
        x = g.placeholder("x")
        g.call_method("__neg__", (g.call_method("__truediv__", (g.call_method("__sub__", (x, 1)), 3)),))
        y = g.call_method("clone", (x,))
        g.call_method("add_", (y, 0.5))
        g.output(g.call_method("sigmoid", (y,)))
        return fx.GraphModule(nn.Module(), g)


class HDead(nn.Module):
    """A dead chain through a module and a parameter, in-place ops written as functions, with inplace=True and as
    in-place modules, torch._assert and torch._assert_async, an unused input."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)
        self.clip = nn.Hardtanh(-0.5, 0.5, inplace=True)
        self.swish = nn.Hardswish(inplace=True)
        self.g = nn.Parameter(torch.ones(5))

    def forward(self, x, y, unused):
        a = x + y
        b = a * 2
        torch.relu_(b)
        c = y.clone()
        F.relu(c, inplace=True)
        self.clip(c)
        torch.clamp_(c, max=0.4)
        self.swish(b)
        torch._assert(b.min() >= 0, "relu_ leaves no negative value")
        torch._assert_async(b.max() < 1e4)
        dead = self.lin(a)
        dead2 = dead.exp() + a * self.g  # noqa: F841 (dead code, on purpose)
        d = a.mean()  # noqa: F841 (dead code, on purpose)
        return b + c


class HConst(nn.Module):
    """Constants through a functional call with a keyword, a list input, views and reductions, an int from .size(), a
    node named `cpu` (like nn.Module.cpu); a random op."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 5))
        self.v = nn.Parameter(torch.randn(5))

    def forward(self, x):
        m = F.normalize(self.w, dim=0).t().cpu()
        bias = torch.cat([self.v, self.v.flip(0)]).view(2, 5).sum(0)
        noise = F.dropout(self.v, p=0.5, training=True) * 0.0
        h = x.view(-1, self.v.size(0)) @ m
        return h.sum(-1, keepdim=True) + (bias + noise)


class HConstParts(nn.Module):
    """A constant from a parameter two submodules deep, a parameter through .cpu() (which returns it unchanged),
    constants computed through a split (a tuple) and a .size() (an int), an in-place mul_ on a live value, its result
    unread."""

    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(5, 3))
        self.s = nn.Parameter(torch.randn(3))

    def forward(self, x):
        y = x - 1
        y.mul_(0.5)
        rows = self.head[0].weight.split(1, dim=0)
        extra = (rows[0] * rows[2]).mean() + self.s.reshape(self.head[0].weight.size(0), 1)[:, 0]
        return y @ self.head[0].weight.t().sigmoid() + self.s.cpu() + extra


# ---------------------------------------------------------------- 3: shapes and cost
class HCost(nn.Module):
    """A grouped strided conv, a batch norm, F.conv2d with a parameter, a split into a tuple, batched matmuls (a method
    and a function), a Linear on 3-D input, a broadcast add."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=2)
        self.bn = nn.BatchNorm2d(8)
        self.k = nn.Parameter(torch.randn(6, 8, 1, 1))
        self.fc = nn.Linear(16, 12)
        self.bias = nn.Parameter(torch.randn(12))

    def forward(self, x, q):
        h = F.conv2d(self.bn(self.conv(x)), self.k)
        a, b = h.flatten(2).split(8, dim=-1)
        s = a.matmul(b.transpose(1, 2))
        z = self.fc(q)
        return torch.bmm(s, z) + self.bias


class HSeqCost(nn.Module):
    """A strided grouped Conv1d, F.conv1d with a parameter, torch.cat of a list holding one node twice, torch.sub with
    a keyword input, the methods x.bmm(y) and x.mm(w)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, stride=2, groups=2)
        self.k = nn.Parameter(torch.randn(2, 6, 1))
        self.w = nn.Parameter(torch.randn(16, 3))

    def forward(self, x, y):
        h = F.conv1d(self.conv(x), self.k)
        c = torch.cat([h, y, h], dim=1)
        d = torch.sub(c, other=y.mean())
        return d.transpose(1, 2).bmm(d).flatten(1).mm(self.w)


# ---------------------------------------------------------------- 4: the pipeline
class HPipe(nn.Module):
    """Three ReLU spellings, two foldable pairs, a batch norm after a ReLU and a conv → batch norm whose conv is read
    again, an in-place call whose result is unread, a dead chain of modules, constants from a parameter; two outputs."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 4, 3, padding=1)
        self.b1 = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 4, 1, bias=False)
        self.b2 = nn.BatchNorm2d(4)
        self.b3 = nn.BatchNorm2d(4)
        self.c3 = nn.Conv2d(4, 4, 1)
        self.b4 = nn.BatchNorm2d(4)
        self.act = nn.ReLU()
        self.p1 = nn.AvgPool2d(2)
        self.p2 = nn.Flatten()
        self.g = nn.Parameter(torch.randn(4))

    def forward(self, x):
        h = self.act(self.b1(self.c1(x)))
        h = self.b3(F.relu(self.b2(self.c2(h))))
        t = self.c3(h)
        h = h + self.b4(t) * t.tanh()
        h.add_(0.1)
        dead = self.p2(self.p1(h))  # noqa: F841 (dead code, on purpose)
        gate = torch.sigmoid(self.g * 3).view(1, 4, 1, 1)
        scale = self.g.abs()
        return (h * gate).relu() * scale.mean() * 0.25, t.mean(dim=(2, 3)) * 0.1


class ReturnsNone(GraderPass):
    """apply returns None instead of a GraphModule."""

    name = "returns_none"

    def apply(self, gm):
        return None


class MissingMethod(GraderPass):
    """Renames the first call_method to relu6, which tensors do not have: lint passes, running the graph raises."""

    name = "method_typo"

    def apply(self, gm):
        next(n for n in gm.graph.nodes if n.op == "call_method").target = "relu6"
        return gm


class BreaksOrder(GraderPass):
    """Moves the last call before the inputs: a node used before it exists."""

    name = "breaks_node_order"

    def apply(self, gm):
        calls = [n for n in gm.graph.nodes if n.op.startswith("call")]
        next(iter(gm.graph.nodes)).prepend(calls[-1])
        return gm


# ---------------------------------------------------------------- 5: the edge-case harness (another gallery)
class GEmpty(nn.Module):
    def forward(self, x, y):
        return x


class GSingle(nn.Module):
    def forward(self, x, y):
        return x.tanh()


class GTwo(nn.Module):
    def forward(self, x, y):
        return x - y


class GUsers(nn.Module):
    def forward(self, x, y):
        t = x.tanh()
        return t * 3 + t.abs()


class GModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3)

    def forward(self, x, y):
        return self.conv(x)


def _recompiled(gm):
    gm.recompile()
    return gm


def tanh_as_function(gm):
    """Correct: rewrites x.tanh() as torch.tanh(x)."""
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "tanh":
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(torch.tanh, n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def tanh_rebuilt_every_run(gm):
    """Rewrites x.tanh() as torch.tanh(x), and on every later run replaces each torch.tanh node by a fresh one (a new
    name, the same op and target): idempotent by the (op, target) rule."""
    for n in list(gm.graph.nodes):
        if (n.op == "call_method" and n.target == "tanh") or (n.op == "call_function" and n.target is torch.tanh):
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(torch.tanh, n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def tanh_as_sigmoid(gm):
    """Rewrites x.tanh() as torch.sigmoid(x): correct where the case expects the sigmoid's outputs."""
    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target == "tanh":
            n.op, n.target = "call_function", torch.sigmoid
    return _recompiled(gm)


def tanh_retargeted_in_place(gm):
    """Rewrites x.tanh() as torch.tanh(x), then swaps torch.tanh and torch.ops.aten.tanh.default on every run, in
    place (the node's op and name stay)."""
    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target == "tanh":
            n.op, n.target = "call_function", torch.tanh
        elif n.op == "call_function" and n.target in (torch.tanh, torch.ops.aten.tanh.default):
            n.target = torch.ops.aten.tanh.default if n.target is torch.tanh else torch.tanh
    return _recompiled(gm)


def tanh_back_and_forth(gm):
    """Rewrites x.tanh() as torch.tanh(x) and torch.tanh(x) as x.tanh(): every run changes the graph again."""
    for n in list(gm.graph.nodes):
        method, function = n.op == "call_method" and n.target == "tanh", n.op == "call_function" and n.target is torch.tanh
        if method or function:
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(torch.tanh, n.args) if method else gm.graph.call_method("tanh", n.args)
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def sub_first_input_twice(gm):
    """Gives a two-input op its first input twice."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is operator.sub and all(isinstance(a, fx.Node) for a in n.args):
            n.args = (n.args[0], n.args[0])
    return _recompiled(gm)


def tanh_one_user(gm):
    """Rewires only one user of the node it replaces, then erases it."""
    for n in list(gm.graph.nodes):
        if n.op == "call_method" and n.target == "tanh":
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(torch.tanh, n.args)
            n.replace_all_uses_with(new, delete_user_cb=lambda user, first=next(iter(n.users)): user is first)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def times_one_every_run(gm):
    """Adds a node on every run."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    with gm.graph.inserting_before(out):
        new = gm.graph.call_function(operator.mul, (out.args[0], 1))
    out.args = (new,)
    return _recompiled(gm)


def last_call_required(gm):
    """Assumes the graph has a call node."""
    last = [n for n in gm.graph.nodes if n.op.startswith("call")][-1]
    last.meta["seen"] = True
    return _recompiled(gm)


def conv_without_bias(gm):
    """Drops a module's bias."""
    for n in list(gm.graph.nodes):
        if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.Conv1d):
            with gm.graph.inserting_before(n):
                w = gm.graph.get_attr(n.target + ".weight")
                new = gm.graph.call_function(F.conv1d, (n.args[0], w))
            n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    return _recompiled(gm)


def conv_thirds_in_place(gm):
    """Scales a conv module's weight and bias by 3 in place, and its output by 1/3: right outputs, changed module."""
    for n in list(gm.graph.nodes):
        if n.op == "call_module" and isinstance(gm.get_submodule(n.target), nn.Conv1d) and not n.meta.get("tripled"):
            mod = gm.get_submodule(n.target)
            with torch.no_grad():
                mod.weight.mul_(3)
                mod.bias.mul_(3)
            with gm.graph.inserting_after(n):
                third = gm.graph.call_function(operator.truediv, (n, 3.0))
            n.replace_all_uses_with(third, delete_user_cb=lambda user: user is not third)
            n.meta["tripled"] = True
    return _recompiled(gm)


def output_plus_tiny(gm):
    """Adds 4e-6 to the output once."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    if not any(a.op == "call_function" and a.target is operator.add and 4e-6 in a.args for a in out.all_input_nodes):
        with gm.graph.inserting_before(out):
            plus = gm.graph.call_function(operator.add, (out.args[0], 4e-6))
        out.args = (plus,)
    return _recompiled(gm)


def output_indexed_with_none(gm):
    """Returns out[None] once: a leading axis of 1, the same values."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    if not any(a.op == "call_function" and a.target is operator.getitem for a in out.all_input_nodes):
        with gm.graph.inserting_before(out):
            wider = gm.graph.call_function(operator.getitem, (out.args[0], None))
        out.args = (wider,)
    return _recompiled(gm)


def output_first(gm):
    """Moves a node before its inputs."""
    calls = [n for n in gm.graph.nodes if n.op.startswith("call")]
    if calls:
        next(iter(gm.graph.nodes)).prepend(calls[0])
    return _recompiled(gm)


def tanh_renamed(gm):
    """Renames x.tanh() to x.gelu(), which tensors do not have: the graph raises when run."""
    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target == "tanh":
            n.target = "gelu"
    return _recompiled(gm)


def tanh_or_raise(gm):
    """Rewrites x.tanh() as torch.tanh(x); raises where there is none (so on its own output)."""
    if not any(n.op == "call_method" and n.target == "tanh" for n in gm.graph.nodes):
        raise RuntimeError("nothing to rewrite")
    return tanh_as_function(gm)
