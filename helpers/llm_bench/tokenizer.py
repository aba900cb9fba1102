"""A byte-level tokenizer that needs no download: UTF-8 bytes are the ids 0–255, then a few specials.

Any text round-trips exactly (every string is a byte sequence), at about one token per ASCII character
(so prompts are 3–4× longer in tokens than with a trained BPE vocabulary of the same text).
"""

from __future__ import annotations


class ByteTokenizer:
    """encode(str) → list[int] of UTF-8 bytes; decode(list[int]) → str. Ids 256.. are specials."""

    SPECIALS = ("<bos>", "<eos>", "<pad>")
    bos_id, eos_id, pad_id = 256, 257, 258
    vocab_size = 256 + len(SPECIALS)

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        """The UTF-8 bytes of text as ids, with <bos> and <eos> around them if asked."""
        ids = list(text.encode("utf-8"))
        return ([self.bos_id] if bos else []) + ids + ([self.eos_id] if eos else [])

    def decode(self, ids: list[int], skip_special: bool = True) -> str:
        """Text from ids: bytes decoded as UTF-8 (a broken sequence becomes U+FFFD), specials dropped or named.

        Ids beyond the vocabulary (a model with a larger vocab, as the "1b" config has) become U+FFFD.
        """
        out, run = [], bytearray()
        for i in ids:
            if 0 <= i < 256:
                run.append(i)
                continue
            out.append(run.decode("utf-8", errors="replace"))
            run = bytearray()
            if i < self.vocab_size:
                out.append("" if skip_special else self.SPECIALS[i - 256])
            else:
                out.append("\ufffd")
        out.append(run.decode("utf-8", errors="replace"))
        return "".join(out)
