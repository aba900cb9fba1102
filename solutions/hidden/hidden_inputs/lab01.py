"""Lab 01: what the grader asks the learner's functions to work on, inside the job."""

import torch


def three_graphs(x):
    """Two explicit graph breaks: Dynamo hands three graphs to the backend."""
    y = x * 2
    torch._dynamo.graph_break()
    y = y + 1
    torch._dynamo.graph_break()
    return y.tanh()


def times(x, n):
    """count_compiles is asked to count this function's compiles over the grader's own sequence."""
    return x * n
