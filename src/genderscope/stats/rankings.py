"""Rankings of models by their bias scores and the rank correlations between metrics,
as WEFE 1.0.1's ``run_queries(aggregate_results=True)``, ``create_ranking`` and
``calculate_ranking_correlations`` (Badilla, Bravo-Marquez & Pérez 2020, "WEFE: The
Word Embeddings Fairness Evaluation Framework", IJCAI, Sec. 4: a metric's scores over a
set of queries are aggregated per model, models are ranked by the aggregate, and
metrics are compared by the correlation of their rankings).

- :func:`aggregate`: one score per model and metric from its query scores: ``abs_avg``
  (WEFE's default: mean of absolute values), ``avg``, ``sum`` or ``abs_sum``.
- :func:`create_ranking`: rank of each model within each metric's column, 1 for the
  lowest score with ``ascending=True`` (WEFE's default); ties as WEFE, by pandas'
  ``rank``: ``first`` (order of the rows, WEFE's default), ``average``, ``min``,
  ``max`` or ``dense``; a missing score has no rank.
- :func:`ranking_correlations`: Spearman's rho or Kendall's tau-b between every two
  metrics' rankings (``scipy.stats``), over the models both rank; with
  :func:`correlation_tests` each pair's two-sided p-value beside it (exact over all
  orderings of up to :data:`EXACT_MAX_MODELS` models, else scipy's).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from genderscope.errors import GenderscopeError

AGGREGATIONS = ("abs_avg", "avg", "sum", "abs_sum")
RANK_METHODS = ("first", "average", "min", "max", "dense")
CORRELATIONS = ("spearman", "kendall")
EXACT_MAX_MODELS = 8
"""Up to this many models a correlation's p-value is exact (all n! orderings)."""


def aggregate(scores: pd.DataFrame, how: str = "abs_avg") -> pd.Series:
    """One value per row of ``scores`` (rows: models, columns: queries): WEFE's
    aggregation functions (``abs_avg`` = mean of |score| over the queries)."""
    if how not in AGGREGATIONS:
        raise GenderscopeError(f"--aggregate must be one of {', '.join(AGGREGATIONS)}, "
                               f"got {how!r}")
    values = scores.abs() if how.startswith("abs_") else scores
    return values.mean(axis=1) if how.endswith("avg") else values.sum(axis=1)


def create_ranking(scores: pd.DataFrame, method: str = "first",
                   ascending: bool | Mapping[str, bool] = True) -> pd.DataFrame:
    """Rank of each model (row) per metric (column) of ``scores``: 1 for the lowest
    score when ``ascending`` (WEFE's ``create_ranking``; ties by ``method``). A mapping
    ``{metric: False}`` ranks those columns from the highest score (a metric whose
    higher value means less bias, as ECT's), the others ascending."""
    if method not in RANK_METHODS:
        raise GenderscopeError(f"--rank-method must be one of {', '.join(RANK_METHODS)}, "
                               f"got {method!r}")
    if isinstance(ascending, bool):
        return scores.rank(method=method, ascending=ascending)  # type: ignore[arg-type]
    unknown = set(ascending) - set(scores.columns)
    if unknown:
        raise GenderscopeError(f"no scores of {sorted(unknown)[0]!r} to rank (metrics: "
                               f"{', '.join(map(str, scores.columns))})")
    return pd.DataFrame({c: scores[c].rank(method=method,  # type: ignore[arg-type]
                                           ascending=ascending.get(c, True))
                         for c in scores.columns}, index=scores.index)


def _pair(x: np.ndarray, y: np.ndarray, method: str) -> tuple[float, float, int]:
    """(correlation, two-sided p, models both rank)."""
    from scipy import stats

    both = np.isfinite(x) & np.isfinite(y)
    x, y = x[both], y[both]
    n = int(both.sum())
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan"), n
    res = stats.spearmanr(x, y) if method == "spearman" else stats.kendalltau(x, y)
    r = float(res.statistic)
    if n > EXACT_MAX_MODELS:
        return r, float(res.pvalue), n
    # few models: scipy's approximations are far off (rho = 1 of 3 models reads p = 0);
    # the exact two-sided p over all n! orderings of y
    orders = np.array(list(itertools.permutations(range(n))))
    if method == "spearman":
        rx, ry = stats.rankdata(x), stats.rankdata(y)[orders]
        rx, ry = rx - rx.mean(), ry - ry.mean(axis=1, keepdims=True)
        null = ry @ rx / np.sqrt((rx @ rx) * np.einsum("ij,ij->i", ry, ry))
    else:
        null = _kendall_null(x, y, orders)
    return r, float(np.mean(np.abs(null) >= abs(r) - 1e-12)), n


def _kendall_null(x: np.ndarray, y: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of ``x`` with ``y`` in each of ``orders`` (rows of indices), all at
    once: tau-b = sum_{i<j} sgn(x_i - x_j) sgn(y_i - y_j) / sqrt(n_x n_y), where n_x and
    n_y count the pairs untied in x and in y (Kendall 1945); reordering y keeps n_y."""
    i, j = np.triu_indices(x.size, k=1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    ys = y[orders]
    return np.sign(ys[:, i] - ys[:, j]) @ sx / np.sqrt(np.count_nonzero(sx)
                                                       * np.count_nonzero(sy))


def correlation_tests(rankings: pd.DataFrame, method: str = "spearman") -> pd.DataFrame:
    """One row per pair of metrics (columns of ``rankings``): ``a``, ``b``, the rank
    correlation (``spearman``: rho; ``kendall``: tau-b), its two-sided p-value (exact
    permutation p up to :data:`EXACT_MAX_MODELS` models, else scipy.stats': t
    approximation for rho, exact or normal for tau) and the number of models."""
    if method not in CORRELATIONS:
        raise GenderscopeError(f"--correlation must be one of {', '.join(CORRELATIONS)}, "
                               f"got {method!r}")
    rows = []
    for a, b in itertools.combinations(rankings.columns, 2):
        r, p, n = _pair(rankings[a].to_numpy(float), rankings[b].to_numpy(float), method)
        rows.append({"a": a, "b": b, method: r, "p_value": p, "n_models": n})
    return pd.DataFrame(rows, columns=["a", "b", method, "p_value", "n_models"])


def ranking_correlations(rankings: pd.DataFrame, method: str = "spearman") -> pd.DataFrame:
    """Square matrix of the rank correlations between the metrics' rankings (WEFE's
    ``calculate_ranking_correlations``; 1 on the diagonal)."""
    tests = correlation_tests(rankings, method)
    cols = list(rankings.columns)
    out = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    for c in cols:  # a ranking that does not vary correlates with nothing, itself included
        out.loc[c, c] = _pair(*(rankings[c].to_numpy(float),) * 2, method)[0]
    for row in tests.itertuples(index=False):
        out.loc[row.a, row.b] = out.loc[row.b, row.a] = getattr(row, method)
    return out
