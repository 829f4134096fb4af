"""Accuracy of "her" -> his/him (and "his" -> her/hers) on a hand-labelled set.

Each sentence has one "her" (or "his"); the label is the correct male (female)
form, assigned by hand from the grammar of the sentence.
"""

from __future__ import annotations

import re

import pytest

from genderscope.swap import GenderSwapper

HER = [  # (sentence, correct replacement)
    ("She lost her keys.", "his"),
    ("I saw her yesterday.", "him"),
    ("They gave her the prize.", "him"),
    ("Her mother was a teacher.", "his"),
    ("He told her that the film was over.", "him"),
    ("We met her at the station.", "him"),
    ("She moved to London with her husband.", "his"),
    ("Nobody believed her.", "him"),
    ("The critics praised her performance.", "his"),
    ("He asked her to marry him.", "him"),
    ("She released her first album in 1998.", "his"),
    ("Her 1976 hit made her famous.", "his"),
    ("The studio dropped her after one film.", "him"),
    ("She spent her early years in Ohio.", "his"),
    ("He wrote to her, but she never replied.", "him"),
    ("The award was given to her in 2001.", "him"),
    ("She and her sister opened a shop.", "his"),
    ("He loved her deeply.", "him"),
    ("Fans remember her as a kind person.", "him"),
    ("She broke her leg while skiing.", "his"),
    ("Her own company failed.", "his"),
    ("Critics called her the best singer of her generation.", "him"),
    ("They found her in the garden.", "him"),
    ("He followed her home.", "him"),
    ("She sold her house and her car.", "his"),
    ("The court ordered her to pay.", "him"),
    ("Everyone admired her courage.", "his"),
    ("He left her because of the debts.", "him"),
    ("She finished her degree at Yale.", "his"),
    ("Her family moved to Texas.", "his"),
    ("The band hired her as a drummer.", "him"),
    ("He kissed her and left.", "him"),
    ("She dedicated the book to her late father.", "his"),
    ("He recognised her immediately.", "him"),
    ("She played her part well.", "his"),
    ("The teacher helped her with the homework.", "him"),
    ("She married him after her divorce.", "his"),
    ("This made her a star.", "him"),
    ("They invited her too.", "him"),
    ("She continued her studies abroad.", "his"),
]

HIS = [
    ("He sold his car.", "her"),
    ("The book is his.", "hers"),
    ("His 2004 album sold well.", "her"),
    ("The choice was his and nobody else's.", "hers"),
    ("He and his wife moved.", "her"),
    ("That idea was his, not mine.", "hers"),
    ("He broke his own record.", "her"),
    ("A friend of his called.", "hers"),
]


def _accuracy(items, word):
    sw = GenderSwapper(names=False, tagger="heuristic")
    right = 0
    for sentence, label in items:
        before = re.findall(r"\w+|[^\w\s]", sentence)
        after = re.findall(r"\w+|[^\w\s]", sw(sentence))
        assert len(before) == len(after), sentence
        i = [t.lower() for t in before].index(word)  # the first occurrence is labelled
        right += after[i].lower() == label
    return right / len(items)


def test_her_heuristic_accuracy():
    acc = _accuracy(HER, "her")
    assert acc >= 0.85, f"her accuracy {acc:.2f}"


def test_his_heuristic_accuracy():
    assert _accuracy(HIS, "his") >= 0.85


def test_her_both_labels_occur():
    labels = {label for _, label in HER}
    assert labels == {"his", "him"}


def test_spacy_tagger_when_installed():
    pytest.importorskip("spacy")
    try:
        sw = GenderSwapper(names=False, tagger="spacy")
    except Exception:
        pytest.skip("no English spaCy pipeline installed")
    assert sw("I saw her yesterday.") == "I saw him yesterday."
