"""The real ``genderscope`` entry point run in-process, for tests of what a user sees."""

from __future__ import annotations

import contextlib
import io
import sys


def run_main(*args: str) -> tuple[int, str, str]:
    """``genderscope ARGS`` through :func:`genderscope.cli.app.main`: (exit code, stderr,
    stdout); the code is 0 when ``main`` returns, else its ``SystemExit`` code as the
    interpreter reads it (None: 0; a message: 1)."""
    from genderscope.cli.app import main

    err, out, old, code = io.StringIO(), io.StringIO(), sys.argv, 0
    sys.argv = ["genderscope", *args]
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            main()
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = old
    return code, err.getvalue(), out.getvalue()
