"""What crosses between the learner's code and a check is plain data, readable without running code."""

import numpy as np
import pytest
import torch

from helpers.checks import wire


class Sneaky:
    def __reduce__(self):            # would run code if it were unpickled
        return (print, ("owned",))


def test_plain_data_survives_and_everything_else_becomes_words():
    value = {"t": torch.arange(3).view(3, 1).t(), "v": torch.__version__, "np": np.float64(2.5), "i": np.int64(3),
             "tuple": (1, "a"), "set": {2, 1}, 3: None, "dtype": torch.float16, "size": torch.Size([2, 3]),
             "obj": Sneaky(), "fn": len}
    got = wire.round_trip(value)
    assert torch.equal(got["t"], torch.tensor([[0, 1, 2]])) and got["t"].is_contiguous()
    assert got["v"] == torch.__version__ and type(got["v"]) is str
    assert (got["np"], got["i"], got["tuple"], got["set"], got["3"]) == (2.5, 3, [1, "a"], [1, 2], None)
    assert (got["dtype"], got["size"]) == ("torch.float16", [2, 3])
    assert got["obj"].startswith("<Sneaky") and got["fn"].startswith("<builtin_function_or_method")


def test_decode_refuses_pickles_and_oversized_answers():
    import pickle

    with pytest.raises(ValueError):
        wire.decode(pickle.dumps(Sneaky()))
    with pytest.raises(ValueError):
        wire.decode(wire.encode("x" * 100), limit=10)
