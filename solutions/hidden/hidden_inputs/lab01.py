"""Lab 01: what the grader asks the learner's functions to work on, inside the job."""

import torch


def three_graphs(x):
    """Two prints: Dynamo hands three graphs to the backend."""
    y = x * 2
    print("a", end="\r")
    y = y + 1
    print("b", end="\r")
    return y.tanh()


def times(x, n):
    """count_compiles is asked to count this function's compiles over the grader's own sequence."""
    return x * n
