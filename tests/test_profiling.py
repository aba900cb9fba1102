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


def test_peak_allocated_bytes_sees_the_intermediates_on_a_cpu():
    import torch

    from helpers.profiling import peak_allocated_bytes
    x = torch.randn(2**18)
    one = x.numel() * x.element_size()
    chain = peak_allocated_bytes(lambda t: ((t * 2) + 1).relu(), x)      # two tensors live at once at most
    single = peak_allocated_bytes(lambda t: torch.relu(t), x)
    assert abs(chain - 2 * one) < one / 4 and abs(single - one) < one / 4


def test_quiet_profile_prints_nothing_to_stderr(capfd):
    import torch
    from torch.profiler import ProfilerActivity

    from helpers.profiling import quiet_profile
    with quiet_profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        torch.ones(8) + 1
    assert prof.events() is not None
    assert "profiler_start" not in capfd.readouterr().err
