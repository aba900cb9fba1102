"""What one generation asks for (GenerationConfig) and what it measured (GenerationResult), plus sampling.

Timing rule: a token's timestamp is taken when its id is on the host, after the device work that made it
has finished (the backend's `.tolist()` waits for it). On CPU that is free. On a GPU it costs one device
sync per token: the host cannot queue step n+1 while step n runs, so each step's launch overhead is paid
in full instead of hiding behind the previous step's kernels; the cost is largest in eager mode (hundreds of
launches a step) and small with mode="reduce-overhead" (one CUDA graph a step). A streaming server pays the same
price: it must see each token to send it and to check for a stop.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch


@dataclass(frozen=True)
class GenerationConfig:
    """How to generate: greedy when temperature is 0; stop when every sequence has emitted a stop id."""

    max_new_tokens: int = 32
    temperature: float = 0.0
    top_k: int | None = None
    seed: int = 0
    stop_token_ids: tuple[int, ...] = ()

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0


ARGMAX_CHUNK = 256   # greedy_ids' first stage: the maximum of each run of this many logits


def greedy_ids(logits: torch.Tensor) -> torch.Tensor:
    """torch.argmax over the vocabulary of (batch, vocab) logits, in two stages: the maximum of every ARGMAX_CHUNK
    logits (one GPU program each), then the best of those. The same ids as `logits.argmax(-1)`, ties to the first
    maximum included; a one-row argmax over a 128,256-word vocabulary is a single long reduction otherwise (an H200,
    torch 2.11.0, triton 3.6.0: 35 µs in eager, 29 µs as one Inductor kernel, 3 % of a 1B model's decode step)."""
    batch, vocab = logits.shape
    if vocab <= 4 * ARGMAX_CHUNK:
        return logits.argmax(dim=-1)
    pad = -vocab % ARGMAX_CHUNK
    if pad:
        logits = torch.nn.functional.pad(logits, (0, pad), value=float("-inf"))
    best, where = logits.view(batch, -1, ARGMAX_CHUNK).max(dim=-1)
    chunk = best.argmax(dim=-1, keepdim=True)
    return (chunk * ARGMAX_CHUNK + where.gather(1, chunk)).squeeze(1)


def sample_next(logits: torch.Tensor, config: GenerationConfig, generator: torch.Generator | None) -> torch.Tensor:
    """Next ids (batch,) from last-position logits (batch, vocab): argmax, or softmax(logits / T) sampling."""
    if config.greedy:
        return greedy_ids(logits)
    logits = logits.float() / config.temperature
    if config.top_k is not None:
        kth = torch.topk(logits, min(config.top_k, logits.shape[-1]), dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)


def stream_tokens(logits: torch.Tensor, advance, config: GenerationConfig, generator: torch.Generator | None):
    """The token loop every backend shares: sample from last-position logits (batch, vocab), yield the ids once they
    are on the host, stop at max_new_tokens or when every sequence hit a stop id, else `advance(next_ids)` (one
    decode step, returning the next last-position logits).

    On a GPU, where queueing a step costs the host less than the GPU then still has to do (a CUDA-graph replay, not an
    eager step), the next step is queued before waiting for this step's ids: they travel to the host behind an event
    of their own, so the host's work between tokens (sampling, the compiled step's guards and launch, the caller's
    bookkeeping) overlaps the GPU's next step instead of leaving the GPU idle. A token is still yielded, and stamped,
    only once its ids are on the host; the step queued after a stop id is never read. The first two tokens are read
    before anything is queued: TTFT is exact, and their gap tells how long queueing a step takes the host against how
    long the host then waits for the GPU. An eager step keeps the host busy for about a whole step while it is queued
    (an H100, Llama 3.2 1B shapes: eager TTFT read 32 ms against a 16 ms TPOT when the first token was read after it),
    so there every token is read before the next step is queued and every stamp is exact; with overlap each stamp
    waits for a short queueing, about the same for every token.

    A step that picks its own token (a compiled greedy step with the argmax inside) returns (logits or None, ids):
    those ids are used as they are, without sampling."""
    stopped = [False] * logits.shape[0]
    device, on_gpu = logits.device, logits.is_cuda
    queue_s = wait_s = 0.0       # the host's time to queue the last step, and its wait for that step's ids after it
    ready = None                 # ids a step picked itself: advance may return (logits, ids) instead of logits
    for step in range(config.max_new_tokens):
        last = step + 1 == config.max_new_tokens
        queue_first = on_gpu and not last and step > 1 and queue_s < wait_s
        with torch.no_grad():
            next_ids = ready if ready is not None else sample_next(logits, config, generator)
            if queue_first:
                on_host = next_ids.to("cpu", non_blocking=True)
                copied = torch.cuda.Event()
                copied.record(torch.cuda.current_stream(device))
                logits, ready = _step_output(advance(next_ids))   # queued behind the copy; runs while we wait
                copied.synchronize()
                ids = on_host.tolist()
            else:
                waited = time.perf_counter()
                ids = next_ids.tolist()  # waits for the device: from here the token is on the host
                wait_s = time.perf_counter() - waited
        yield ids
        stopped = [s or i in config.stop_token_ids for s, i in zip(stopped, ids)]
        if all(stopped) or last:
            return
        if not queue_first:
            with torch.no_grad():
                queued = time.perf_counter()
                logits, ready = _step_output(advance(next_ids))
                queue_s = time.perf_counter() - queued


def _step_output(out) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """(logits, ids) from what `advance` returned: logits alone, or (logits or None, the ids the step picked)."""
    return out if isinstance(out, tuple) else (out, None)


def percentiles(xs: list[float], qs: tuple[float, ...] = (50, 95, 99)) -> dict[str, float]:
    """{"p50": …, "p95": …, "p99": …, "mean": …} with numpy's linear interpolation; NaN where xs is empty.

    With few samples the high percentiles are interpolated between the largest ones: p99 of 3 runs is
    nearly their maximum. Tail latencies need many runs.
    """
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return {**{f"p{q:g}": math.nan for q in qs}, "mean": math.nan}
    return {**{f"p{q:g}": float(np.percentile(xs, q)) for q in qs}, "mean": float(np.mean(xs))}


@dataclass
class GenerationResult:
    """One generation: the ids of every step and the monotonic time (time.perf_counter, s) each reached the host."""

    prompt_tokens: int
    batch: int
    start_s: float
    token_times_s: list[float] = field(default_factory=list)
    tokens: list[list[int]] = field(default_factory=list)  # one list per step: an id for each sequence

    @property
    def n_tokens(self) -> int:
        """Decode steps made (each gives one token to each sequence of the batch)."""
        return len(self.token_times_s)

    @property
    def ttft_s(self) -> float:
        """Time to first token: prefill plus the first sampling, as the caller saw it."""
        return self.token_times_s[0] - self.start_s if self.token_times_s else math.nan

    @property
    def itl_s(self) -> list[float]:
        """Inter-token latencies: the gaps between successive tokens."""
        t = self.token_times_s
        return [b - a for a, b in zip(t, t[1:])]

    @property
    def tpot_s(self) -> float:
        """Time per output token after the first: the mean gap between successive tokens."""
        n = self.n_tokens
        return (self.token_times_s[-1] - self.token_times_s[0]) / (n - 1) if n > 1 else math.nan

    @property
    def e2e_s(self) -> float:
        """End to end: from the call to the last token."""
        return self.token_times_s[-1] - self.start_s if self.token_times_s else math.nan

    @property
    def tokens_per_s(self) -> float:
        """Generated tokens (all sequences) per second of end-to-end time, prefill included."""
        return self.batch * self.n_tokens / self.e2e_s if self.n_tokens else math.nan

    @property
    def naive_ttft_s(self) -> float:
        """The guess that needs no stream, e2e / n_tokens: wrong whenever prefill and decode steps differ."""
        return self.e2e_s / self.n_tokens if self.n_tokens else math.nan

    def sequences(self) -> list[list[int]]:
        """The generated ids per sequence (batch lists), from the per-step lists."""
        return [list(seq) for seq in zip(*self.tokens)] if self.tokens else [[] for _ in range(self.batch)]

    def summary(self) -> dict:
        """The derived numbers as a plain dict (seconds), for JSON."""
        return {"prompt_tokens": self.prompt_tokens, "batch": self.batch, "n_tokens": self.n_tokens,
                "ttft_s": self.ttft_s, "tpot_s": self.tpot_s, "e2e_s": self.e2e_s,
                "tokens_per_s": self.tokens_per_s, "naive_ttft_s": self.naive_ttft_s,
                "token_offsets_s": [t - self.start_s for t in self.token_times_s]}
