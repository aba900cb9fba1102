"""Lab 04: what the grader asks the learner's functions to work on, inside the job."""

import torch


def graded_fn(t: torch.Tensor) -> torch.Tensor:
    """The function dump_inductor_debug is asked to dump: 11×17 = 187 elements show up in its loop bound."""
    return torch.sigmoid(t) - 0.25
