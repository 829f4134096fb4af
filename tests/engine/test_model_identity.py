"""Every run names its model the same way (``metadata["model"]``: the adapter's
``describe()``, recorded by the engine), which ``runs list``, ``runs export --model``,
``runs diff`` and the report's provenance read; and a run is keyed by the model as
loaded, not by the load options as typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fake_lm import FakeCausal
from typer.testing import CliRunner

import genderscope as gs
from genderscope.cli.app import app
from genderscope.core import registry
from genderscope.core.declaration import Plan
from genderscope.results import Result
from genderscope.store import Store

SENTENCES = ["The nurse said that she would be late today.",
             "The engineer told us that he had fixed the bridge.",
             "A doctor and a teacher walked home in the rain together.",
             "Every morning the baker opens the shop before six."]


def _corpus(tmp_path: Path) -> Path:
    path = tmp_path / "held_out.txt"
    path.write_text("\n\n".join(SENTENCES), encoding="utf-8")
    return path


class _Adapter:
    """A model of any kind that answers nothing (the plans below ask it nothing)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.fingerprint = f"test:{kind}"

    def describe(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "kind": self.kind, "name": f"my-{self.kind}"}


NEEDS_MODEL = [d.name for d in registry.declarations().values() if d.needs != "none"]


@pytest.mark.parametrize("name", NEEDS_MODEL)
def test_every_declared_measure_s_run_names_its_model(name: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the measure's own code puts in its metadata (nothing, or another model's
    description), the run the engine returns and stores names the model it ran on."""
    from genderscope import engine

    needs = registry.get(name).needs
    adapter = _Adapter("causal" if needs == "lm" else needs)
    metadata = [{}, {"model": {"fingerprint": "stale"}}]

    def plan_of(measure: str, options: dict[str, Any]) -> tuple[Plan, dict[str, Any]]:
        meta = metadata.pop(0)
        return Plan(measure, needs, lambda a: Result(measure, {"n": 1},
                                                     pd.DataFrame({"x": [1]}), dict(meta)),
                    inputs=[measure, len(metadata)]), {}

    monkeypatch.setattr(engine, "plan_of", plan_of)
    store = tmp_path / "s.sqlite"
    runs = [gs.run(name, model=adapter, store=store) for _ in range(2)]
    with Store(store, readonly=True) as st:
        rows = st.list_runs()
        stored = [st.load_run(r["run_id"]) for r in rows]
    assert [r.metadata["model"] for r in runs + stored] == [adapter.describe()] * 4
    assert [r["model"] for r in rows] == [adapter.fingerprint] * 2


def test_a_perplexity_run_names_its_model(tmp_path: Path) -> None:
    """``runs export --model NAME --method perplexity`` finds it, ``runs list`` shows it:
    perplexity's runs had no model (``{"model": null}`` in the report's provenance)."""
    from genderscope.measures.perplexity import run_perplexity

    lm = FakeCausal({"she": -1.0})
    store = tmp_path / "s.sqlite"
    result = gs.run("perplexity", model=lm, corpus=str(_corpus(tmp_path)), min_words=3,
                    limit=None, resamples=100, store=store)
    assert result.metadata["model"] == lm.describe()
    assert run_perplexity(lm, SENTENCES, n_resamples=100).metadata["model"] == lm.describe()
    out = tmp_path / "runs.csv"
    r = CliRunner().invoke(app, ["runs", "export", "--model", "fake", "--method",
                                 "perplexity", "--out", str(out), "--store", str(store)])
    assert r.exit_code == 0, r.output
    rows = pd.read_csv(out)
    assert list(rows["model"]) == [lm.fingerprint] and list(rows["model_name"]) == ["fake"]


@pytest.mark.slow
def test_the_start_token_keys_the_model_as_loaded(tmp_path: Path, tiny_gpt2_dir: Path) -> None:
    """``start_token="none"`` given to ``gs.run`` or to ``gs.load_model`` is one run (the
    second is found); with the start token it is another run, and the model's identity
    says which."""
    store = tmp_path / "s.sqlite"
    options = {"corpus": str(_corpus(tmp_path)), "min_words": 3, "limit": None,
               "resamples": 100, "store": store}
    typed = gs.run("perplexity", model=str(tiny_gpt2_dir), start_token="none", **options)
    loaded = gs.load_model(str(tiny_gpt2_dir), start_token="none", store=store)
    again = gs.run("perplexity", model=loaded, **options)
    assert again.metadata.get("reused") is True
    assert again.metadata["run_id"] == typed.metadata["run_id"]
    assert again.metadata["model"]["start_token"] == "none"
    with_start = gs.run("perplexity", model=str(tiny_gpt2_dir), **options)
    assert not with_start.metadata.get("reused")
    assert with_start.metadata["model"]["start_token"] != "none"
    assert with_start.metadata["cache_key"] != typed.metadata["cache_key"]
