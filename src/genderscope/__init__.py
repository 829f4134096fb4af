"""genderscope: measure gender bias in language technology, and help reduce it."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("genderscope")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
