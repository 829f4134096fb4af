"""``genderscope debias hard|multiclass-hard|double-hard|hsr|ran``: debiasing of word
vectors, then the before/after evaluation of :mod:`genderscope.vector_debias.evaluate`
(docs/measures/vector_debias.md: the methods, and what ``--out`` holds). Every input is
checked before anything is written.
"""

from __future__ import annotations

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


def _print(record: dict[str, Any], out: Path) -> None:
    console.print(f"{record['method']}: {record['fit_line']}")
    if "metrics" in record:
        table = new_table("before -> after (paired change: mean over words, 95% jackknife t "
                          "CI over the word sets)",
                          ("metric", "test", "set", "before", "after", "paired change", "p"))
        for m in record["metrics"]:
            changes = {str(r.get("set")): r for r in m["paired"]["rows"]}
            for key, b in m["before"].items():
                a = m["after"][key]
                ch = changes.get(key) or changes.get("(all)") or {}
                ci = (f"{ch['change']:+.3f} [{ch['change_ci_low']:+.3f}, "
                      f"{ch['change_ci_high']:+.3f}]"
                      if ch else "")
                p = ch.get("p_value")
                table.add_row(m["metric"], m["test"], key, ci_text(b, sign=True),
                              ci_text(a, sign=True), ci,
                              f"{p:.2g}" if isinstance(p, float) else "")
        console.print(table)
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
        test: list[str] = typer.Option(["weat6", "weat7", "weat8"], "--test",
                                       help="Tests measured before and after (repeatable)."),
        tests_dir: Path | None = TESTS_DIR_OPTION,
        evaluate_: bool = typer.Option(True, "--evaluate/--no-evaluate",
                                       help="Measure before/after and run the sanity checks."),
        seed: int = typer.Option(0, "--seed", help="Seed of bootstraps, tests and k-means."),
        store_path: Path | None = STORE_OPTION,
        progress: bool = typer.Option(False, "--progress/--no-progress"),
        components: int = typer.Option(1, "--components", min=1,
                                       help="multiclass-hard: dimensions of the bias "
                                            "subspace (k)."),
        alpha: float = typer.Option(60.0, "--alpha", help="hsr: ridge penalty (Yang & Feng "
                                    "2020: 60)."),
        n_words: int | None = typer.Option(None, "--n-words", min=0, help="double-hard: most "
                                           "male- and most female-leaning words probed and "
                                           "debiased [1000]; ran: most frequent words "
                                           "debiased, 0 = all [20000]."),
        variant: str = typer.Option("paper", "--variant", help="ran: 'paper' (Kumar et al.'s "
                                    "objective) or 'wefe' (WEFE 1.0.1's, its swapped "
                                    "vectors included; needs torch, ~0.2 s a word)."),
        frequency_components: int = typer.Option(4, "--frequency-components", min=1,
                                                 help="double-hard: candidate frequency "
                                                      "components."),
        target: Path | None = typer.Option(None, "--target", help="Debias only these words "
                                           "(JSON list or one word per line; WEFE's "
                                           "target) [default: every word]."),
        ignore: Path | None = typer.Option(None, "--ignore", help="Never debias these words "
                                           "(JSON list or one per line), besides the "
                                           "gender-specific list (WEFE's ignore)."),
    ) -> None:
        options: dict[str, Any] = {
            "multiclass-hard": {"n_components": components}, "hsr": {"alpha": alpha},
            "double-hard": {"n_words": 1000 if n_words is None else n_words,
                            "n_components": frequency_components, "seed": seed},
            "ran": {"variant": variant, "progress": progress,
                    "n_words": DEFAULT_RAN_WORDS if n_words is None else n_words},
        }.get(method, {})
        whole_number(seed, "seed", 0)  # KMeans' own error for -1 would be a traceback
        _check_options(method, options)
        if target is not None or ignore is not None:  # read (and refused) before the vectors
            from genderscope.vector_debias.lists import read_word_list

            if target is not None:
                options["targets"] = list(read_word_list(target, "--target"))
            if ignore is not None:
                options["ignore"] = list(read_word_list(ignore, "--ignore"))
        _debias(method, vectors, fmt, vocab, out, definitional, equalize, gender_specific,
                test, tests_dir, evaluate_, seed, store_path, progress, options,
                read=(target, ignore))

    command.__doc__ = f"{METHODS[method][1]} of word vectors, measured before and after."
    return command


for _name in METHODS:  # on import (no register(): the debias group is debias.py's)
    debias_app.command(_name)(_command(_name))
