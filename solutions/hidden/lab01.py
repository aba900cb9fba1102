"""Lab 01 hidden cases: the grader's cases and reference answers for the checks in helpers/checks/lab01.py.

Never released. Cases only: unordered rows and sizes that are not powers of ten for the knee, a negative intercept
for the fit, a function with two breaks, other inputs, another call sequence, another model to export, other dtypes
for the traffic model. What Dynamo and the capture methods do on this machine is measured once per batch by the
grader (REFERENCES), never in the learner's kernel.
"""

from __future__ import annotations

import torch
from hidden_inputs import lab01 as inputs

from helpers.checks import lab01 as public


def _unsorted(rows):
    return rows[3:] + rows[:3]


HIDDEN_CALLS = ((torch.ones(2, 2), 1), (torch.ones(2, 2), 1), (torch.ones(2, 2), 1.5), (torch.ones(3, 2), 1),
                (torch.ones(2, 2, dtype=torch.float16), 1))


def dynamo_counts() -> dict:
    """How many graphs Dynamo compiles for the lab's sequence and for the grader's own, on this machine."""
    return {"lab": public.measured_compiles(public.scale, public.lab_calls()),
            "hidden": public.measured_compiles(inputs.times, list(HIDDEN_CALLS))}


REFERENCES = {"capture_table": public.observed_capture_table, "compiles": dynamo_counts}


def recompile_case(refs: dict) -> public.RecompileCase:
    return public.RecompileCase(refs["compiles"]["lab"], inputs.times, HIDDEN_CALLS, refs["compiles"]["hidden"])


CASES = {
    "01.dispatch": public.DispatchCases((
        public.KneeCase(tuple(_unsorted(public.synthetic_op_rows(12.0, 0.02, [10**k for k in range(9)]))), 12.0002, 10**6,
                        "rows not in size order"),
        public.KneeCase(tuple(public.synthetic_op_rows(2.0, 3.0, [1, 2, 4, 8, 1024])), 2.006, 1024,
                        "sizes that are not powers of ten"),
        public.KneeCase(tuple(reversed(public.rows_of({2: 4.0, 20: 4.0, 200: 4.0, 2000: 12.0, 20000: 13.0}))), 4.0, 20000,
                        "rows from the largest size down, asked with another factor, one size exactly at factor × the "
                        "floor", factor=3.0),
        public.KneeCase(public.rows_of({5: 7.0, 50: 7.0, 500: 7.0, 5000: 13.0}), 7.0, None,
                        "rows whose largest time stays within factor × the floor")),
        (1, 1000, 100000), False, sleep_ms=2.0),
    "01.per_op": ([*public.PUBLIC_FIT_CASES,
                   public.FitCase(tuple((k, 0.75 * k - 2.0) for k in (3, 1, 7, 5, 9)), 0.75, -2.0,
                                  "the grader's points (unordered, with a negative intercept)"),
                   public.FitCase(((2, 3.0), (3, 8.0), (5, 7.0), (6, 12.0)), 1.7, 0.7,
                                  "the grader's noisy points (not on one line)")], False),
    "01.capture_table": lambda refs: refs["capture_table"],
    "01.recording_backend": [public.BreakCase(inputs.three_graphs, torch.linspace(-1, 1, 7), 3,
                                              "a function with two graph breaks")],
    "01.no_breaks": public.break_inputs(11, ((9, 3), (5,), (33,))),
    "01.recompiles": recompile_case,
    "01.count_compiles": recompile_case,
    "01.export": [public.ExportCase(seed=21, d_in=12, d_out=5, example_batch=3, max_batch=20, batches=(1, 9, 20))],
    "01.traffic_model": public.TrafficCases(((4096, 7, False, 2, 114688), (4096, 7, True, 2, 16384), (1, 2, False, 1, 4)),
                                            (11,), False),
}
