"""``genderscope debias hard|multiclass-hard|double-hard|hsr|ran``: debiasing of word
vectors, then the before/after evaluation of :mod:`genderscope.vector_debias.evaluate`
(docs/measures/vector_debias.md: the methods, and what ``--out`` holds). Every input is
checked before anything is written.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import typer

from genderscope.checks import whole_number
from genderscope.cli.commands.debias import debias_app
from genderscope.cli.commands.embeddings import (
    FORMAT_OPTION,
    TESTS_DIR_OPTION,
    VECTORS_OPTION,
    _expand,
)
from genderscope.cli.common import STORE_OPTION, ci_text, console, new_table, open_store

DEFAULT_RAN_WORDS = 20_000  # vector_debias.ran.DEFAULT_N_WORDS (not imported: numpy-free CLI)


METHODS = {
    "hard": ("genderscope.vector_debias.hard:hard_debias",
             "Hard Debias (Bolukbasi et al. 2016)"),
    "multiclass-hard": ("genderscope.vector_debias.multiclass:multiclass_hard_debias",
                        "Multiclass Hard Debias (Manzini et al. 2019)"),
    "double-hard": ("genderscope.vector_debias.double_hard:double_hard_debias",
                    "Double-Hard Debias (Wang et al. 2020)"),
    "hsr": ("genderscope.vector_debias.hsr:hsr_debias",
            "Half-Sibling Regression (Yang & Feng 2020)"),
    "ran": ("genderscope.vector_debias.ran:ran_debias",
            "Repulsion-Attraction-Neutralization (Kumar et al. 2020)"),
}
"""Each method's function and its name with the paper (its ``--help``: NAME of word
vectors, measured before and after)."""


def _debias(method: str, vectors: str, fmt: str, vocab: Path | None, out: Path,
            definitional: Path | None, equalize: Path | None, gender_specific: Path | None,
            test: list[str], tests_dir: Path | None, evaluate_: bool, seed: int,
            store_path: Path | None, progress: bool, options: dict[str, Any],
            read: tuple[Path | None, ...] = ()) -> None:
    """Debias ``vectors`` with ``method``, evaluate them (optionally), then publish
    (``read``: further files the command reads, e.g. ``--target``, never an output):
    ``vectors.bin`` is written beside ``out`` and moved into it only once everything that
    decides whether it is valid has run (a failure leaves ``out`` as it was)."""
    import os
    import shutil

    from genderscope.cli.common import table_function
    from genderscope.errors import DataError
    from genderscope.models.vectors import load_vectors
    from genderscope.outputs import (
        check_output_folder,
        command_inputs,
        mark_folder,
        new_folder_beside,
        write_text,
    )
    from genderscope.vector_debias import load_lists, write_word2vec_binary

    files = ("vectors.bin", "debias.json")
    check_output_folder(out, inputs=command_inputs(
        models=[vectors], paths=[vocab, definitional, equalize, gender_specific, tests_dir,
                                 *test, *read], store=store_path), files=files)
    lists = load_lists(definitional=definitional, equalize=equalize,
                       gender_specific=gender_specific)
    tests = _expand(test, tests_dir) if evaluate_ else []
    store = open_store(store_path)
    work: Path | None = None
    try:
        before = load_vectors(vectors, fmt=fmt, vocab=vocab, store=store)
        if before.dim < 2:  # the gender direction would be the whole space: all zeros
            raise DataError(f"{vectors}: {method} debiasing removes a gender direction and "
                            f"needs vectors of at least 2 dimensions; these have {before.dim}")
        if tests:  # a test the vectors cannot score is refused before anything is written
            from genderscope.measures.embedding_metrics._sets import look_up
            from genderscope.measures.embedding_metrics.ect import check_sizes

            for t in tests:
                check_sizes(look_up(before, t))
        debias = table_function(METHODS[method][0])  # its "module:function"
        matrix, fit = debias(before, lists, **options)  # NaN, < 2 pairs: refused
        work = new_folder_beside(out)
        write_word2vec_binary(work / "vectors.bin", before.words, matrix)
        record: dict[str, Any] = {"method": method, "vectors": before.describe(),
                                  "lists": lists.source, "fit": fit.describe(),
                                  "fit_line": fit.line()}
        if evaluate_:
            from genderscope.vector_debias.evaluate import (
                ANALOGY,
                analogy,
                cluster_test,
                evaluate,
            )

            after = load_vectors(work / "vectors.bin", fmt="word2vec-binary")
            after.name = str(out / "vectors.bin")  # its name once published
            exclude = set(lists.gender_specific) | {w for p in lists.definitional +
                                                   lists.equalize for w in p}
            checks = {"analogy": {"query": list(ANALOGY), "before": analogy(before),
                                  "after": analogy(after)},
                      "cluster_test": cluster_test(before, after, exclude, seed=seed)}
            record["metrics"] = evaluate(before, after, tests, store=store, out=out / "eval",
                                         seed=seed, progress=progress)  # saved when all ran
            record.update(checks)
        out.mkdir(parents=True, exist_ok=True)
        os.replace(work / "vectors.bin", out / "vectors.bin")
        write_text(out / "debias.json", json.dumps(record, indent=1, default=float) + "\n")
        mark_folder(out, files)
    finally:
        store.close()
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    _print(record, out)


ITEMS = {"weat": "s(w) of a target word", "ripa": "term of an attribute word",
         "rnd": "term of an attribute word",
         "ect": "cos(v_X, a) - cos(v_Y, a) of an attribute word a",
         "mac": "mean cosine distance of a target word"}
"""Each metric's per-word item, whose mean the paired change compares (not the metric:
ECT's Spearman correlation can rise while its items' mean falls)."""


def _print(record: dict[str, Any], out: Path) -> None:
    console.print(f"{record['method']}: {record['fit_line']}")
    if "metrics" in record:
        table = new_table("before, after: the metric [95% CI]; item mean: the mean of the "
                          "set's per-word item values (not the metric) before -> after, and "
                          "its change [95% jackknife t CI over the word sets] with p",
                          ("metric", "test", "set", "before", "after",
                           "item mean before -> after", "item mean change", "p"))
        for m in record["metrics"]:
            changes = {str(r.get("set")): r for r in m["paired"]["rows"]}
            for key, b in m["before"].items():
                a = m["after"][key]
                ch = changes.get(key) or changes.get("(all)") or {}
                means = (f"{ch['mean_before']:+.3f} -> {ch['mean_after']:+.3f}"
                         if ch else "")
                ci = (f"{ch['change']:+.3f} [{ch['change_ci_low']:+.3f}, "
                      f"{ch['change_ci_high']:+.3f}]"
                      if ch else "")
                p = ch.get("p_value")
                table.add_row(m["metric"], m["test"], key, ci_text(b, sign=True),
                              ci_text(a, sign=True), means, ci,
                              f"{p:.2g}" if isinstance(p, float) else "")
        console.print(table)
        console.print("items: " + "; ".join(f"{k.upper()} the {v}" for k, v in ITEMS.items()
                                            if any(m["metric"] == k
                                                   for m in record["metrics"])))
        an = record["analogy"]
        q = an["query"]
        console.print(f"{q[0]} : {q[1]} :: {q[2]} : ?  before {', '.join(an['before'])}; "
                      f"after {', '.join(an['after'])}")
        ct = record["cluster_test"]
        if "accuracy_before" in ct:
            console.print(f"cluster test (Gonen & Goldberg 2019; {ct['n_words']} most biased "
                          f"words, 0.5 = gender not recoverable): accuracy "
                          f"{ct['accuracy_before']:.3f} before, {ct['accuracy_after']:.3f} "
                          "after")
    console.print(f"saved to {out}")


def _check_options(method: str, options: dict[str, Any]) -> None:
    """Options refused before any vectors load."""
    from genderscope.errors import DataError

    if method == "hsr":
        from genderscope.vector_debias import hsr

        hsr.check_alpha(options["alpha"])
    if method == "double-hard" and options["n_words"] < 1:
        raise DataError("--n-words must be at least 1 for double-hard")
    if method == "ran":
        if options["variant"] not in ("paper", "wefe"):
            raise DataError(f"--variant must be 'paper' or 'wefe', got {options['variant']!r}")
        if options["variant"] == "wefe":
            import importlib.util

            if importlib.util.find_spec("torch") is None:
                raise DataError("--variant wefe needs PyTorch (pip install torch)")


DEFAULT_TESTS = ("weat6", "weat7", "weat8")

OWN_OPTIONS: dict[str, dict[str, tuple[type, Any]]] = {
    "hard": {},
    "multiclass-hard": {"components": (int, typer.Option(
        1, "--components", min=1, help="Dimensions of the bias subspace (k)."))},
    "double-hard": {
        "n_words": (int, typer.Option(1000, "--n-words", min=0, help="Most male- and most "
                                      "female-leaning words probed and debiased.")),
        "frequency_components": (int, typer.Option(4, "--frequency-components", min=1,
                                                   help="Candidate frequency components."))},
    "hsr": {"alpha": (float, typer.Option(60.0, "--alpha", help="Ridge penalty (Yang & Feng "
                                          "2020: 60)."))},
    "ran": {
        "n_words": (int, typer.Option(DEFAULT_RAN_WORDS, "--n-words", min=0,
                                      help="Most frequent words debiased, 0 = all.")),
        "variant": (str, typer.Option("paper", "--variant", help="'paper' (Kumar et al.'s "
                                      "objective) or 'wefe' (WEFE 1.0.1's, its swapped "
                                      "vectors included; needs torch, ~0.2 s a word)."))},
}
"""The options only one method reads (name -> type and flag): each method's command has
its own and no other's, so a flag of another method is refused as an unknown option (one
line, exit code 2) instead of being ignored. ``--components`` and
``--frequency-components`` are the methods' ``n_components``."""


