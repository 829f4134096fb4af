"""RAN's two variants on the same GloVe words (docs/measures/vector_debias.md): how far
each moves the words from their original vectors (cosine) and how much of the gender
direction is left (mean |w . g|). ``variant="wefe"`` is bit-identical to WEFE 1.0.1's
output (tests/agreement/test_wefe_agreement.py), so its row is WEFE's.

Words: those of WEAT 6, 7, 8 and the 40 most frequent GloVe words, less Bolukbasi's
gender-specific list; vocabulary: the agreement test's subset (3,000 most frequent words,
the tests' words and the lists'), so neighbours come from the same 3,425 words.

    python benchmarks/ran_variants.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    from genderscope.datasets.locations import find_benchmark
    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.embedding_metrics._sets import look_up
    from genderscope.models.vectors import load_vectors
    from genderscope.vector_debias import load_lists, write_word2vec_binary
    from genderscope.vector_debias.hard import equalize_candidates
    from genderscope.vector_debias.ran import ran_debias

    glove = load_vectors("glove-6b-50d")
    lists = load_lists()
    tests = [resolve_test(t, find_benchmark("seat") / "tests") for t in ("weat6", "weat7",
                                                                          "weat8")]
    words = list(glove.words[:3000])
    for t in tests:
        words += [glove.key_for(w) or "" for s in t.sets() for w in s.examples]
    words += [w for p in lists.definitional for w in p] + list(lists.gender_specific)
    words += [w for p in equalize_candidates(glove, lists.equalize) for w in p]
    words = [w for w in dict.fromkeys(words) if w in glove and " " not in w]
    with tempfile.TemporaryDirectory() as tmp:
        vecs = load_vectors(write_word2vec_binary(Path(tmp) / "subset.bin", words,
                                                  glove.vectors(words)))
        targets = list(words[:40])
        for t in tests:
            k = look_up(vecs, t).keys
            targets += [w for r in ("X", "Y", "A", "B") for w in k[r]]
        targets = [w for w in dict.fromkeys(targets) if w not in set(lists.gender_specific)]
        rows = [vecs.index[w] for w in targets]
        orig = vecs.vectors(targets)
        orig /= np.linalg.norm(orig, axis=1, keepdims=True)
        print(f"{len(targets)} words, vocabulary {len(vecs):,}")
        print(f"{'variant':8} {'cos to original: median':>24} {'min':>6} {'mean |w.g|':>11}")
        for variant in ("paper", "wefe"):
            out, fit = ran_debias(vecs, lists, variant=variant, targets=targets)
            new = out[rows].astype(np.float64)
            cos = np.einsum("ij,ij->i", new, orig)
            g = fit.direction / np.linalg.norm(fit.direction)
            if variant == "paper":
                print(f"{'before':8} {1.0:24.3f} {1.0:6.3f} {np.abs(orig @ g).mean():11.3f}")
            print(f"{variant:8} {np.median(cos):24.3f} {cos.min():6.3f} "
                  f"{np.abs(new @ g).mean():11.3f}")


if __name__ == "__main__":
    main()
