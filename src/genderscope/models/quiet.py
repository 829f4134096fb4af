"""Third-party progress bars follow genderscope's progress switch.

transformers, huggingface_hub and sentence-transformers draw their own tqdm bars, which
would garble genderscope's display and ignore ``--no-progress``. :func:`loading` turns them
off for the duration of a load; in their place, when genderscope's progress is on
(:func:`genderscope.progress.scoped`), a stage line shows the label and the elapsed time.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from genderscope import progress


@contextmanager
def _third_party_off() -> Iterator[None]:
    import huggingface_hub.utils as hub_utils
    import transformers

    hub_was_off = hub_utils.are_progress_bars_disabled()
    tf_was_on = transformers.logging.is_progress_bar_enabled()
    hub_utils.disable_progress_bars()
    transformers.logging.disable_progress_bar()
    try:
        yield
    finally:
        if not hub_was_off:
            hub_utils.enable_progress_bars()
        if tf_was_on:
            transformers.logging.enable_progress_bar()


@contextmanager
def loading(label: str) -> Iterator[None]:
    """A model load: third-party bars off, a stage line when progress is on."""
    with _third_party_off(), progress.stage(label):
        yield
