"""The WEFE 1.0.1 variant of Repulsion-Attraction-Neutralization (Kumar et al. 2020),
optimised in torch: the only part of ``genderscope debias ran`` that needs autograd
(the paper variant, :mod:`genderscope.vector_debias.ran`, is plain numpy).

WEFE's ``RAN`` module hands its loss the original vector and the vector being debiased
in swapped argument order, so what its 300 Adam steps optimise is not what the paper
describes: two float32 parameters both start at the word's unit vector w,

    moving  m: repelled (mean |cos(m, s)| over the repulsion set S), neutralised
               (|m . g|) and attracted to the anchor (|cos(m, a) - 1| / 2);
    anchor  a: moved only by that attraction term, i.e. it follows m;

and the *anchor* ``a / |a|`` is returned, not m. At the first step a == m, so a's
gradient is float32 rounding noise that Adam's first step (g / (|g| + 1e-8)) turns into a
step of up to lr per component: the result depends on the exact float32 operations, which
this module performs in WEFE's order (``cosine_similarity`` on (1, d) rows, ``matmul`` /
``norm``, one ``Adam`` over [anchor, moving]), one word at a time, so that its output
matches (tests/agreement/test_wefe_agreement.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ran_wefe_word(w: np.ndarray, repel: np.ndarray, direction: np.ndarray, *,
                  weights: Sequence[float], lr: float, epochs: int) -> np.ndarray:
    """One word's debiased unit vector (float32) as WEFE 1.0.1 computes it.

    Args:
        w: the word's unit vector (float32, as normalised by the caller).
        repel: (k, d) float32 vectors of its repulsion set (k may be 0).
        direction: the gender direction (float32).
        weights: (repulsion, attraction, neutralisation) weights.
    """
    import torch

    anchor = torch.nn.Parameter(torch.tensor(np.asarray(w, dtype=np.float32)))
    moving = torch.nn.Parameter(torch.tensor(np.asarray(w, dtype=np.float32)))
    rep_set = (torch.tensor(np.asarray(repel, dtype=np.float32)).requires_grad_(True)
               if len(repel) else None)
    g = torch.tensor(np.asarray(direction, dtype=np.float32))
    w_rep, w_att, w_neu = (float(x) for x in weights)
    opt = torch.optim.Adam([anchor, moving], lr=lr)
    for _ in range(epochs):
        opt.zero_grad()
        # the terms in WEFE's order (repulsion, attraction, neutralisation): the order
        # the graph is built in decides how the gradients of ``moving`` are summed
        if rep_set is None:
            repulse: torch.Tensor | float = 0.0
        else:
            cos = torch.matmul(rep_set, moving) / (rep_set.norm(dim=1) * moving.norm(dim=0))
            repulse = torch.abs(cos).mean(dim=0)
        attract = torch.abs(torch.cosine_similarity(moving[None, :], anchor[None, :])
                            - 1)[0] / 2
        neutral = torch.abs(moving.dot(g)).mean(dim=0)
        loss = repulse * w_rep + attract * w_att + neutral * w_neu
        loss.backward()
        opt.step()
    with torch.no_grad():
        out = anchor / torch.norm(anchor)
    return out.numpy().astype(np.float32)
