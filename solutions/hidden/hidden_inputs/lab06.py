"""Lab 06: functions, modules and call scripts the grader hands the learner's code, inside the job."""

import torch
from torch import nn


def two_breaks(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Three graphs: two prints between three pieces of work."""
    h = torch.sin(x @ w)
    print("", end="")
    h = h * 2 + 1
    print("", end="")
    return torch.cos(h) @ w


def frozen_head_two_breaks(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Three forward graphs, two backward ones: the first piece needs no gradient (x does not require one)."""
    h = torch.cos(x) + 1
    print("", end="")
    h = h @ w
    print("", end="")
    return torch.sigmoid(h)


def no_break_two_matmuls(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(x @ w) @ w.t()


class BranchOnTraining(nn.Module):
    """A forward that branches on self.training itself."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        return y * 0.5 if self.training else y


def make_plain_linear() -> nn.Module:
    return nn.Linear(8, 8)


def make_square():
    return square


def square(x: torch.Tensor) -> torch.Tensor:
    return x * x


def eval_then_train_twice(compiled, fn):
    x = torch.randn(3, 8)
    fn.eval()
    compiled(x)
    fn.train()
    compiled(x)
    fn.eval()
    compiled(x)
    fn.train()
    compiled(x)


def linear_mode_flips(compiled, fn):
    """A Linear never reads self.training: flipping it costs no compile."""
    x = torch.randn(3, 8)
    compiled(x)
    fn.eval()
    compiled(x)


def new_dtype(compiled, fn):
    compiled(torch.randn(5, 8))
    compiled(torch.randn(5, 8, dtype=torch.float64))
    compiled(torch.randn(5, 8))


def growing_shapes(compiled, fn):
    for n in (3, 4, 5, 6):
        compiled(torch.randn(n))


def grad_mode_flips(compiled, fn):
    x = torch.randn(3, 8)
    compiled(x)
    with torch.no_grad():
        compiled(x)
    compiled(x)
