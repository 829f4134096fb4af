"""Time the report's BEC-Pro card at N professions per group (fresh store, model load
included) and print its headline with the CI. Issue 22 raised the CPU default from 5 to
10 per group; this measures what that costs. Run (one size per process):

    flock /tmp/gs-heavy.lock env HF_HUB_OFFLINE=1 python benchmarks/bec_pro_report_size.py 10
"""

from __future__ import annotations

import sys
import tempfile
import time

import genderscope as gs
from genderscope.reporting.cards import bec_pro as bec_pro_card
from genderscope.reporting.entry import Context


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    model = sys.argv[2] if len(sys.argv) > 2 else "smollm2"
    name, options = bec_pro_card.plan(Context())  # the card's options, N per group
    options["professions"] = n
    with tempfile.TemporaryDirectory() as d:
        lm = gs.load_model(model, store=f"{d}/s.sqlite")
        t = time.perf_counter()
        r = gs.run(name, lm, store=f"{d}/s.sqlite", **options)
        seconds = time.perf_counter() - t
    m = r.summary["male_minus_female"]
    print(f"per_group={n} rows={r.metadata['data']['n_rows']} seconds={seconds:.1f} "
          f"male-female={m['estimate']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}] "
          f"{m.get('method')} over {m.get('n_units')} professions")


if __name__ == "__main__":
    main()
