"""The bias-amplification card applies to chat models (on request), runs its plan through
the engine, and draws the per-item figure: training ratio (x) against the model's ratio
(y), with the diagonal as no amplification."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import genderscope as gs
from genderscope.reporting.cards.amplification import BIAS_AMPLIFICATION
from genderscope.reporting.entry import Context

RATIOS = {"cooking": 0.25, "lifting": 0.8, "reading": 0.5, "shaving": 0.9, "sewing": 0.1}


class Leaning:
    """A fake chat model that names a man a bit more often than the training ratio."""

    fingerprint = "leaning"
    kind = "chat-endpoint"

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "kind": self.kind}

    def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
        out = []
        for p, rep in zip(prompts, repetitions, strict=True):
            verb = next(v for v in RATIOS if v in p)
            u = int(hashlib.sha256(f"{p}|{rep}".encode()).hexdigest()[:6], 16) / 16**6
            out.append(("A man is " if u < min(1, RATIOS[verb] + 0.2) else "A woman is ")
                       + verb)
        return out


def test_applies_to_chat_models_on_request_only() -> None:
    ctx = Context()
    assert BIAS_AMPLIFICATION.not_applicable("causal", ctx) is None
    assert BIAS_AMPLIFICATION.not_applicable("vectors", ctx) is not None
    assert BIAS_AMPLIFICATION.default is False
    name, options = BIAS_AMPLIFICATION.plan(Context(quick=True))  # type: ignore[misc]
    assert name == "bias-amplification" and options["limit"] == 6 and options["samples"] == 2


def test_card_plan_runs_and_the_figure_has_the_diagonal(tmp_path: Path) -> None:
    folder = tmp_path / "reducingbias"
    folder.mkdir()
    (folder / "imSitu_gender_ratio_dev_res.csv").write_text(
        ",verb,training_ratio,x\n" + "".join(f"{i},{v},{r},{r}\n" for i, (v, r)
                                             in enumerate(RATIOS.items())))
    name, options = BIAS_AMPLIFICATION.plan(Context(data_dir=tmp_path, quick=True))  # type: ignore[misc]
    r = gs.run(name, Leaning(), store=tmp_path / "s.sqlite", **options)
    heads = BIAS_AMPLIFICATION.headlines(r)
    assert [h.label for h in heads][:2] == ["mean bias amplification",
                                            "BiasAmp-> task -> gender"]
    assert heads[0].ci_low is not None and heads[0].ci_unit == "items x templates"
    fig = BIAS_AMPLIFICATION.plot(r)  # type: ignore[misc]
    ax = fig.axes[0]
    assert ax.get_xlabel() == "training bias b*(o, man)"
    diagonal = [ln for ln in ax.get_lines() if ln.get_label() == "no amplification"]
    assert len(diagonal) == 1
    np.testing.assert_allclose(diagonal[0].get_xydata(), [[0, 0], [1, 1]])
    points = ax.collections[0].get_offsets()
    inc = r.items[r.items["status"] == "included"]
    np.testing.assert_allclose(np.asarray(points), inc[["b_train_man", "b_model_man"]])
    assert (inc["b_model_man"] >= inc["b_train_man"]).all()  # the model leans male


@pytest.mark.parametrize("kind", ["masked", "encoder"])
def test_not_for_other_models(kind: str) -> None:
    assert "applies to" in (BIAS_AMPLIFICATION.not_applicable(kind, Context()) or "")
