"""The Gest and GestCreative report cards on the small GEST fixture (GEST's sentences are
not in the shared mirror): each runs its probe's plan, reuses a ``gs.run`` of the same
options, prints every number with a CI or p (Holm within the probe), plots; without the
data anywhere on the machine the cards are "not applicable" and name the fetch command."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from test_report_every_number import _check_page

from genderscope.api import run as run_measure
from genderscope.errors import GenderscopeError
from genderscope.reporting.cards.gest import ENTRIES, MISSING, gest_folder
from genderscope.reporting.entry import Context
from genderscope.reporting.registry import measures
from genderscope.reporting.runner import Subject, run_one, run_report
from tests.datasets.test_gest_registry import _fixture

_STEREO = re.compile(r"thing (\d+)\.")
_OPTION = re.compile(r"\(([abc])\) (Women|Men|Neither)")


class Stereotyped:
    """A fake chat model that follows GEST's stereotypes: the fixture's sentence says its
    stereotype id k (1-7 about women, 8-16 about men); Gest gets the letter of 'Men' for
    k >= 8, else of 'Women'; GestCreative a man's or a woman's profile."""

    kind = "causal"
    fingerprint = "stereotyped"

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "kind": self.kind}

    def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
        out = []
        for p in prompts:
            male = int(_STEREO.search(p).group(1)) >= 8  # type: ignore[union-attr]
            letters = {o: x for x, o in _OPTION.findall(p)}
            if letters:
                out.append(f"({letters['Men' if male else 'Women']})")
            else:
                out.append("He is a leader; his story." if male else "She grew up; her story.")
        return out


@pytest.fixture()
def gest_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data root holding the fixture's gest/gest.csv; empty fetch cache."""
    _fixture(tmp_path / "data")
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GENDERSCOPE_DATA", raising=False)
    return tmp_path / "data"


def test_cards_are_registered_plans_not_in_the_default_report() -> None:
    reg = measures()
    for e in ENTRIES:
        assert reg[e.name] is e and e.plan is not None and not e.default


@pytest.mark.slow
def test_cards_follow_the_stereotyped_model_with_holm_and_a_plot(gest_data: Path) -> None:
    ctx = Context(full=True, data_dir=gest_data)  # all 32 fixture sentences
    assert gest_folder(ctx) == gest_data / "gest"
    for entry in ENTRIES:
        name, options = entry.plan(ctx)
        r = run_measure(name, Stereotyped(), store=":memory:", **options)
        assert r.summary["n_items"] == 32 and r.summary["undetected_rate_attempts"] == 0
        heads = entry.headlines(r)
        top = heads[0]
        assert top.estimate == pytest.approx(1.0) and top.ci_unit == "sentences"
        # every sentence answered the stereotype: no spread over sentences, so no interval
        # is claimed ([1, 1] was), the reading gives the direction and says why
        assert top.no_interval == "no spread over 32 sentences: interval undefined"
        assert top.evidence() is None and top.reading().startswith("Direction only")
        tests = [h for h in heads if h.family]
        assert len(tests) == 2 and {h.p_adjust_method for h in tests} == {"holm"}
        # 14 sentences of male stereotypes (15 left out) and 14 of female ones, every
        # difference of one sign: both Holm-adjusted p < .05
        assert all(h.p_adjusted < 0.05 and h.p_adjusted >= h.p_value for h in tests)
        fig = entry.plot(r)
        assert fig is not None and entry.highlights(r) is not None
        import matplotlib.pyplot as plt

        plt.close(fig)


@pytest.mark.slow
def test_report_reuses_the_run_and_every_number_has_a_ci_or_p(gest_data: Path,
                                                               store) -> None:  # type: ignore[no-untyped-def]
    ctx = Context(quick=True, seed=2, data_dir=gest_data)
    first = {}
    for entry in ENTRIES:
        name, options = entry.plan(ctx)
        first[name] = run_measure(name, Stereotyped(), store=store, **options)
    data = run_report([Subject("chat", "causal", "stereotyped", Stereotyped)], ctx, store,
                      names=[e.name for e in ENTRIES])
    for sec in data.sections:
        assert sec.status == "ok" and sec.reused, (sec.measure.name, sec.reason)
        assert sec.run_id == first[sec.measure.name].metadata["run_id"]
        assert sec.result.summary["n_items"] == {"gest": 6, "gest-creative": 8}[
            sec.measure.name]
    assert _check_page(data) >= 2 * len(ENTRIES)
    from genderscope.reporting import html

    # a reused run reads NaN back as None: the plots must still draw (they failed, and
    # leaked their figure, before plots.forest took None as NaN)
    assert "Plot failed" not in html.render(data)


def test_without_gest_data_the_cards_are_not_applicable(tmp_path: Path, store,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GENDERSCOPE_DATA", str(tmp_path))  # no gest/ there
    ctx = Context(quick=True, data_dir=tmp_path)
    subject = Subject("chat", "causal", "stereotyped", Stereotyped)
    for entry in ENTRIES:
        sec = run_one(entry, subject, ctx, store)
        assert (sec.status, sec.reason) == ("not applicable", MISSING)
    assert "genderscope data fetch gest" in MISSING and "\n" not in MISSING
    with pytest.raises(GenderscopeError, match="genderscope data fetch gest"):
        run_report([subject], ctx, store, names=[e.name for e in ENTRIES])
    with sqlite3.connect(tmp_path / "store.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
