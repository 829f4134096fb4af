"""BEC-Pro's --limit is a seeded subset, as every other measure's (issue 41, item 5):
the rows change with --subset-seed, the same seed gives the same rows, and both person
genders keep rows (the data is ordered by person gender)."""

from __future__ import annotations

from genderscope.core.registry import get


def _rows(seed: int, limit: int = 10) -> list:
    plan = get("bec-pro").plan(limit=limit, subset_seed=seed)  # the generated corpus
    rows, meta = plan.inputs
    assert meta["limit"] == {"n": limit, "seed": seed}
    return rows


def test_limit_is_seeded_and_keeps_both_genders() -> None:
    a, b, c = (_rows(s) for s in (0, 0, 1))
    assert [r.row for r in a] == [r.row for r in b]
    assert [r.row for r in a] != [r.row for r in c]
    for rows in (a, c):
        genders = [r.gender for r in rows]
        assert sorted(set(genders)) == ["female", "male"] and genders.count("male") == 5
        assert [r.row for r in rows] == sorted(r.row for r in rows)  # original order
