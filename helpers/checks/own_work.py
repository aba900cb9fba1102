"""Exercises that rebuild what the released package already has: while a check runs the learner's code, the
package's own version refuses to run, so the check grades the learner's work and not the package's.

Lab 07's learner writes the KV-cache formula, FLOPs per token and an int8 quantizer, and `helpers.llama` and
`helpers.llm_bench` hold versions of their own (the runner needs them). A submission that only calls those
passes nothing: inside `refusing(...)` each named function's code is swapped for one that raises
`OwnWorkNeeded` with a sentence that says so, whatever name the learner imported it under. A Triton kernel (a
`triton.jit` function, its interpreter's stand-in or an autotuner) is launched through its `run` method: that is what
is swapped there, on the kernel object alone.
"""

from __future__ import annotations

import contextlib
import types
from typing import Callable, Iterator

from helpers.checks import CheckFailed


class OwnWorkNeeded(CheckFailed):
    """The learner's function called the package's version of the exercise."""


def _refusal(label: str, check: str):
    """A code object that raises OwnWorkNeeded; it needs no globals, so it can stand in any module's function."""
    message = (f"{check} grades your own code, but yours called {label}, the package's version (the runner uses it "
               "later). Write it from the description above the exercise.")
    namespace: dict = {}
    exec("def refused(*args, **kwargs):\n"
         f"    raise __import__('helpers.checks.own_work', fromlist=['_']).OwnWorkNeeded({message!r})\n", namespace)
    return namespace["refused"].__code__


def _function(obj) -> Callable:
    """The plain function behind a function, method, classmethod, staticmethod or property."""
    if isinstance(obj, property):
        obj = obj.fget
    return getattr(obj, "__func__", obj)


@contextlib.contextmanager
def refusing(check: str, functions: dict[str, object]) -> Iterator[None]:
    """Within the block, each function of {label: function} raises OwnWorkNeeded naming `check` and `label`."""
    swapped, kernels = [], []
    try:
        for label, obj in functions.items():
            if not hasattr(_function(obj), "__code__") and callable(getattr(obj, "run", None)):   # a Triton kernel
                kernels.append((obj, vars(obj).get("run")))
                obj.run = types.FunctionType(_refusal(label, check), {})
                continue
            fn = _function(obj)
            if fn.__code__.co_freevars:   # a closure's code cannot be swapped for one without cells
                continue
            swapped.append((fn, fn.__code__))
            fn.__code__ = _refusal(label, check)
        yield
    finally:
        for fn, code in swapped:
            fn.__code__ = code
        for kernel, own in kernels:
            if own is None:
                del kernel.run          # the class's run again
            else:
                kernel.run = own
