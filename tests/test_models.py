"""helpers.models: the Lab 05 model is the same on every rank, and its fixed-cost blocks count their time."""

import torch

from helpers import models


def test_toy_model_is_the_same_everywhere():
    cfg = {"d_in": 3, "d": 4, "blocks": 2, "d_out": 1, "batch": 5, "seed": 1}
    a, b = models.toy_model(cfg), models.toy_model(cfg)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    x, y = models.toy_batch(cfg)
    assert x.shape == (5, 3) and y.shape == (5, 1) and torch.equal(x, models.toy_batch(cfg)[0])
    assert models.param_bytes(a) == 4 * sum(p.numel() for p in a.parameters())


def test_fixed_cost_counts_busy_time():
    models.reset_busy()
    x = torch.ones(2, requires_grad=True)
    models.FixedCost.apply(x, 5.0).sum().backward()
    assert models.busy_seconds() >= 0.015 and torch.equal(x.grad, torch.ones(2))
