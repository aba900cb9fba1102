"""Shared helpers for the torch.compile workbook.

One module per job: env (device, QUICK sizes, doctor), bench (timing), memory
(CUDA memory), inductor (capture and parse generated code), models (the shared
models), plots, checks (acceptance criteria), notebooks (build labs from
solutions), grading (score submissions), cli (the `workbook` command).
"""

__version__ = "0.1.0"