def _command(method: str) -> Any:
    def command(
        vectors: str = VECTORS_OPTION,
        fmt: str = FORMAT_OPTION,
        vocab: Path | None = typer.Option(None, "--vocab", help="Vocabulary of a .npy matrix."),
        out: Path = typer.Option(..., "--out", help="Folder for vectors.bin, debias.json and "
                                 "the evaluation runs."),
        definitional: Path | None = typer.Option(None, "--definitional", help="JSON list of "
                                                 "word pairs [default: Bolukbasi's]."),
        equalize: Path | None = typer.Option(None, "--equalize", help="JSON list of word pairs "
                                             "[default: Bolukbasi's]."),
        gender_specific: Path | None = typer.Option(None, "--gender-specific", help="JSON list "
                                                    "of words left un-neutralised [default: "
                                                    "Bolukbasi's full list]."),
        test: list[str] | None = typer.Option(None, "--test", help="Tests measured before and "
                                              "after (repeatable; not with --no-evaluate) "
                                              f"[default: {', '.join(DEFAULT_TESTS)}]."),
        tests_dir: Path | None = TESTS_DIR_OPTION,
        evaluate_: bool = typer.Option(True, "--evaluate/--no-evaluate",
                                       help="Measure before/after and run the sanity checks."),
        seed: int = typer.Option(0, "--seed", help="Seed of bootstraps, tests and k-means."),
        store_path: Path | None = STORE_OPTION,
        progress: bool = typer.Option(False, "--progress/--no-progress"),
        target: Path | None = typer.Option(None, "--target", help="Debias only these words "
                                           "(JSON list or one word per line; WEFE's "
                                           "target) [default: every word]."),
        ignore: Path | None = typer.Option(None, "--ignore", help="Never debias these words "
                                           "(JSON list or one per line), besides the "
                                           "gender-specific list (WEFE's ignore)."),
        **own: Any,
    ) -> None:
        from genderscope.errors import GenderscopeError

        if test and not evaluate_:
            raise GenderscopeError("--test names the tests measured before and after; "
                                   "--no-evaluate measures none: give one or the other")
        options = {"n_components" if k.endswith("components") else k: v
                   for k, v in own.items()}
        if method == "double-hard":
            options["seed"] = seed
        if method == "ran":
            options["progress"] = progress
        whole_number(seed, "seed", 0)  # KMeans' own error for -1 would be a traceback
        _check_options(method, options)
        if target is not None or ignore is not None:  # read (and refused) before the vectors
            from genderscope.vector_debias.lists import read_word_list

            if target is not None:
                options["targets"] = list(read_word_list(target, "--target"))
            if ignore is not None:
                options["ignore"] = list(read_word_list(ignore, "--ignore"))
        _debias(method, vectors, fmt, vocab, out, definitional, equalize, gender_specific,
                test or list(DEFAULT_TESTS), tests_dir, evaluate_, seed, store_path, progress,
                options, read=(target, ignore))

    common = inspect.signature(command, eval_str=True).parameters.values()
    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*(p for p in common if p.kind is not p.VAR_KEYWORD),
         *(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=flag,
                             annotation=kind)
           for name, (kind, flag) in OWN_OPTIONS[method].items())],
        return_annotation=None)
    command.__doc__ = f"{METHODS[method][1]} of word vectors, measured before and after."
    return command


for _name in METHODS:  # on import (no register(): the debias group is debias.py's)
    debias_app.command(_name)(_command(_name))
