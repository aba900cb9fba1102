"""Check code in the grader process runs one thread at a time, while the jobs' probes still overlap."""

from __future__ import annotations

import threading

import torch.fx as fx
from torch import nn

from helpers.grading.hidden import GraderContext, Turns


class FakeJob:
    """A job whose probe returns only when `parties` probes are waiting at once."""

    def __init__(self, parties: int):
        self.barrier = threading.Barrier(parties, timeout=20)

    def probe(self, probe, args, kwargs, timeout):
        self.barrier.wait()   # BrokenBarrierError if the probes could not overlap
        return "answer"


def test_probes_overlap_while_check_code_takes_turns(monkeypatch):
    turns = Turns()
    monkeypatch.setattr("helpers.grading.hidden.GRADER_TURNS", turns)
    job, inside, most, answers, lock = FakeJob(3), [0], [0], [], threading.Lock()

    def grade():
        with turns.turn():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            gm = fx.symbolic_trace(nn.Sequential(nn.Linear(3, 3), nn.ReLU()))   # patches nn.Module.__call__
            with lock:
                inside[0] -= 1
            answers.append(GraderContext(job, 5).probe(len))
            assert len(gm.graph.nodes) == 4

    threads = [threading.Thread(target=grade) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert answers == ["answer"] * 3, "every probe returned: the waits overlapped"
    assert most[0] == 1, "check code never ran in two threads at once"


def test_away_without_a_turn_is_harmless():
    turns = Turns()
    with turns.away():
        pass
    with turns.turn():
        with turns.away():
            assert turns._lock.acquire(blocking=False)   # free while away
            turns._lock.release()
        assert not turns._lock.acquire(blocking=False)   # held again
