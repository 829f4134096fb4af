"""Gender-analogy adversarial attack on text classifiers (Alzantot et al. 2018 style).

An attack = transformation (:mod:`.transformation`: word-vector gender-analogy
substitutions) + constraint (:mod:`.constraint`: causal-LM fluency filter) +
goal (:mod:`.goal`) + search (:mod:`.search`: genetic algorithm), put together
by :class:`~genderscope.attack.attacker.GenderAttack`.
"""

from genderscope.attack.attacker import (
    FAILURE,
    NOT_ATTACKABLE,
    SUCCESS,
    AttackOutcome,
    GenderAttack,
)
from genderscope.attack.constraint import LMFilter, lm_scorer
from genderscope.attack.goal import Goal
from genderscope.attack.search import GeneticSearch, SearchOutcome
from genderscope.attack.text import WordText, match_case
from genderscope.attack.transformation import (
    DIRECTIONS,
    STOP_WORDS,
    AnalogyNeighbours,
    is_inflection,
    substitutable,
)

__all__ = ["FAILURE", "NOT_ATTACKABLE", "SUCCESS", "AttackOutcome", "GenderAttack",
           "LMFilter", "lm_scorer", "Goal", "GeneticSearch", "SearchOutcome", "WordText",
           "match_case", "DIRECTIONS", "STOP_WORDS", "AnalogyNeighbours", "is_inflection",
           "substitutable"]
