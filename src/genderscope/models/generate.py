"""Text generation for chat models: decoding parameters, the generation cache, and
batched local generation with left padding.

A *generation* is one answer of a chat model to one prompt (a list of chat messages,
or one user turn given as a string). Its cache key is the SHA-256 of the rendered
prompt (the chat template applied, for a local model; the messages as JSON, for an
endpoint), the decoding parameters and the repetition index; the store keeps it under
the model's fingerprint (namespace :data:`NAMESPACE`). A rerun generates nothing, and
an interrupted run resumes: answers are written chunk by chunk.

Decoding is greedy by default (:class:`Decoding`; docs/models.md); ``repeat_penalty``
and ``extra_body`` enter the cache key only when set, so earlier answers keep their keys.
Sampling (``temperature>0``) draws each generation with its own seed, derived from
``seed``, the rendered prompt and the repetition index (:func:`item_seed`), and runs one
prompt at a time, so an answer depends neither on the batch it ran in nor on the order
of the prompts. Greedy prompts run in batches, left-padded (the new tokens of every row
start at the same position), shortest first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import inf
from typing import TYPE_CHECKING, Any

from genderscope.checks import whole_number
from genderscope.errors import GenderscopeError

if TYPE_CHECKING:
    from genderscope.store import Store

NAMESPACE = "generation"
Prompt = str | Sequence[Mapping[str, str]]
"""One user turn, or chat messages ``[{"role": ..., "content": ...}, ...]``."""


@dataclass(frozen=True)
class Decoding:
    """How answers are decoded (part of every generation's cache key).

    ``max_new_tokens``: at most this many tokens per answer. ``temperature``: 0 is
    greedy; > 0 samples (with ``top_p`` nucleus sampling). ``stop``: an answer is cut
    before the first of these strings. ``seed``: base seed of sampled answers.
    ``repeat_penalty``: the repetition penalty (1: none; None: the server's or model's
    own: llama.cpp's server applies 1.1, even at temperature 0). ``extra_body``: a JSON
    object (a dict or its JSON text) merged last into an endpoint's request body; local
    models refuse it."""

    max_new_tokens: int = 300
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = field(default=())
    seed: int = 0
    repeat_penalty: float | None = None
    extra_body: Mapping[str, Any] | str | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        whole_number(int(self.max_new_tokens), "max_new_tokens", 1)  # at most COUNT_MAX's
        if not self.temperature >= 0:
            raise GenderscopeError(f"--temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise GenderscopeError(f"--top-p must be in (0, 1], got {self.top_p}")
        if self.repeat_penalty is not None:
            if isinstance(self.repeat_penalty, bool) or not isinstance(
                    self.repeat_penalty, (int, float)) or not 0 < self.repeat_penalty < inf:
                raise GenderscopeError(f"--repeat-penalty must be a number > 0 (1: no "
                                       f"penalty), got {self.repeat_penalty!r}")
            object.__setattr__(self, "repeat_penalty", float(self.repeat_penalty))
        object.__setattr__(self, "stop", tuple(str(s) for s in self.stop if s))
        object.__setattr__(self, "extra_body", extra_body_of(self.extra_body))

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stop"] = list(self.stop)
        for name in ("repeat_penalty", "extra_body"):  # keyed only when set
            if d[name] is None:
                d.pop(name)
        if self.greedy:  # the seed and top_p change nothing in greedy decoding
            d.pop("seed")
            d.pop("top_p")
        return d


def extra_body_of(value: Mapping[str, Any] | str | None) -> dict[str, Any] | None:
    """``--extra-body``: a JSON object (a dict or its JSON text) as a plain dict, None
    when empty; anything else is a one-line :class:`GenderscopeError`."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except ValueError as exc:
            raise GenderscopeError(f"--extra-body must be a JSON object, e.g. "
                                   f"'{{\"repeat_penalty\": 1.0}}': {exc}") from None
    if not isinstance(value, Mapping):
        raise GenderscopeError(f"--extra-body must be a JSON object, e.g. "
                               f"'{{\"repeat_penalty\": 1.0}}', got {value!r:.80}")
    try:  # plain JSON values only (it is sent as JSON and keys the answers)
        plain = json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise GenderscopeError(f"--extra-body must hold JSON values only: {exc}") from None
    return plain or None


CHARS_PER_TOKEN = 64
"""The longest answer kept, in characters per allowed new token (no tokenizer's tokens
are longer in practice). An answer beyond ``max_new_tokens * CHARS_PER_TOKEN``
characters (a server that ignores ``max_tokens``, or a store written before the cap) is
cut there before it is stored or read, so an oversized answer can neither fill the store
nor stall the answer detection."""


def max_answer_chars(decoding: Decoding) -> int:
    """The most characters an answer under ``decoding`` may hold (see
    :data:`CHARS_PER_TOKEN`)."""
    return int(decoding.max_new_tokens) * CHARS_PER_TOKEN


def check_new_tokens(decoding: Decoding, context: int | None, source: str) -> None:
    """Refuse, in one line, ``max_new_tokens`` above the model's context (its positions):
    no answer can be that long, and asking for it only makes the run hang."""
    n = int(decoding.max_new_tokens)
    if context is not None and n > context:
        raise GenderscopeError(f"--max-new-tokens {n} is more than the context of {source} "
                               f"({context} tokens); give at most {context}")


def local_decoding(decoding: Decoding, what: str = "a local model") -> None:
    """Refuse, in one line, what ``what`` cannot do: an ``extra_body`` (there is no
    request body)."""
    if decoding.extra_body:
        raise GenderscopeError(f"--extra-body is passed to an endpoint's request body; "
                               f"{what} has none (drop it, or use --model openai:NAME "
                               "--base-url URL)")


def as_messages(prompt: Prompt) -> list[dict[str, str]]:
    """A prompt as chat messages (a string is one user turn)."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in prompt]


def generation_key(rendered: str, decoding: Decoding, repetition: int) -> str:
    """Cache key of one generation (hex SHA-256)."""
    blob = json.dumps({"prompt": rendered, "decoding": decoding.as_dict(),
                       "repetition": int(repetition)}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def item_seed(decoding: Decoding, rendered: str, repetition: int) -> int:
    """Seed of one sampled generation: a hash of the base seed, prompt and repetition."""
    blob = f"{decoding.seed}\x1f{repetition}\x1f{rendered}".encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:4], "little")


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to (not including) the earliest stop string."""
    cut = min((i for s in stop if (i := text.find(s)) >= 0), default=len(text))
    return text[:cut]


def cached_generations(store: Store | None, fingerprint: str, keys: Sequence[str],
                       compute: Callable[[list[int]], list[str]], *, progress: bool,
                       label: str, chunk: int, sizes: Sequence[int] | None = None,
                       max_chars: int | None = None) -> list[str]:
    """Answers for ``keys``: from the store, else ``compute(indices)`` (indices into
    ``keys``, each distinct key once), run ``chunk`` at a time, each chunk written in one
    transaction once all its answers are there (a failed chunk records nothing). ``sizes``
    (e.g. the rendered prompts' lengths): the missing prompts are chunked shortest first, so
    a chunk's batches hold prompts of like length. ``max_chars``: answers, computed or
    stored, are cut to this many characters (:data:`CHARS_PER_TOKEN`)."""
    from genderscope.progress import progress_bar

    def cut(text: str) -> str:
        return text if max_chars is None or len(text) <= max_chars else text[:max_chars]

    found: dict[str, str] = {}
    if store is not None:
        found = {k: cut(_stored_text(v)) for k, v in store.get_texts(
            fingerprint, NAMESPACE, list(dict.fromkeys(keys))).items()}
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k not in found:
            first.setdefault(k, i)
    todo = list(first.values())
    if sizes is not None:
        todo.sort(key=lambda i: sizes[i])
    if todo:
        with progress_bar(label, total=len(todo), enabled=progress) as advance:
            for s in range(0, len(todo), chunk):
                part = todo[s:s + chunk]
                answers = compute(part)
                if len(answers) != len(part) or not all(isinstance(a, str) for a in answers):
                    raise GenderscopeError(f"{label}: the model gave {len(answers)} answers "
                                           f"for {len(part)} prompts")
                fresh = {keys[i]: cut(a) for i, a in zip(part, answers, strict=True)}
                if store is not None:
                    store.put_texts(fingerprint, NAMESPACE, {
                        k: json.dumps({"text": a}, ensure_ascii=False) for k, a in fresh.items()})
                found.update(fresh)
                advance(len(part))
    return [found[k] for k in keys]


def _stored_text(value: str) -> str:
    """The answer text of a stored generation; a damaged record reads as an empty
    (undetected) answer instead of stopping the run."""
    try:
        text = json.loads(value)["text"]
    except (ValueError, TypeError, KeyError):
        return ""
    return text if isinstance(text, str) else ""


# -- local models (torch) ----------------------------------------------------------------
def render_chat(tokenizer: Any, prompt: Prompt, source: str) -> str:
    """The prompt with the tokenizer's chat template applied, ready for the answer."""
    if not getattr(tokenizer, "chat_template", None):
        raise GenderscopeError(f"{source}: the tokenizer has no chat template; chat probes "
                               "need an instruction-tuned model that ships one (or an "
                               "endpoint: --model openai:NAME --base-url URL)")
    return str(tokenizer.apply_chat_template(as_messages(prompt), tokenize=False,
                                             add_generation_prompt=True))


def generate_local(model: Any, tokenizer: Any, device: Any, rendered: Sequence[str],
                   decoding: Decoding, seeds: Sequence[int], *, batch_size: int) -> list[str]:
    """Answers of a local causal LM to rendered prompts (see module doc).

    The template holds the special tokens, so prompts are tokenized without adding
    any. A batch is left-padded; generation stops at the model's end-of-turn / EOS
    tokens, at a stop string, or after ``max_new_tokens``."""
    import torch
    from transformers import GenerationConfig

    local_decoding(decoding)
    from genderscope.models.engine import max_positions

    check_new_tokens(decoding, max_positions(getattr(model, "config", None)),
                     str(getattr(getattr(model, "config", None), "_name_or_path", "") or
                         "the model"))
    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in rendered]
    eos = _eos_ids(model, tokenizer)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos[0]
    cfg = GenerationConfig(max_new_tokens=int(decoding.max_new_tokens),
                           do_sample=not decoding.greedy, eos_token_id=eos, pad_token_id=pad,
                           **({} if decoding.greedy else {
                               "temperature": float(decoding.temperature),
                               "top_p": float(decoding.top_p), "top_k": None}),
                           **({} if decoding.repeat_penalty is None else {
                               "repetition_penalty": decoding.repeat_penalty}))
    extra: dict[str, Any] = {}
    if decoding.stop:
        cfg.stop_strings = list(decoding.stop)
        extra["tokenizer"] = tokenizer
    out: list[str | None] = [None] * len(ids)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    step = batch_size if decoding.greedy else 1
    for s in range(0, len(order), step):
        part = order[s:s + step]
        width = max(len(ids[i]) for i in part)
        x = torch.tensor([[pad] * (width - len(ids[i])) + list(ids[i]) for i in part],
                         device=device)
        mask = torch.tensor([[0] * (width - len(ids[i])) + [1] * len(ids[i]) for i in part],
                            device=device)
        with torch.inference_mode(), torch.random.fork_rng(devices=[]):
            if not decoding.greedy:
                torch.manual_seed(int(seeds[part[0]]))
            gen = model.generate(input_ids=x, attention_mask=mask, generation_config=cfg,
                                 **extra)
        for row, i in enumerate(part):
            out[i] = cut_at_stop(_decoded(tokenizer, gen[row, width:].tolist(), eos),
                                 decoding.stop)
    return [o if o is not None else "" for o in out]


def _eos_ids(model: Any, tokenizer: Any) -> list[int]:
    """End-of-turn ids: the generation config's EOS ids and the tokenizer's EOS."""
    found: list[int] = []
    gen_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    for e in ([gen_eos] if isinstance(gen_eos, int) else list(gen_eos or [])) + \
            [tokenizer.eos_token_id]:
        if e is not None and int(e) not in found:
            found.append(int(e))
    if not found:
        raise GenderscopeError("the model has no end-of-sequence token to stop generation at")
    return found


def _decoded(tokenizer: Any, tokens: list[int], eos: Sequence[int]) -> str:
    """The text of ``tokens`` up to the first end-of-turn id, special tokens skipped."""
    end = next((j for j, t in enumerate(tokens) if t in eos), len(tokens))
    return tokenizer.decode(tokens[:end], skip_special_tokens=True)
