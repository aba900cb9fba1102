"""Lab 03: the graphs, models and chains the grader asks the learner's functions to work on, inside the job."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class HDeep(nn.Module):
    """Nested Sequentials, method and function spellings, and a value with two readers."""

    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Sequential(nn.Linear(5, 5), nn.SiLU(), nn.Tanh()), nn.Sigmoid())
        self.post = nn.ReLU()

    def forward(self, x, y):
        h = self.block(x)
        h = torch.mul(h, y).neg()
        k = h.abs()
        return self.post(k - h) / (k + 1)


class HInplace(nn.Module):
    """In-place ops (inplace=True and torch.relu_) inside and around chains."""

    def forward(self, x, y):
        a = torch.exp(x) * 3
        b = F.relu(a - y, inplace=True)
        c = b.sigmoid().tanh()
        torch.relu_(y)
        return c + y


class HJoins(nn.Module):
    """Chains that meet, a value read by a later op of its own chain, and two outputs."""

    def forward(self, x, y):
        p = x.sigmoid()
        q = y.tanh() - 1
        r = p * q
        s = r.exp()
        t = torch.add(s, r)
        return t.relu(), F.gelu(x) * 2


class HMatmul(nn.Module):
    """Matmuls that cut chains, and a parameter read twice."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5, 5))

    def forward(self, x, y):
        h = (x @ self.w).relu() + y
        return (h @ self.w.t()).sigmoid() * h.abs()


class HBatchNorm(nn.Module):
    """A batch norm module (parameters and buffers) and a GELU module."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(12)
        self.act = nn.GELU()

    def forward(self, x, s):
        return self.act(self.bn(x)) * s + 1


class HResidual(nn.Module):
    """Two chains around a layer norm, for the backend."""

    def __init__(self, d=24):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)
        self.alpha = nn.Parameter(torch.rand(d))

    def forward(self, x):
        h = torch.tanh(self.fc(self.norm(x))) * self.alpha
        return (x + h).relu() - 0.25 * x.sigmoid().exp()


def h_mutate(x, y):
    """An input mutated in place between two elementwise ops."""
    a = x.tanh()
    b = a * 3
    x.sub_(1)
    return (b - x).abs() + y


def broadcast_three(x, y, z):
    """Three inputs broadcast against each other."""
    return torch.sigmoid(x * y) + z


def half_inside(x):
    """fp32 in, fp16 ops, fp32 out."""
    return (x.half() * 2).relu().float()


def transpose_later(x):
    """An intermediate read through a transpose much later, and exp computed twice."""
    return (x.exp().t().sigmoid() + 1).t() * x.exp().sum()


def neg_div_silu(x, y):
    """A chain with neg, div and silu."""
    return F.silu(-x / (y.abs() + 1))


def three_inputs_int(x, y, z):
    """A chain of three inputs with an integer literal."""
    return ((x - y) * 3 + z).exp()


def gelu_sigmoid_tanh(x):
    """Functions that are modules elsewhere, on fp16."""
    return torch.sigmoid(F.gelu(x) - 0.5).tanh()


def gelu_tanh_approx(x):
    """gelu's tanh approximation: codegen may decline it."""
    return F.gelu(x * 2, approximate="tanh") + 1


def squares_sum(x, y):
    """Each input read twice by one node (x * x, y * y): it is read once."""
    return torch.tanh(x * x) + y * y


def numbers_first(x, y):
    """Numbers on the left of a subtraction and a division."""
    return (1 - x) * (2.0 / (y.abs() + 1))


def alias_reduce(x):
    """An intermediate read through a detach and through a view of a view, by reductions."""
    h = x.tanh()
    return h.detach().sum() + h.unsqueeze(0).transpose(1, 2).mean()


def view_outputs(x):
    """Two outputs, one of them a view of an intermediate."""
    a = x.abs()
    return a.flatten(), a.sigmoid() * 3


def h_views(x, y):
    """Views between elementwise ops: a transpose, a reshape and a flatten."""
    h = (x * 2).t().tanh()
    return h.reshape(-1).sigmoid() + y.flatten()


def h_dead(x):
    """A value read by nothing (abs then exp, the exp never read) before a chain."""
    x.abs().exp()
    return (x.sigmoid() * 2).tanh()


class HShared(nn.Module):
    """One Linear and one LayerNorm, each called twice: every call reads the module's weights again."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.norm = nn.LayerNorm(6)

    def forward(self, x, y):
        h = self.norm(self.fc(x)).tanh() * y
        return self.norm(self.fc(h))


def h_cat_kwargs(x, y, z):
    """Tensors passed inside a list (torch.cat) and as a keyword (other=)."""
    return torch.add(torch.cat([x.exp(), y], dim=1), other=z).tanh()


def h_size_reshape(x):
    """A reshape by sizes read from the tensor (x.size(0), x.shape[1]): numbers, not tensors."""
    h = (x * 2).relu()
    return h.reshape(x.size(0), x.shape[1] * x.shape[2]).sigmoid() + 1


def h_mixed(a, b):
    """An fp16 input and an fp32 one (the result is fp32), the second used first."""
    return (b.exp() - a * 0.5).tanh() * b
