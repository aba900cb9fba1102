"""helpers.profiling: what one call launches, counted by torch.profiler."""

import torch

from helpers.models import chain_ops
from helpers.profiling import count_launches


def test_eager_chain_dispatches_one_op_per_elementwise_op():
    counted = count_launches(chain_ops, torch.randn(100))
    assert sum(counted.values()) == 5
    assert {"aten::add", "aten::mul", "aten::relu", "aten::sub", "aten::sigmoid"} == set(counted)


def test_allocations_and_views_are_not_counted_but_labelled_launches_are():
    def labelled(x):
        out = torch.empty_like(x).view(-1)
        with torch.profiler.record_function("triton::my_kernel"):
            out.copy_(x.view(-1))      # inside the range: counted once, as the range
        return out

    counted = count_launches(labelled, torch.randn(4, 4))
    assert counted == {"triton::my_kernel": 1}
