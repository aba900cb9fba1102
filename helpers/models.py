"""The models every lab shares: TinyHead (Lab 04), MiniGPT (Labs 02-05), chain_ops (Labs 01, 03), SmallResNet (Lab 02),
ToyStack and its fixed-cost blocks (Lab 05)."""

from __future__ import annotations

import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyHead(nn.Module):
    """Linear(d, vocab) followed by a softmax: the smallest model with a fusible reduction (Lab 04)."""

    def __init__(self, d: int = 64, vocab: int = 600):
        super().__init__()
        self.fc = nn.Linear(d, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc(x), dim=-1)


def chain_ops(x: torch.Tensor) -> torch.Tensor:
    """Five elementwise ops in a row: eager launches five kernels, a fusing compiler one (Labs 01, 03)."""
    x = x + 1
    x = x * 2
    x = x.relu()
    x = x - 0.5
    x = x.sigmoid()
    return x


class CausalSelfAttention(nn.Module):
    """Multi-head attention written out op by op, so the compiler's softmax fusion is visible."""

    def __init__(self, d_model: int, n_heads: int, max_len: int):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        mask = torch.tril(torch.ones(max_len, max_len, dtype=torch.bool))
        self.register_buffer("mask", mask.view(1, 1, max_len, max_len), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    """Pre-norm decoder block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, d_model: int, n_heads: int, max_len: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, max_len)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class MiniGPT(nn.Module):
    """A small decoder-only language model: embeddings, `n_layers` blocks, LM head over `vocab` tokens."""

    def __init__(self, vocab: int = 600, d_model: int = 64, n_heads: int = 4, n_layers: int = 2, max_len: int = 64):
        super().__init__()
        self.max_len = max_len
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, max_len) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        b, t = idx.shape
        if t > self.max_len:
            raise ValueError(f"sequence length {t} is longer than max_len={self.max_len}; pass shorter input or build MiniGPT(max_len={t})")
        pos = torch.arange(t, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class ResidualBlock(nn.Module):
    """conv-bn-relu, conv-bn, plus a shortcut (a 1×1 conv-bn when the shape changes), then relu (Lab 02)."""

    def __init__(self, c_in: int, c_out: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.shortcut = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.shortcut = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class SmallResNet(nn.Module):
    """A ResNet-style CNN without torchvision: a conv-bn-relu stem, one residual block per width, pool, linear (Lab 02).

    The ReLUs are spelled two ways (nn.ReLU modules and F.relu), as in real code, and every conv is followed by a
    batch norm, so the model has something for each of Lab 02's passes to find.
    """

    def __init__(self, in_channels: int = 3, widths: tuple[int, ...] = (16, 32, 64), n_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(in_channels, widths[0], 3, 1, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        blocks, c_in = [], widths[0]
        for i, width in enumerate(widths):
            blocks.append(ResidualBlock(c_in, width, stride=1 if i == 0 else 2))
            c_in = width
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c_in, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(self.pool(x), 1))


# ---------------------------------------------------------------- Lab 05: the model the parallel patterns distribute
_BUSY = [0.0]  # seconds this process spent inside FixedCost (forward and backward) since the last reset_busy()
_STEPS: list[list[dict]] = []  # what FixedCost did after each reset_busy(): one list per step, the latest MAX_STEPS
MAX_STEPS = 1000


def busy_seconds() -> float:
    """Time spent in FixedCost layers since the last reset_busy()."""
    return _BUSY[0]


def reset_busy() -> None:
    """Start counting busy time afresh, and start a new step in busy_log()."""
    _BUSY[0] = 0.0
    _STEPS.append([])
    del _STEPS[:-MAX_STEPS]


def busy_log() -> list[list[dict]]:
    """Every FixedCost call since each reset_busy(), in order: one list per step of {"pass", "rows", "seconds"}.

    The order and count of a pipeline stage's calls are its schedule (which micro-batch sizes ran forward and
    backward, in which order), whatever the load on the machine: Lab 05's checks judge a pipeline by them."""
    return [list(step) for step in _STEPS]


def _spend(ms: float, waits_for: torch.Tensor, kind: str) -> None:
    if waits_for.is_cuda:   # a real GPU layer waits for its input (a received activation); a host sleep would not
        torch.cuda.current_stream(waits_for.device).synchronize()
    began = time.perf_counter()
    time.sleep(ms / 1000)
    slept = time.perf_counter() - began
    _BUSY[0] += slept
    if _STEPS:
        _STEPS[-1].append({"pass": kind, "rows": int(waits_for.shape[0]) if waits_for.dim() else 1, "seconds": slept})


class FixedCost(torch.autograd.Function):
    """Identity that takes `ms` of wall time forward and 2·ms backward: a stand-in for a big layer's compute.

    It makes every micro-batch cost the same on any machine, so a pipeline's idle time (its bubble) shows the
    schedule and not the noise of a shared CPU. Each call adds to busy_seconds() and is logged in busy_log().
    """

    @staticmethod
    def forward(ctx, x, ms: float):
        ctx.ms = ms
        _spend(ms, x, "forward")
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        _spend(2 * ctx.ms, grad, "backward")
        return grad, None


class ToyBlock(nn.Module):
    """x + fc2(gelu(fc1(x))): the MLP half of a transformer layer, without the norm."""

    def __init__(self, d: int, cost_ms: float = 0.0):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.cost_ms = cost_ms

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x + self.fc2(F.gelu(self.fc1(x)))
        return FixedCost.apply(y, self.cost_ms) if self.cost_ms > 0 else y


class ToyStack(nn.Module):
    """inp (Linear d_in → d), `blocks` ToyBlocks, head (Linear d → d_out): the model Lab 05 distributes."""

    def __init__(self, d_in: int, d: int, blocks: int, d_out: int, cost_ms: float = 0.0):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.ModuleList(ToyBlock(d, cost_ms) for _ in range(blocks))
        self.head = nn.Linear(d, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.inp(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def toy_model(cfg: dict) -> ToyStack:
    """The ToyStack a config describes, with weights from cfg["seed"]: the same on every rank."""
    torch.manual_seed(cfg["seed"])
    return ToyStack(cfg["d_in"], cfg["d"], cfg["blocks"], cfg["d_out"], cfg.get("cost_ms", 0.0))


def toy_batch(cfg: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs [batch, d_in], targets [batch, d_out]) for a config: the same global batch on every rank."""
    gen = torch.Generator().manual_seed(cfg["seed"] + 1)
    return (torch.randn(cfg["batch"], cfg["d_in"], generator=gen), torch.randn(cfg["batch"], cfg["d_out"], generator=gen))


def param_bytes(model: nn.Module) -> int:
    """Bytes of all parameters of a (not yet distributed) model."""
    return sum(p.numel() * p.element_size() for p in model.parameters())
