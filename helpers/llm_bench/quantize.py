"""Weight-only int8: every nn.Linear becomes an Int8Linear holding int8 weights and one scale per output row.

Decode reads every weight once per token, so its time is set by weight bytes: int8 halves them against
bf16 (a quarter of fp32). The matmul still runs in the activations' dtype: weights are cast up inside
it and the per-row scale is applied to the output, x @ (q × s)ᵀ = (x @ qᵀ) × s. Eager PyTorch casts the
whole weight to a temporary each call, which adds a read and a write of a full-size weight; under torch.compile a
one-row input (batch-1 decode) becomes one fused int8 reduction kernel that reads the int8 weight once, and a batch
of rows takes the cast + matmul path again. Whether that pays depends on how fast the fused kernel streams int8
against the library matmul's bf16: Lab 07 part E measures it against the unquantized model in the same rounds, and
shows the verdicts recorded on GPUs (helpers/gpu_figures/). Measure it on your device:
python -m helpers.llm_bench --backend eager compiled int8-compiled.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class Int8Linear(nn.Module):
    """y = (x @ int8_weightᵀ) × scales: symmetric per-output-channel int8 weights, no bias."""

    def __init__(self, weight_int8: torch.Tensor, scales: torch.Tensor):
        super().__init__()
        self.in_features, self.out_features = weight_int8.shape[1], weight_int8.shape[0]
        self.register_buffer("weight_int8", weight_int8)
        self.register_buffer("scales", scales)

    @classmethod
    def from_linear(cls, linear: nn.Linear) -> "Int8Linear":
        """Quantize a bias-free Linear: scale = max |w| of the row / 127, w ≈ round(w / scale) × scale."""
        if linear.bias is not None:
            raise ValueError("Int8Linear supports bias-free Linear layers only (Llama has no biases)")
        w = linear.weight.detach().float()
        scales = (w.abs().amax(dim=1) / 127.0).clamp(min=1e-12)
        q = torch.round(w / scales[:, None]).clamp(-127, 127).to(torch.int8)
        return cls(q, scales.to(linear.weight.dtype))

    def dequantized(self) -> torch.Tensor:
        """The weight this layer stands for, in the scales' dtype (for tests and error checks)."""
        return self.weight_int8.to(self.scales.dtype) * self.scales[:, None]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, scales = self.weight_int8.to(x.dtype), self.scales.to(x.dtype)
        if torch.compiler.is_compiling() and math.prod(x.shape[:-1]) == 1:
            # One row (batch-1 decode): cuBLAS cannot read int8, so an mm needs a cast copy of the whole weight
            # first; written as multiply-and-sum, Inductor fuses cast and dot product into one kernel that reads
            # the int8 weight once instead of reading it, writing a full-size copy and reading that.
            return (x.unsqueeze(-2) * weight).sum(-1) * scales
        return F.linear(x, weight) * scales

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8 weights, per-row scales"


def quantize_int8(model: nn.Module) -> int:
    """Replace every nn.Linear in model by an Int8Linear, in place; returns how many were replaced.

    A Linear that shares its weight with an embedding (tied output head) gets its own int8 copy; the
    embedding table stays in the model's dtype (a lookup reads one row per token, not the whole table).
    """
    targets = [(name, m) for name, m in model.named_modules() if isinstance(m, nn.Linear)]
    for name, linear in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, Int8Linear.from_linear(linear))
    return len(targets)


def weight_bytes(model: nn.Module, only: type[nn.Module] | tuple[type[nn.Module], ...] | None = None) -> int:
    """Bytes of what the state dict holds (parameters, persistent buffers; a shared tensor once).

    `only` counts just the modules of those types, e.g. (nn.Linear, Int8Linear) for the matmul weights.
    """
    modules = [model] if only is None else [m for m in model.modules() if isinstance(m, only)]
    tensors = {id(t): t for m in modules for t in m.state_dict(keep_vars=True).values()}
    return sum(t.numel() * t.element_size() for t in tensors.values())


def decode_weight_bytes(model: nn.Module) -> int:
    """Weight bytes one decode step must read: everything but embedding tables (a lookup reads a few rows).

    A tied output head reads the shared table in full, so it is counted through the head.
    """
    lookups = {f"{name}.weight" if name else "weight" for name, m in model.named_modules() if isinstance(m, nn.Embedding)}
    tensors = {id(t): t for name, t in model.state_dict(keep_vars=True).items() if name not in lookups}
    return sum(t.numel() * t.element_size() for t in tensors.values())
