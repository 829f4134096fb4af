"""The downstream probe (``genderscope run downstream``) on SmolLM2-135M before and after
INLP, SentenceDebias (the folders benchmarks/bias_bench_differences.py wrote, default
features) and Self-Debias, with the report's paired differences (--quick: 90 contexts,
27 held out, 81 sentences), and the count behind the INLP clip-index row of
docs/measures/debiasing.md, and how many INLP sentences of GAP exceed 128 tokens.

    python benchmarks/debias_downstream.py
"""

from __future__ import annotations

import glob
import tempfile
from pathlib import Path

from genderscope.datasets.corpus import load_corpus, split_sentences
from genderscope.lm_debias.attribute_data import inlp_sentences, load_word_pairs
from genderscope.lm_debias.estimate import debias_lm
from genderscope.models.loading import load_lm
from genderscope.reporting.compare import differences
from genderscope.reporting.registry import Context
from genderscope.reporting.runner import lm_subject, run_report
from genderscope.store import Store


def main() -> None:
    docs = load_corpus("gap", limit=400).texts
    pairs = load_word_pairs()[0]
    attr = {w for p in pairs for w in p}
    n = moved = 0
    for s in split_sentences(docs):
        toks = [t.lower() for t in s.split(" ")]
        if len(toks) < 5:
            continue
        hits = [j for j, t in enumerate(toks) if t in attr]
        if not hits:
            continue
        n += 1
        last = hits[-1]
        moved += toks.index(toks[last]) != last
    print(f"clip index: {moved} of {n} attribute-word sentences (>= 5 tokens, 400 GAP "
          "passages) have their last attribute word earlier too", flush=True)
    lm = load_lm("smollm2")
    every = load_corpus("gap").texts
    sents = inlp_sentences(every, pairs, seed=0)  # bias-bench's 10,000 per class at most
    texts = sents.male + sents.female + sents.neutral
    over = sum(len(lm.tokenizer(t, add_special_tokens=False)["input_ids"]) + 1 > 128
               for t in texts)
    print(f"INLP sentences of all GAP passages ({sents.counts()}): {over} of {len(texts)} "
          "longer than 128 tokens with the start token", flush=True)
    root = Path(tempfile.mkdtemp())
    store = Store(root / "s.sqlite")
    folders = {}
    for tech in ("inlp", "sentence-debias"):  # bias_bench_differences.py's default folders
        found = sorted(glob.glob(f"/tmp/tmp*/{tech}-genderscope"))
        folders[tech] = found[-1]
        print("using", found[-1], flush=True)
    debias_lm("self-debias", "smollm2", root / "self-debias")
    folders["self-debias"] = str(root / "self-debias")
    subjects = [lm_subject("smollm2", store)] + [lm_subject(f, store) for f in folders.values()]
    data = run_report(subjects, Context(lang="en", quick=True), store, names=["downstream"])
    for s in data.sections:
        h = s.headlines[0] if s.headlines else None
        print("downstream", s.subject.label.split("/")[-1], s.status,
              h and f"{h.estimate:.1f} [{h.ci_low:.1f}, {h.ci_high:.1f}]", flush=True)
    for d in differences(data, n_resamples=2000):
        if d.model_a == "smollm2":
            print("paired", d.model_b.split("/")[-1], f"a-b {d.difference:.2f} "
                  f"[{d.ci_low:.2f}, {d.ci_high:.2f}] p {d.p_value:.3g} n {d.n_items} "
                  f"{d.ci_unit}", flush=True)
    store.close()


if __name__ == "__main__":
    main()
