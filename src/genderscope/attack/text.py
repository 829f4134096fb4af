"""A text as a fixed list of words between untouched separators.

The attack replaces whole words and leaves everything else (spacing,
punctuation, @mentions, URLs, hashtags) exactly as it was, so an adversarial
text differs from the original only in the substituted words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from genderscope.casing import match_case

_WORD_RE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_CHUNK_RE = re.compile(r"\S+")


def _is_opaque(chunk: str) -> bool:
    """Chunks never split into words: mentions, URLs, e-mail addresses, hashtags."""
    low = chunk.lower()
    return (chunk.startswith(("@", "#")) or "http" in low or "://" in low or "www." in low
            or ("@" in chunk and "." in chunk) or chunk.startswith("&"))


@dataclass(frozen=True)
class WordText:
    """``pieces`` alternate separator, word, separator, ..., separator.

    ``words`` are ``pieces[1::2]``; ``"".join(pieces)`` is the original text.
    """

    pieces: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> WordText:
        pieces: list[str] = []
        sep = ""
        pos = 0
        for chunk_m in _CHUNK_RE.finditer(text):
            sep += text[pos:chunk_m.start()]
            pos = chunk_m.end()
            chunk = chunk_m.group()
            if _is_opaque(chunk):
                sep += chunk
                continue
            cpos = 0
            for m in _WORD_RE.finditer(chunk):
                sep += chunk[cpos:m.start()]
                pieces.extend([sep, m.group()])
                sep = ""
                cpos = m.end()
            sep += chunk[cpos:]
        sep += text[pos:]
        pieces.append(sep)
        return cls(tuple(pieces))

    @property
    def words(self) -> tuple[str, ...]:
        return self.pieces[1::2]

    def render(self, words: tuple[str, ...] | list[str]) -> str:
        """The text with its words replaced by ``words`` (same length)."""
        if len(words) != len(self.words):
            raise ValueError(f"expected {len(self.words)} words, got {len(words)}")
        out = list(self.pieces)
        out[1::2] = words
        return "".join(out)

    def window(self, words: tuple[str, ...] | list[str], index: int, size: int) -> str:
        """Words ``index - size .. index + size`` with their separators (trimmed)."""
        lo = max(0, index - size)
        hi = min(len(words), index + size + 1)
        parts: list[str] = []
        for i in range(lo, hi):
            parts.append(words[i])
            if i < hi - 1:
                parts.append(self.pieces[2 * i + 2])
        return "".join(parts).strip()


__all__ = ["WordText", "match_case"]
