"""A group of shared options declared once (``core.declaration.Shared``): one plan
parameter stands for the group's options, in place and in order, and the plan gets one
instance holding their values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import pytest

from genderscope.catalog._common import Sampled
from genderscope.core.declaration import Limit, Opt, Plan, Progress, Shared, declare
from genderscope.errors import GenderscopeError


@dataclass(frozen=True)
class _Pair(Shared):
    limit: Limit = None
    progress: Progress = False


seen: list[Any] = []


@declare("shared-demo", needs="none")
def _demo(*, first: Annotated[int, Opt("First.")] = 1, g: _Pair,
          last: Annotated[str, Opt("Last.")] = "x") -> Plan:
    """Demo."""
    seen.append((first, g, last))
    return Plan("shared-demo", "none", lambda _: None)


def test_group_options_stand_in_place_of_the_parameter() -> None:
    opts = _demo.options
    assert opts.names == ["first", "limit", "progress", "last"]
    assert opts["limit"].min == 1 and opts["limit"].default is None
    assert opts["progress"].key is False and opts["progress"].type == "bool"


def test_plan_gets_one_instance_of_the_group() -> None:
    seen.clear()
    _demo.plan(limit=5, last="y")
    _demo.plan()
    assert seen == [(1, _Pair(limit=5), "y"), (1, _Pair(), "x")]


def test_group_options_are_checked() -> None:
    with pytest.raises(GenderscopeError, match="--limit must be at least 1"):
        _demo.plan(limit=0)


def test_sampled_is_the_six_shared_options() -> None:
    s = Sampled(limit=2, subset_seed=3)
    assert s.subset(list(range(10))) == s.subset(list(range(10)))
    assert len(s.subset(list(range(10)))) == 2
    assert s.note(2, 10, "items")["subset"] == {"n": 2, "of": 10, "unit": "items", "seed": 3}
