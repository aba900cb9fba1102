"""Lab 04 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab04.py.

Never released. Cases only: the checks are the public ones, run with probes in the submission's kernel and
messages that reveal nothing. The stored dumps (solutions/hidden/dumps/: CPUs and GPUs, several torch versions)
give kernels and IR texts the notebook never saw, and the kernels an honest annotation may describe wherever the
learner ran the lab; the grader's own dump of TinyHead on this machine is computed once per batch (REFERENCES).
"""

from __future__ import annotations

import re
from pathlib import Path

from hidden_inputs import lab04 as inputs

from helpers import inductor
from helpers.checks import lab04 as public

DUMPS = Path(__file__).resolve().parent / "dumps"


def grader_tinyhead():
    """This machine's own Inductor dump of the lab's TinyHead, on the batch's device."""
    from helpers.env import current_settings, pick_device

    model, x = public.HeadCase("", seed=0).build()
    device = pick_device(current_settings().device)
    return inductor.capture(model.to(device), x.to(device))


def grader_dump_kernels() -> tuple:
    """The kernels Inductor writes on this machine for the function dump_inductor_debug is asked to dump."""
    return public.DumpCase(inputs.graded_fn, (11, 17), "187").kernel_names()


REFERENCES = {"tinyhead": grader_tinyhead, "dump_kernels": grader_dump_kernels}


def stored_dumps(name: str) -> list:
    """Every stored dump of `name` (tinyhead, chain, minigpt) across devices and torch versions."""
    return [inductor.load_dump(d) for d in sorted(DUMPS.glob(f"*/{name}")) if (d / "output_code.py").is_file()]


def reference_scheduler_nodes(text: str) -> list[str]:
    """The grader's own answer to exercise S."""
    names, member = [], False
    for line in text.splitlines():
        if re.match(r"^\w+\.snodes\[\d+\] =", line):
            member = True
            continue
        m = re.match(r"^(\w+): \w*SchedulerNode\(", line)
        if m:
            if not member:
                names.append(m.group(1))
            member = False
    return names


def softmax_kernels(dump) -> list:
    return [k for k in dump.kernels if public.kernel_is_softmax(k)]


def find_softmax_cases(refs: dict) -> list:
    dumps = [("this machine's TinyHead", refs["tinyhead"])]
    dumps += [(f"a stored {d.device} MiniGPT dump", d) for d in stored_dumps("minigpt")]
    dumps += [(f"a stored {d.device} TinyHead dump", d) for d in stored_dumps("tinyhead")]
    return [public.KernelsCase(about, list(d.kernels), softmax_kernels(d)[0].name)
            for about, d in dumps if len(softmax_kernels(d)) == 1]


def annotation_case(refs: dict) -> public.AnnotationCase:
    """An honest annotation describes the TinyHead dump of the machine it was written on: this one, or any stored one."""
    dumps = [refs["tinyhead"], *stored_dumps("tinyhead")]
    return public.AnnotationCase([k for d in dumps for k in softmax_kernels(d)])


def scheduler_cases() -> list:
    cases = [public.IRCase("the notebook's small sample", public.SCHEDULER_CASE, ("op0", "op1_op2", "op3")),
             public.IRCase("the notebook's sample with numbers of two digits", public.SCHEDULER_CASE_LONG,
                           public.SCHEDULER_LONG_NODES)]
    for name in ("tinyhead", "minigpt", "chain"):
        for dump in stored_dumps(name):
            for text, stage in ((dump.ir_pre_fusion, "pre"), (dump.ir_post_fusion, "post")):
                if text:
                    cases.append(public.IRCase(f"a stored {dump.device} {name} dump ({stage}-fusion IR)", text,
                                               tuple(reference_scheduler_nodes(text))))
    return cases


CASES = {
    "04.compile_match": [public.HeadCase("the grader's own TinyHead (other sizes)", seed=1234, d=48, vocab=333, batch=5)],
    "04.debug_dump": lambda refs: [public.DumpCase(inputs.graded_fn, (11, 17), "187", refs["dump_kernels"])],
    "04.find_softmax": find_softmax_cases,
    "04.annotation": annotation_case,
    "04.crossover": ([public.CrossoverCase((0.5, 0.7, 1.2, 1.5), (1, 2, 4, 16), 4, "rows given largest batch first", True),
                      public.CrossoverCase((1.0, 1.2, 1.3), (1, 2, 3), 2, "no difference at the smallest batch", True),
                      public.CrossoverCase((0.9,), (7,), None, "a single row where compiled is slower", True),
                      public.CrossoverCase((1.2, 0.9, 1.1, 1.3), (1, 4, 16, 64), 16,
                                           "compiled faster at the smallest batch, slower at a larger one", True),
                      public.CrossoverCase((2.0,), (7,), 7, "a single row where compiled is faster", True),
                      public.CrossoverCase((0.8, 1.05, 1.08), (3, 9, 27), None,
                                           "speedups above 1 that this machine could not resolve", True,
                                           (public.SLOWER, public.SAME, public.SAME)),
                      public.CrossoverCase((1.4, 1.01, 1.5), (2, 6, 18), 18,
                                           "a size between two faster ones with no difference", True,
                                           (public.FASTER, public.SAME, public.FASTER)),
                      public.CrossoverCase((0.6, 0.97, 1.2), (2, 8, 32), 8,
                                           "a faster verdict where the ratio of the medians is just below 1", True,
                                           (public.SLOWER, public.FASTER, public.FASTER)),
                      public.CrossoverCase((), (), None, "no rows at all", True)],
                     public.SweepCase(batches=(3, 5, 7), d=16, even=(5, 7))),   # two sizes with no difference: a verdict from the medians is caught unless both resolve by chance
    "04.scheduler": lambda refs: scheduler_cases(),
    "04.report": lambda refs: public.ReportCase(tuple(k.name for d in [refs["tinyhead"], *stored_dumps("tinyhead")]
                                                      for k in softmax_kernels(d))),
}
