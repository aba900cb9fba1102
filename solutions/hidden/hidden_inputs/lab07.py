"""Lab 07: a model the grader hands the learner's quantization pass, inside the job."""

import torch
from torch import nn


class TwoTower(nn.Module):
    """Linear layers nested two levels deep (a Sequential inside a ModuleDict), beside an embedding and a norm that
    a quantization pass must leave alone."""

    def __init__(self, vocab: int = 50, dim: int = 24, hidden: int = 40, out: int = 7):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.towers = nn.ModuleDict({
            "left": nn.Sequential(nn.Linear(dim, hidden, bias=False), nn.GELU(), nn.Linear(hidden, dim, bias=False)),
            "right": nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim, bias=False)),
        })
        self.head = nn.Linear(dim, out, bias=False)
        with torch.no_grad():   # an outlier row, as real models have: per-tensor scales would fail here
            self.towers["left"][0].weight[3] *= 40

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens)
        h = h + self.towers["left"](h)
        h = h + self.towers["right"](h)
        return self.head(h)


def two_tower_input(model: nn.Module, seed: int = 5) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, model.embed.num_embeddings, (3, 6), generator=g)


def tied_decoder() -> nn.Module:
    """A small decoder (4 query heads share 1 KV head) whose output head is tied to the embedding: a pass that skips a
    Linear because its weight is shared leaves the head in full precision."""
    from helpers.llama import LlamaConfig, build_model

    config = LlamaConfig("grader-tied", vocab_size=120, dim=48, n_layers=2, n_heads=4, n_kv_heads=1, ffn_dim=96,
                         tie_embeddings=True)
    return build_model(config, seed=74)
