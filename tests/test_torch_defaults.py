"""Probes run under torch's defaults whatever the notebook set, and the notebook's settings come back afterwards."""

import warnings

import pytest
import torch

from helpers.checks import Spec, run_check
from helpers.checks.torch_defaults import torch_defaults


@pytest.fixture
def learner_settings():
    """What a learner's scratch cell may leave set for the whole kernel."""
    saved = torch.get_default_dtype(), torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled()
    torch.set_default_dtype(torch.float64)
    torch.set_grad_enabled(False)
    torch.use_deterministic_algorithms(True, warn_only=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
    torch.set_default_dtype(saved[0])
    torch.set_grad_enabled(saved[1])
    torch.use_deterministic_algorithms(saved[2])


def test_inside_the_defaults_and_after_the_learners(learner_settings):
    with torch_defaults():
        assert torch.get_default_dtype() == torch.float32 and torch.randn(2).dtype == torch.float32
        assert torch.is_grad_enabled() and not torch.are_deterministic_algorithms_enabled()
        warnings.warn("a warning the learner's filter would raise", UserWarning)    # shown, not raised
    assert torch.get_default_dtype() == torch.float64 and not torch.is_grad_enabled()
    assert torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()
    with pytest.raises(UserWarning):
        warnings.warn("the learner's filter is back", UserWarning)


def test_a_check_builds_its_cases_and_probes_under_the_defaults(learner_settings, monkeypatch):
    """A check run from the notebook: its cases and its probe see float32 and gradients on."""
    seen = {}

    def probe(learner, x):
        seen.update(case=x.dtype, probe=torch.randn(1).dtype, grad=torch.is_grad_enabled())
        return True

    def body(ctx, cases):
        ctx.probe(probe, cases[0])

    s = Spec(name="00.defaults", points=1, exercise="A", title="defaults", fn=body, cases=lambda: [torch.zeros(2)])
    monkeypatch.setattr("helpers.checks.spec", lambda name: s)
    assert run_check("00.defaults", {}).passed
    assert seen == {"case": torch.float32, "probe": torch.float32, "grad": True}
