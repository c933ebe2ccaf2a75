"""The namespace of one edition of the standard: ``x.__array_namespace__(api_version=...)``.

``xdist`` itself follows the ``api_version`` setting (``XDIST_API_VERSION``, default
2025.12). Asking an array for another edition gives a namespace of that edition without
changing the setting: every name is xdist's, but ``__array_api_version__`` names the edition
and the functions whose results 2025.12 changed from lists to tuples (``meshgrid``,
``broadcast_arrays``, ``__array_namespace_info__().devices()``) return that edition's type.
Nothing here communicates.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from ._config import API_VERSIONS, edition_sequence, get_config
from ._creation_functions import meshgrid
from ._info import Info
from ._manipulation_functions import broadcast_arrays
from ._runtime import default_backend

__all__ = ["namespace"]


def namespace(module: types.ModuleType, api_version: str | None) -> types.ModuleType:
    """``module`` (xdist) when ``api_version`` is ``None`` or the setting's edition, else a
    namespace of the edition ``api_version`` (one per edition, made once)."""
    if api_version is not None and api_version not in API_VERSIONS:
        raise ValueError(
            f"__array_namespace__: unsupported api_version {api_version!r}; expected None or "
            f"one of {API_VERSIONS}"
        )
    if api_version is None or api_version == get_config().api_version:
        return module
    return _edition(module, api_version)


@functools.cache
def _edition(module: types.ModuleType, version: str) -> types.ModuleType:
    ns = types.ModuleType(f"{module.__name__}[api_version={version}]", module.__doc__)
    ns.__getattr__ = lambda name: getattr(module, name)  # type: ignore[method-assign]

    @functools.wraps(meshgrid)
    def edition_meshgrid(*arrays: Any, **kwargs: Any) -> Any:
        return edition_sequence(meshgrid(*arrays, **kwargs), version)

    @functools.wraps(broadcast_arrays)
    def edition_broadcast_arrays(*arrays: Any) -> Any:
        return edition_sequence(broadcast_arrays(*arrays), version)

    def edition_info() -> Info:
        """The standard's inspection object, in this namespace's edition."""
        return Info(default_backend(), version)

    ns.__array_api_version__ = version  # type: ignore[attr-defined]
    ns.meshgrid = edition_meshgrid  # type: ignore[attr-defined]
    ns.broadcast_arrays = edition_broadcast_arrays  # type: ignore[attr-defined]
    ns.__array_namespace_info__ = edition_info  # type: ignore[attr-defined]
    return ns
