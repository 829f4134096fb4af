"""Measures over texts rather than model scores: the gender-analogy attack on a
classifier and bias amplification in generated captions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

from genderscope.catalog import _amplification as amp_opts
from genderscope.catalog._common import Plan, _one_step
from genderscope.core.declaration import Opt, Progress, Resamples, Seed, declare
from genderscope.errors import GenderscopeError
from genderscope.results import Result


@declare("attack", needs="classifier", docs="robustness.md", family="classifiers",
         statistics=("Interval: Wilson's score interval of the success rate over attackable "
                     "texts; paired percentile bootstrap over texts of the man->woman - "
                     "woman->man asymmetry; percentile bootstrap of the per-attack means. Test: "
                     "none."),
         table="genderscope.cli.commands.robustness:attack_tables",
         card="genderscope.reporting.cards.attack:ATTACK", report_order=150,
         version=2)  # per-attack means over attacks all equal: no interval, not [x, x]
def attack(
    *,
    data: Annotated[Path, Opt("Texts: .txt (one per line) or .csv/.tsv.", key=False)],
    vectors: Annotated[
        Any, Opt("Word vectors of the analogy candidates: packaged name or file.")
    ] = "glove-6b-50d",
    lm: Annotated[
        Any, Opt("Causal LM of the fluency filter (HF id, folder, .gguf, smollm2) or 'none'.")
    ] = "smollm2",
    lm_threshold: Annotated[
        float, Opt("Keep a substitution when P(altered window) >= threshold x P(original window).",
                   min=0, max=1)  # 0 itself: the plan refuses it (the ratio is in (0, 1])
    ] = 0.25,
    lm_window: Annotated[int, Opt("Context words on each side of the word.", min=1)] = 3,
    candidates: Annotated[int, Opt("Analogy candidates per word (top-n cosine).", min=1)] = 8,
    min_similarity: Annotated[float, Opt("Drop candidates below this cosine.", min=-1,
                                         max=1)] = 0.0,
    directions: Annotated[
        Sequence[str] | str, Opt("Swap directions, comma-separated: man->woman, woman->man.")
    ] = ("man->woman", "woman->man"),
    pop_size: Annotated[
        int,
        Opt("Population of the genetic search (Alzantot et al. 2018 and TextAttack: 60).", min=2,
            max=10_000),
    ] = 60,
    generations: Annotated[int, Opt("Generations at most (paper: 20).", min=1, max=1_000)] = 20,
    max_queries: Annotated[
        int,
        Opt(
            "Distinct texts one attack may have classified, the original included (a cap of "
            "genderscope's; the paper has none).",
            min=1,
        ),
    ] = 2000,
    target: Annotated[str | None, Opt("Targeted attack: label to reach.")] = None,
    text_column: Annotated[str | None, Opt("Text column of a CSV/TSV.")] = None,
    limit: Annotated[
        int | None,
        Opt("Attack N texts: the first N, or N at random with --sample-seed [default: every "
            "text].", min=1),
    ] = None,
    sample_seed: Annotated[
        int | None, Opt("Sample --limit texts at random with this seed.", min=0)
    ] = None,
    examples: Annotated[int, Opt("Rows in the examples table.", min=0)] = 10,
    seed: Annotated[int, Opt("Seed of the genetic search and of the bootstrap CIs.", min=0)] = 0,
    resamples: Resamples = 10_000,
    progress: Progress = False,
) -> Plan:
    """Genetic gender-analogy attack (Alzantot et al. 2018) on a classifier.

    ``vectors``: word vectors for the analogy candidates (name, file or a loaded
    adapter); ``lm``: causal LM of the fluency filter (spec, adapter or ``"none"``).
    ``seed`` seeds the genetic search and the bootstrap CIs (``resamples``; recorded in
    ``metadata["seed"]``). Reused by the texts' content, the vectors' and the filter
    LM's fingerprints and the classifier's identity.
    """
    from genderscope.attack import DIRECTIONS, AnalogyNeighbours
    from genderscope.attack.constraint import check_lm_filter_options
    from genderscope.attack.transformation import check_min_similarity
    from genderscope.datasets.texts import load_texts
    from genderscope.models.vectors import load_vectors

    check_lm_filter_options(lm_threshold, lm_window)
    check_min_similarity(min_similarity)
    dirs = [
        d.strip()
        for d in (directions.split(",") if isinstance(directions, str) else directions)
        if d.strip()
    ]
    bad = [d for d in dirs if d not in DIRECTIONS]
    if bad or not dirs:
        raise GenderscopeError(
            f"--directions: unknown {bad or directions!r}; use {', '.join(DIRECTIONS)}"
        )
    td = load_texts(data, text_column=text_column, limit=limit, sample_seed=sample_seed)
    if isinstance(lm, (str, Path)) and str(lm).lower() != "none":
        from genderscope.models.loading import detect_kind, resolve_spec

        if detect_kind(resolve_spec(str(lm))) != "causal":
            raise GenderscopeError(
                f"--lm {lm}: the fluency filter needs a causal (left-to-"
                "right) language model, e.g. smollm2 or gpt2"
            )
    wv = load_vectors(vectors) if isinstance(vectors, (str, Path)) else vectors
    neighbours = AnalogyNeighbours.from_vectors(wv, n=candidates, min_similarity=min_similarity)
    params = {
        "vectors": str(vectors) if isinstance(vectors, (str, Path)) else wv.name,
        "lm": str(lm) if isinstance(lm, (str, Path)) else getattr(lm, "fingerprint", None),
        "lm_threshold": lm_threshold,
        "lm_window": lm_window,
        "candidates": candidates,
        "min_similarity": min_similarity,
        "directions": dirs,
        "pop_size": pop_size,
        "generations": generations,
        "max_queries": max_queries,
        "target": target,
        "limit": limit,
        "sample_seed": sample_seed,
    }

    def run(clf: Any) -> Result:
        import time

        from genderscope.attack import GenderAttack, GeneticSearch, LMFilter, lm_scorer
        from genderscope.measures.attack import summarize_attack
        from genderscope.progress import progress_bar

        target_idx = None
        if target is not None:
            if clf.labels is None:
                raise GenderscopeError(
                    f"--target {target!r}: this classifier does not name "
                    "its classes, so a target label cannot be chosen"
                )
            if target not in clf.labels:
                raise GenderscopeError(
                    f"--target {target!r} is not a label of the classifier"
                    f" (labels: {', '.join(map(str, clf.labels))})"
                )
            target_idx = clf.labels.index(target)
        model = None
        if isinstance(lm, (str, Path)):
            if str(lm).lower() != "none":
                from genderscope.models.loading import load_lm

                model = load_lm(lm, kind="causal", store=plan.store)
        else:
            model = lm
        lm_filter = (
            None
            if model is None
            else LMFilter(
                lm_scorer(model), threshold=lm_threshold, window=lm_window, name=model.fingerprint
            )
        )
        search = GeneticSearch(
            pop_size=pop_size, max_generations=generations, max_queries=max_queries
        )
        atk = GenderAttack(
            clf, neighbours, lm_filter=lm_filter, search=search, seed=seed, target=target_idx
        )
        t0 = time.perf_counter()
        with progress_bar("attack", len(td.texts) * len(dirs), enabled=progress) as advance:
            outcomes = atk.attack_many(td.texts, dirs, progress=lambda n: advance(1))
        meta = {
            "model": clf.describe(),
            "vectors": wv.describe(),
            "lm": model.describe() if model is not None else None,
            "lm_filter": lm_filter.describe() if lm_filter else None,
            "data": td.describe(),
            "seed": seed,
            "wall_seconds": time.perf_counter() - t0,
            "classifier_queries": clf.queries,
            "params": {"classifier": getattr(clf, "name", None), **params},
        }
        return summarize_attack(
            outcomes,
            n_texts=len(td.texts),
            labels=clf.labels,
            metadata=meta,
            n_examples=examples,
            n_resamples=resamples,
            seed=seed,
        )

    from genderscope.models.memo import usable_fingerprint

    lm_id = _lm_identity(lm)
    keyable = usable_fingerprint(getattr(wv, "fingerprint", None)) and lm_id is not False
    plan = Plan(
        "attack",
        "classifier",
        run,
        inputs={"texts": td.texts, "vectors": wv.fingerprint, "lm": lm_id}
        if keyable
        else None,  # an unidentified vectors or LM: never reused
        key_options={
            "vectors": None,
            "lm": None,  # their identities are inputs
            "directions": dirs,  # "a,b" on the command line, a list here
            **({"sample_seed": None} if limit is None else {}),
        },
    )
    return plan


def _lm_identity(lm: Any) -> Any:
    """What of the fluency filter's LM the attack depends on, told without loading it:
    None (no filter), its weights fingerprint with the load options the plan uses, or
    False (no usable fingerprint: the run is never reused)."""
    from genderscope.models.memo import model_identity

    if lm is None or (isinstance(lm, (str, Path)) and str(lm).lower() == "none"):
        return None
    if not isinstance(lm, (str, Path)):
        ident = model_identity(lm)
        return False if ident is None else ident
    from genderscope.models.loading import resolve_spec
    from genderscope.models.memo import usable_fingerprint
    from genderscope.models.source import ModelSource

    fingerprint = ModelSource(resolve_spec(str(lm)), None).fingerprint()
    if not usable_fingerprint(fingerprint):
        return False
    return {"fingerprint": fingerprint, "kind": "causal", "dtype": "float32", "start_token": "auto"}


@declare("bias-amplification", needs="none", docs="amplification.md",
         statistics=("Interval: percentile bootstrap over objects (each object's term one unit) "
                     "of the mean amplification; Wilson's interval over the same objects of the "
                     "share amplified; with --model, the infinitesimal-jackknife t interval over "
                     "items crossed with templates (the cell interaction subtracted once, "
                     "Satterthwaite df) of the amplification, and Wilson's interval at that "
                     "design's effective sample size of the shares of answers naming no "
                     "gender or both. Test: none."),
         family="corpora", table="genderscope.cli.commands.embeddings:amplification_tables",
         card="genderscope.reporting.cards.amplification:BIAS_AMPLIFICATION",
         report_order=160, version=2)  # a bootstrap with no spread: no_interval, not [x, x]
def bias_amplification(
    *,
    train: Annotated[
        Path | None, Opt("Training captions: .txt (one per line), .jsonl or .csv.")
    ] = None,
    generated: Annotated[Path | None, Opt("Generated captions (same formats).")] = None,
    objects: Annotated[
        Path | None,
        Opt(
            "Objects/activities, one per line "
            "[default: nouns found by spaCy "
            "en_core_web_sm, if installed]."
        ),
    ] = None,
    gender_words: Annotated[
        Path | None, Opt("JSON {group: [words]} [default: man/woman lists].")
    ] = None,
    pos: Annotated[
        str, Opt("Without --objects: universal POS tags the tagger keeps, e.g. NOUN or NOUN,VERB.")
    ] = "NOUN",
    min_count: Annotated[
        int, Opt("Without --objects: keep words the tagger finds at least this often.", min=1)
    ] = 5,
    plurals: Annotated[bool, Opt("Count regular plurals of objects.")] = True,
    ratios: Annotated[
        Path | None, Opt("Per-object ratio table (training_ratio + predicted ratio columns).")
    ] = None,
    predicted_column: Annotated[str | None, Opt("Predicted-ratio column of --ratios.")] = None,
    plot: Annotated[
        Path | None, Opt("Figure path (.png/.svg) [default: OUT/amplification.png].")
    ] = None,
    seed: Seed = 0,
    progress: Progress = False,
    directional: amp_opts.Directional = False,
    model_form: amp_opts.ModelForm,
) -> Plan:
    """Mean bias amplification (Zhao et al. 2017, sec. 2) between training data and a
    model's output: captions (``train`` + ``generated``) or a per-object ``ratios``
    table (no model: ``model=None``), or a chat model's or endpoint's answers to neutral
    prompts about Zhao et al.'s activities or objects (``model=...``, none of ``train``,
    ``generated``, ``ratios``), with Wang & Russakovsky's BiasAmp-> (task -> gender).
    ``seed`` seeds the bootstrap; ``plot``: where the figure goes when the result is
    saved."""
    from genderscope.datasets import captions as cap
    from genderscope.measures import amplification as amp
    from genderscope.measures.amplification import plot_amplification
    from genderscope.outputs import check_output_file, command_inputs
    from genderscope.results import file_sha256

    if plot is not None:
        check_output_file(plot, "--plot", suffixes=(".png", ".svg", ".pdf"),
                          inputs=command_inputs(paths=[train, generated, objects, gender_words,
                                                       ratios]))
    if train is None and generated is None and ratios is None:
        return amp_opts.model_plan(model_form, gender_words=gender_words, seed=seed,
                                   progress=progress, plot=plot)
    if ratios is not None:
        if train is not None or generated is not None:
            raise GenderscopeError("give either --ratios or --train and --generated")
        table = cap.load_ratio_table(ratios, predicted_column=predicted_column)
        compute: Callable[[], Result] = lambda: amp.bias_amplification_from_ratios(  # noqa: E731
            table, seed=seed
        )
        inputs: dict[str, Any] = {
            "ratios": {
                k: getattr(table, k)
                for k in (
                    "objects",
                    "train_ratio",
                    "predicted_ratio",
                    "name_column",
                    "train_column",
                    "predicted_column",
                )
            }
        }
    else:
        if train is None or generated is None:
            raise GenderscopeError("give --train and --generated (or --ratios)")
        gw = cap.load_gender_words(gender_words)
        tr = cap.load_captions(train)
        gen = cap.load_captions(generated)
        objs = (
            cap.load_objects(objects)
            if objects is not None
            else amp.objects_from_tagger(
                tr, gw, pos=tuple(p.strip().upper() for p in pos.split(",")), min_count=min_count
            )
        )
        provenance: dict[str, Any] = {
            "train": str(train),
            "generated": str(generated),
            "file_sha256": {"train": file_sha256(train), "generated": file_sha256(generated)},
        }
        if objects is not None:
            provenance["objects"] = str(objects)
            provenance["file_sha256"]["objects"] = file_sha256(objects)
        compute = lambda: amp.bias_amplification(  # noqa: E731
            tr, gen, objs, gw, plurals=plurals, seed=seed, data=provenance,
            directional=directional
        )
        inputs = {"train": tr, "generated": gen, "objects": objs, "gender_words": gw}
        if directional:  # keyed only when asked, so earlier keys stand
            inputs["directional"] = True

    # reused by the content of the corpora (or ratio table), objects and gender words,
    # not by where they were read from, nor by where the figure goes
    return Plan(
        "bias-amplification",
        "none",
        lambda _: _one_step("bias amplification", progress, compute),
        figure=plot_amplification,
        figure_path=Path(plot) if plot else None,
        figure_name="amplification.png",
        inputs=inputs,
        key_options={
            k: None for k in ("train", "generated", "objects", "gender_words", "ratios", "plot")
        },
    )
