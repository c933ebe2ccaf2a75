"""The manipulation chapter of the standard (being split into modules by what they hold)."""

from .shapes import *  # noqa: F403
from .shapes import __all__  # noqa: F401
