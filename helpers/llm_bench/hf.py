"""HFBackend: any `transformers` causal LM behind the LLMBackend interface (transformers is optional).

Give it a Hub id or a local path (from_pretrained: downloads are the caller's choice), a model object, or
one of helpers.llama's configs ("tiny", a LlamaConfig): then a transformers LlamaForCausalLM is built
locally and given the very weights helpers.llama.build_model makes from the same seed, so HF and our
backends can be compared token for token. The KV cache is transformers' own (a DynamicCache by default).
"""

from __future__ import annotations

import inspect
from typing import Iterator

import torch
from torch import nn

from helpers.env import pick_device
from helpers.llama import CONFIGS, Llama, LlamaConfig, build_model
from helpers.llm_bench.base import LLMBackend, as_batch, resolve_dtype
from helpers.llm_bench.generation import GenerationConfig, stream_tokens
from helpers.llm_bench.quantize import decode_weight_bytes, weight_bytes

INSTALL_HINT = ("HFBackend needs the transformers package, which is not installed here: install it into the Python "
                "that runs the course, `.venv/bin/python -m pip install transformers` in the course's folder")

# helpers.llama's parameter names → transformers' LlamaForCausalLM names (per layer, then the rest)
LAYER_NAMES = {"attn_norm": "input_layernorm", "attn.q_proj": "self_attn.q_proj", "attn.k_proj": "self_attn.k_proj",
               "attn.v_proj": "self_attn.v_proj", "attn.o_proj": "self_attn.o_proj",
               "mlp_norm": "post_attention_layernorm", "mlp.gate_proj": "mlp.gate_proj",
               "mlp.up_proj": "mlp.up_proj", "mlp.down_proj": "mlp.down_proj"}
TOP_NAMES = {"embed.weight": "model.embed_tokens.weight", "norm.weight": "model.norm.weight",
             "lm_head.weight": "lm_head.weight"}


def require_transformers():
    """The transformers module, or an ImportError that says how to install it."""
    try:
        import transformers
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    return transformers


def hf_llama_config(config: LlamaConfig):
    """The transformers.LlamaConfig with the same shapes as ours."""
    transformers = require_transformers()
    return transformers.LlamaConfig(
        vocab_size=config.vocab_size, hidden_size=config.dim, intermediate_size=config.ffn_dim,
        num_hidden_layers=config.n_layers, num_attention_heads=config.n_heads, num_key_value_heads=config.n_kv_heads,
        head_dim=config.head_dim, max_position_embeddings=config.max_seq_len, rms_norm_eps=config.norm_eps,
        rope_theta=config.rope_theta, tie_word_embeddings=config.tie_embeddings, hidden_act="silu",
        attention_bias=False, mlp_bias=False)


def hf_state_dict(model: Llama) -> dict[str, torch.Tensor]:
    """Our model's weights under transformers' Llama names (same layout: RoPE is "rotate half" in both)."""
    out = {}
    for name, tensor in model.state_dict().items():
        if name in TOP_NAMES:
            out[TOP_NAMES[name]] = tensor
            continue
        _, index, rest = name.split(".", 2)  # layers.<i>.<module path>.weight
        module, _, leaf = rest.rpartition(".")
        out[f"model.layers.{index}.{LAYER_NAMES[module]}.{leaf}"] = tensor
    return out


def hf_llama_from(model: Llama) -> nn.Module:
    """A transformers LlamaForCausalLM holding a copy of our model's weights, on its device and dtype."""
    transformers = require_transformers()
    weight = model.embed.weight
    dtype_kw = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    with torch.device(weight.device):
        hf = transformers.AutoModelForCausalLM.from_config(hf_llama_config(model.config), **{dtype_kw: weight.dtype})
    missing, unexpected = hf.load_state_dict(hf_state_dict(model), strict=False)
    missing = [k for k in missing if not (k == "lm_head.weight" and model.config.tie_embeddings)]
    if missing or unexpected:
        raise RuntimeError(f"weights did not map onto transformers' Llama: missing {missing}, unexpected {unexpected}")
    return hf.eval()


class HFBackend(LLMBackend):
    """A transformers causal LM: prefill the prompt, then one forward per token with its past_key_values."""

    name = "hf"

    def __init__(self, model: str | LlamaConfig | nn.Module = "tiny", device: str | torch.device = "auto",
                 dtype: str | torch.dtype = "auto", seed: int = 0):
        self.transformers = require_transformers()  # fail here, with the install hint, not at load()
        self.device = pick_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.seed = seed
        self.source = model
        if isinstance(model, str) and model in CONFIGS:
            model = LlamaConfig.named(model)
        self.config = model if isinstance(model, LlamaConfig) else None
        self.model: nn.Module | None = None

    def load(self) -> "HFBackend":
        if self.config is not None:  # built here from our config, with our seed's weights: no download
            ours = build_model(self.config, self.seed, self.device, self.dtype)
            self.model = hf_llama_from(ours)
            del ours
        elif isinstance(self.source, nn.Module):
            self.model = self.source.to(self.device).eval()
        else:
            dtype_kw = "dtype" if int(self.transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
            self.model = self.transformers.AutoModelForCausalLM.from_pretrained(
                self.source, **{dtype_kw: self.dtype}).to(self.device).eval()
        self._keep_kw = {"logits_to_keep": 1} if "logits_to_keep" in inspect.signature(self.model.forward).parameters else {}
        return self

    def generate(self, prompt_ids, config: GenerationConfig) -> Iterator[list[int]]:
        if self.model is None:
            raise RuntimeError("hf: call load() before generate()")
        prompts = as_batch(prompt_ids)
        generator = None if config.greedy else torch.Generator(device=self.device).manual_seed(config.seed)
        with torch.no_grad():
            out = self.model(input_ids=torch.tensor(prompts, device=self.device), use_cache=True, **self._keep_kw)
        past = [out.past_key_values]

        def advance(next_ids):
            step = self.model(input_ids=next_ids[:, None], past_key_values=past[0], use_cache=True)
            past[0] = step.past_key_values
            return step.logits[:, -1]

        yield from stream_tokens(out.logits[:, -1], advance, config, generator)

    def info(self) -> dict:
        name = self.config.name if self.config is not None else str(getattr(self.source, "name_or_path", self.source))
        return {"backend": self.name, "model": name, "dtype": str(self.dtype).removeprefix("torch."),
                "device": str(self.device), "transformers": self.transformers.__version__,
                "weight_bytes": weight_bytes(self.model) if self.model is not None else None,
                "decode_weight_bytes": decode_weight_bytes(self.model) if self.model is not None else None}
