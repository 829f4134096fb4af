"""The bias report: registry of measures, runner, HTML page, model comparison.

``genderscope.report`` is this package and, called, the API function
:func:`genderscope.report.build.report` (``gs.report([...], out=...)``): the package and the
function share the name, so the package is callable.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from genderscope.report.build import report

        return report(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
