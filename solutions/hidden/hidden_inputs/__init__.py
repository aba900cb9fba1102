"""Inputs of the hidden checks that must exist inside a grading job (functions, model classes).

Never released, and not secret from a job: the learner's code runs on these. The reference answers are not here;
they stay in solutions/hidden/labNN.py, which only the grader reads.
"""
