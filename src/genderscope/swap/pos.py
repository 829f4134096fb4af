"""Resolving "her" (-> "his" or "him") and "his" (-> "her" or "hers").

:class:`HeuristicTagger` (no model) decides from the next word: "her" is an object
pronoun ("him") before punctuation, at the end, or before a closed-class word that cannot
follow a possessive determiner (determiner, preposition or particle, conjunction,
pronoun, auxiliary or modal, common or "-ly" adverb, a few "-ly" nouns excepted), else
possessive ("his"); "his" is independent ("hers") before punctuation or a closed-class
word other than a determiner, else a determiner ("her"). :class:`SpacyTagger` uses
spaCy's ``PRP$`` / ``PRP`` tags when spaCy and ``en_core_web_sm`` are installed
(``tagger="spacy"`` or ``"auto"``). The heuristic's accuracy on a hand-labelled set is
measured in ``tests/transforms/test_swap_her.py``.
"""

from __future__ import annotations

import re
from typing import Protocol

_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "his", "her", "my",
                "their", "its", "our", "your", "some", "any", "every", "each", "no", "all",
                "both", "another", "such", "what", "which", "whose"}
_PREPOSITIONS = {"to", "in", "on", "at", "for", "with", "from", "by", "of", "about", "into",
                 "onto", "as", "up", "down", "out", "off", "over", "away", "through",
                 "after", "before", "during", "since", "until", "till", "against", "around",
                 "without", "under", "like", "upon", "towards", "toward", "across", "behind",
                 "along", "among", "between", "beside", "near", "within", "via", "per",
                 "throughout", "alongside", "except", "despite", "onstage", "aside"}
_CONJUNCTIONS = {"and", "or", "but", "nor", "that", "if", "when", "while", "because", "so",
                 "than", "who", "whom", "which", "where", "whether", "though", "although",
                 "unless", "once", "whereas", "how", "why", "yet"}
_PRONOUNS = {"he", "she", "it", "they", "we", "i", "you", "him", "them", "us", "me",
             "himself", "herself", "itself", "themselves", "one", "someone", "something",
             "anything", "nothing", "everything"}
_AUXILIARIES = {"is", "was", "were", "are", "be", "been", "am", "had", "has", "have",
                "would", "will", "could", "should", "can", "did", "does", "do", "may",
                "might", "must", "shall", "'s", "'d", "'ll"}
_ADVERBS = {"not", "never", "again", "too", "also", "very", "well", "there", "here", "now",
            "then", "twice", "just", "still", "even", "already", "soon", "instead",
            "anyway", "either", "neither", "ever", "further", "hard", "alone",
            "today", "tonight", "tomorrow", "yesterday", "together",
            "directly", "immediately", "repeatedly", "forever", "apart", "abroad",
            "anymore", "ahead", "almost"}
_LY_NOT_ADVERBS = {"family", "early", "only", "lovely", "elderly", "lonely", "ugly", "holy",
                   "daily", "weekly", "monthly", "yearly", "friendly", "lively", "likely",
                   "costly", "deadly", "orderly", "curly", "silly", "jolly", "belly",
                   "ally", "allies", "bully", "rally", "supply", "assembly", "reply",
                   "italy", "lily", "emily", "kelly", "molly", "sally", "holly", "beverly",
                   "shelly", "polly", "dolly", "ely", "burly", "wily", "homely", "comely",
                   "stately", "manly", "womanly", "motherly", "fatherly", "sisterly",
                   "brotherly", "worldly", "ghostly", "courtly", "unlikely", "fly"}

_HER_OBJECT_NEXT = _DETERMINERS | _PREPOSITIONS | _CONJUNCTIONS | _PRONOUNS | _AUXILIARIES \
    | _ADVERBS
_HIS_INDEPENDENT_NEXT = (_PREPOSITIONS | _CONJUNCTIONS | _PRONOUNS | _AUXILIARIES | _ADVERBS) \
    - {"own"}

_NEXT_WORD = re.compile(r"\s*([^\W\d_]+(?:'[^\W\d_]+)?|'[a-z]+|\d|[^\w\s])?")


def next_token(text: str, pos: int) -> str | None:
    """The next word or punctuation mark after ``pos`` (None at the end)."""
    m = _NEXT_WORD.match(text, pos)
    if m is None or m.group(1) is None:
        return None
    return m.group(1)


class Tagger(Protocol):
    name: str

    def her_is_possessive(self, text: str, start: int, end: int) -> bool: ...

    def his_is_determiner(self, text: str, start: int, end: int) -> bool: ...


class HeuristicTagger:
    """Next-word heuristic (see module docstring)."""

    name = "heuristic"

    @staticmethod
    def _object_context(nxt: str | None, allowed: set[str], ly_adverbs: bool) -> bool:
        if nxt is None:
            return True  # end of text: "... told her"
        if nxt[0].isdigit():
            return False  # "her 1976 hit"
        if not nxt[0].isalpha():
            return True  # punctuation: "... told her." / "her, and"
        w = nxt.lower()
        if w in allowed:
            return True
        return ly_adverbs and len(w) > 4 and w.endswith("ly") and w not in _LY_NOT_ADVERBS

    def her_is_possessive(self, text: str, start: int, end: int) -> bool:
        return not self._object_context(next_token(text, end), _HER_OBJECT_NEXT, True)

    def his_is_determiner(self, text: str, start: int, end: int) -> bool:
        return not self._object_context(next_token(text, end), _HIS_INDEPENDENT_NEXT, False)


class SpacyTagger:
    """spaCy part-of-speech tags (``PRP$`` = possessive determiner)."""

    name = "spacy"

    def __init__(self, model: str = "en_core_web_sm") -> None:
        import spacy  # optional dependency

        self._nlp = spacy.load(model, disable=["ner", "lemmatizer"])
        self.name = f"spacy:{model}"
        self._cache: tuple[str, object] | None = None

    def _tag(self, text: str, start: int) -> str:
        if self._cache is None or self._cache[0] != text:
            self._cache = (text, self._nlp(text))
        doc = self._cache[1]
        for tok in doc:  # type: ignore[attr-defined]
            if tok.idx == start:
                return str(tok.tag_)
        return ""

    def her_is_possessive(self, text: str, start: int, end: int) -> bool:
        tag = self._tag(text, start)
        return tag == "PRP$" if tag else HeuristicTagger().her_is_possessive(text, start, end)

    def his_is_determiner(self, text: str, start: int, end: int) -> bool:
        tag = self._tag(text, start)
        return tag == "PRP$" if tag else HeuristicTagger().his_is_determiner(text, start, end)


def make_tagger(kind: str = "auto") -> Tagger:
    """``"heuristic"``, ``"spacy"`` (error if unavailable) or ``"auto"``."""
    if kind == "heuristic":
        return HeuristicTagger()
    if kind in ("spacy", "auto"):
        try:
            return SpacyTagger()
        except Exception as exc:  # ImportError, OSError (model not installed)
            if kind == "spacy":
                from genderscope.errors import GenderscopeError

                raise GenderscopeError(f"spaCy tagger unavailable: {exc}") from None
            return HeuristicTagger()
    from genderscope.errors import GenderscopeError

    raise GenderscopeError(f"unknown tagger {kind!r}; use auto, heuristic or spacy")
