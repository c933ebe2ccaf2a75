"""Process-wide settings of xdist, read from the environment and changeable in code.

Every ``XDIST_*`` environment variable that xdist reads is read in this module and nowhere
else, each by one function that names the variable, the value and the accepted values when it
refuses one; docs/guide/settings.md documents each for users (tests/packaging/test_settings.py
keeps the two in step).

Settings (environment variable in brackets):

- ``max_message_elements`` [``XDIST_MAX_MESSAGE_ELEMENTS``]: the largest count, in elements,
  that the transport passes to one MPI call. Larger messages are cut into chunks. The default
  is ``2**31 - 1``, the limit of MPI's ``int`` counts; tests lower it to exercise chunking.
- ``default_split`` [``XDIST_DEFAULT_SPLIT``]: the split axis used by creation functions when
  ``split=`` is not given (``None``, replicated, by default). Used by the conformance runner
  so that the arrays the suite creates are really distributed.
- ``comm`` [``XDIST_COMM=self|world``]: the default communicator. ``world`` (the default when
  mpi4py and an MPI library are importable) is ``MPI.COMM_WORLD``; ``self`` is the
  one-process communicator that needs no MPI at all.
- ``gather_warning_elements`` [``XDIST_GATHER_WARNING_ELEMENTS``]: an implicit gather (one the
  user did not ask for: ``np.asarray`` of a split array, an operation whose algorithm needs a
  whole operand on every rank) of an array with more elements than this issues an
  ``xdist.GatherWarning``. The default, ``2**16``, keeps small gathers (class means, a vector
  broadcast against a matrix) silent; ``0`` reports every one (see docs/interop.md).
- ``cuda_aware`` [``XDIST_CUDA_AWARE=0|1``]: whether MPI may be handed device buffers.
  ``None`` (the default, or the variable unset / ``auto``) asks the MPI library; ``True`` or
  ``False`` overrides the answer (see docs/backends.md).
- ``collective_timeout`` [``XDIST_COLLECTIVE_TIMEOUT``, seconds]: a rank that has waited in
  one collective longer than this asks the other ranks, out of band, where they are. Ranks
  that cannot meet again (each blocked in a different collective, or one has exited) end the
  job with one message giving every rank's collective, call number and program line; a rank
  that has exited is noticed within about a second, whatever the timeout. A rank still
  computing outside any collective is reported once and waited for. Default 60; ``0`` turns
  the watchdog off.
- ``collective_timeout_abort`` [``XDIST_COLLECTIVE_TIMEOUT_ABORT=0|1``]: past the timeout,
  also end the job (``MPI_Abort``) when the ranks could still meet. Default off.
- ``check_call_sites`` [``XDIST_CHECK_CALL_SITES=0|1``]: small allreduces and allgathers
  carry a number naming the program's line that called them, and raise the same
  ``CollectiveMismatchError`` on every rank where MPI matched calls from different lines (a
  collective skipped on some rank, matched with the next one of the same shape). On by
  default (the number rides in a message the collective sends anyway); ``0`` for a program
  that makes one collective from different lines on different ranks on purpose.
- ``check_replicated`` [``XDIST_CHECK_REPLICATED=0|1|full``]: data given whole on every rank
  (``asarray`` of host or library data, with or without ``split=``; ``from_local(...,
  split=None)``; a NumPy array beside an xdist array; the seed of ``xdist.random``) is
  compared across the ranks by a 64-bit fingerprint of its values, and a difference raises
  the same error on every rank, naming the ranks that differ. ``True`` (the default) reads
  about 1024 elements spread evenly over every axis (every element of a smaller array), so
  its cost does not grow with the array; the constructors carry the fingerprint in the
  allreduce they already make for metadata. ``"full"`` reads every element (one pass, for
  debugging: on a GPU the whole array is staged to the host). ``False`` trusts the data:
  a rank whose data differs then silently contributes its own rows. Metadata (shape, dtype,
  split, device kind) is agreed whatever the setting.
- ``debug_collectives`` [``XDIST_DEBUG_COLLECTIVES=0|1``]: before every collective, check
  that all ranks entered the same one (name and message sizes), and raise the same
  ``xdist.CollectiveMismatchError`` on every rank where they did not. One extra small
  allgather per collective: for debugging, like ``TORCH_DISTRIBUTED_DEBUG``. Default off.
- ``api_version`` [``XDIST_API_VERSION``]: the edition of the Array API standard that
  ``xdist.__array_api_version__`` names and the namespace follows where editions differ:
  ``"2025.12"`` (the default) or an earlier one. The only differences xdist makes are those
  2025.12 calls breaking: before it, ``meshgrid``, ``broadcast_arrays`` and
  ``__array_namespace_info__().devices()`` return lists, from it tuples. The functions added
  by 2025.12 are there whatever the setting. ``x.__array_namespace__(api_version=...)``
  gives a namespace of one edition without changing the setting.

- ``fuse_min_elements`` [``XDIST_FUSE_MIN_ELEMENTS``]: elementwise operations on blocks of at
  least this many elements (the NumPy backend, and the Torch backend on the CPU) are
  recorded and run as one pass over memory per chain when the value is needed
  (xdist/_fusion.py); the results are the eager ones, bit for bit. The default, ``2**16``,
  leaves small blocks eager, where a pass costs less than recording; ``0`` turns fusion off.
- ``fuse_compile_min_elements`` [``XDIST_FUSE_COMPILE_MIN_ELEMENTS``]: a fused chain of
  NumPy's float arithmetic, ``sqrt``, ``maximum`` and ``minimum`` on blocks of at least this
  many elements runs as one compiled loop per tile where numba is installed (the ``jit``
  extra; xdist/_compiled.py), from the second time a chain of its kind runs; the results
  are the same bits. The default, ``2**20``, leaves chains whose calls cost less than a
  compilation to the library; ``0`` never compiles, neither chains nor the loops of
  ``argmin``/``argmax`` and sums along short lines (backends/compiled_lines.py).
- ``block_pool_bytes`` [``XDIST_BLOCK_POOL_BYTES``, bytes or ``auto``]: the most bytes of
  dropped result blocks of fused chains (4 MiB and more) that a process keeps for reuse, so
  that a block is written where one was before rather than page-faulted in anew
  (xdist/_block_pool.py). ``None`` (the default, or ``auto``) is an eighth of the node's
  memory divided by the ranks on it; ``0`` turns the pool off; ``xdist.empty_cache()`` drops
  what it holds.

Start-up choices, read when first needed and changed in code by ``set_backend`` and
``set_default_comm`` rather than ``set_config``: the backend [``XDIST_BACKEND=numpy|torch|cupy``],
the device [``XDIST_DEVICE=cpu|cuda|cuda:N``], Torch's threads per rank
[``XDIST_TORCH_THREADS``, by default the node's cores divided by its ranks] and the BLAS's
[``XDIST_BLAS_THREADS``, by default the same where several ranks share a node and no BLAS
thread count is set in the environment; ``backends/threads.py``].
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "API_VERSIONS",
    "BACKENDS",
    "COMMS",
    "Config",
    "backend_setting",
    "blas_threads_setting",
    "comm_setting",
    "config_context",
    "device_setting",
    "edition_sequence",
    "get_config",
    "set_config",
    "torch_threads_setting",
]

_INT32_MAX = 2**31 - 1
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
_GATHER_WARNING_ELEMENTS = 2**16
_FUSE_MIN_ELEMENTS = 2**16
_FUSE_COMPILE_MIN_ELEMENTS = 2**20


def _env_int(name: str, default: int, minimum: int = 1) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        parsed = int(value)
    except ValueError:
        raise ValueError(f"{name}: expected an integer, got {value!r}") from None
    if parsed < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {parsed}")
    return parsed


def _env_seconds(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    if value == "":
        return default
    try:
        parsed = float(value)
    except ValueError:
        raise ValueError(f"{name}: expected a number of seconds >= 0, got {value!r}") from None
    if not parsed >= 0:  # also refuses NaN
        raise ValueError(f"{name}: expected a number of seconds >= 0, got {value!r}")
    return parsed


def _env_bytes(name: str) -> int | None:
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "auto"):
        return None
    refusal = f"{name}: expected a number of bytes >= 0 or 'auto', got {value!r}"
    try:
        parsed = int(value)
    except ValueError:
        raise ValueError(refusal) from None
    if parsed < 0:
        raise ValueError(refusal)
    return parsed


def _env_split(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if value in ("", "none", "None"):
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name}: expected an axis or 'none', got {value!r}") from None


def _env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = os.environ.get(name, "").strip().lower()
    if value == "":
        return default
    if value not in choices:
        raise ValueError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def _env_flag(name: str) -> bool | None:
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("1", "true", "yes"):
        return True
    if value in ("0", "false", "no"):
        return False
    raise ValueError(f"{name}: expected 0, 1 or auto, got {value!r}")


def _env_check(name: str) -> bool | str:
    value = os.environ.get(name, "").strip().lower()
    if value == "full":
        return "full"
    try:
        return _env_flag(name) is not False  # on unless 0 / false / no
    except ValueError:
        raise ValueError(f"{name}: expected 0, 1, full or auto, got {value!r}") from None


@dataclass(frozen=True, slots=True)
class Config:
    max_message_elements: int
    default_split: int | None
    cuda_aware: bool | None = None
    gather_warning_elements: int = _GATHER_WARNING_ELEMENTS
    collective_timeout: float = 60.0
    collective_timeout_abort: bool = False
    debug_collectives: bool = False
    check_call_sites: bool = True
    check_replicated: bool | str = True
    api_version: str = API_VERSIONS[-1]
    fuse_min_elements: int = _FUSE_MIN_ELEMENTS
    fuse_compile_min_elements: int = _FUSE_COMPILE_MIN_ELEMENTS
    block_pool_bytes: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.max_message_elements, int) or self.max_message_elements < 1:
            raise ValueError(
                "set_config: max_message_elements must be a positive int, "
                f"got {self.max_message_elements!r}"
            )
        if self.max_message_elements > _INT32_MAX:
            raise ValueError(
                "set_config: max_message_elements must not exceed 2**31 - 1 (MPI's int count), "
                f"got {self.max_message_elements}"
            )
        if self.default_split is not None and not isinstance(self.default_split, int):
            raise TypeError(
                f"set_config: default_split must be an int or None, got {self.default_split!r}"
            )
        g = self.gather_warning_elements
        if not isinstance(g, int) or isinstance(g, bool) or g < 0:
            raise ValueError(f"set_config: gather_warning_elements must be an int >= 0, got {g!r}")
        for name in ("fuse_min_elements", "fuse_compile_min_elements"):
            f = getattr(self, name)
            if not isinstance(f, int) or isinstance(f, bool) or f < 0:
                raise ValueError(f"set_config: {name} must be an int >= 0, got {f!r}")
        b = self.block_pool_bytes
        if b is not None and (not isinstance(b, int) or isinstance(b, bool) or b < 0):
            raise ValueError(
                f"set_config: block_pool_bytes must be an int >= 0 or None (auto), got {b!r}"
            )
        t = self.collective_timeout
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not t >= 0:
            raise ValueError(
                f"set_config: collective_timeout must be a number of seconds >= 0, got {t!r}"
            )
        c = self.check_replicated
        if not isinstance(c, bool) and c != "full":
            raise TypeError(
                f"set_config: check_replicated must be True, False or 'full', got {c!r}"
            )
        for name in ("collective_timeout_abort", "debug_collectives", "check_call_sites"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(
                    f"set_config: {name} must be True or False, got {getattr(self, name)!r}"
                )
        if self.api_version not in API_VERSIONS:
            raise ValueError(
                f"set_config: api_version must be one of {API_VERSIONS}, got {self.api_version!r}"
            )
        if self.cuda_aware is not None and not isinstance(self.cuda_aware, bool):
            raise TypeError(
                f"set_config: cuda_aware must be True, False or None, got {self.cuda_aware!r}"
            )


_config = Config(
    max_message_elements=_env_int("XDIST_MAX_MESSAGE_ELEMENTS", _INT32_MAX),
    default_split=_env_split("XDIST_DEFAULT_SPLIT"),
    cuda_aware=_env_flag("XDIST_CUDA_AWARE"),
    gather_warning_elements=_env_int(
        "XDIST_GATHER_WARNING_ELEMENTS", _GATHER_WARNING_ELEMENTS, minimum=0
    ),
    collective_timeout=_env_seconds("XDIST_COLLECTIVE_TIMEOUT", 60.0),
    collective_timeout_abort=bool(_env_flag("XDIST_COLLECTIVE_TIMEOUT_ABORT")),
    debug_collectives=bool(_env_flag("XDIST_DEBUG_COLLECTIVES")),
    check_call_sites=_env_flag("XDIST_CHECK_CALL_SITES") is not False,
    check_replicated=_env_check("XDIST_CHECK_REPLICATED"),
    api_version=_env_choice("XDIST_API_VERSION", API_VERSIONS, API_VERSIONS[-1]),
    fuse_min_elements=_env_int("XDIST_FUSE_MIN_ELEMENTS", _FUSE_MIN_ELEMENTS, minimum=0),
    fuse_compile_min_elements=_env_int(
        "XDIST_FUSE_COMPILE_MIN_ELEMENTS", _FUSE_COMPILE_MIN_ELEMENTS, minimum=0
    ),
    block_pool_bytes=_env_bytes("XDIST_BLOCK_POOL_BYTES"),
)


def get_config() -> Config:
    """The settings in force."""
    return _config


def set_config(**changes: object) -> Config:
    """Change settings for the whole process; returns the previous settings."""
    global _config
    previous = _config
    unknown = set(changes) - set(Config.__dataclass_fields__)
    if unknown:
        raise TypeError(f"set_config: unknown settings {sorted(unknown)}")
    _config = replace(_config, **changes)  # type: ignore[arg-type]
    return previous


@contextmanager
def config_context(**changes: object) -> Iterator[Config]:
    """Change settings inside a ``with`` block and restore them on exit."""
    previous = set_config(**changes)
    try:
        yield _config
    finally:
        set_config(**{f: getattr(previous, f) for f in Config.__dataclass_fields__})


def edition_sequence(items: Iterable[Any], api_version: str | None = None) -> Any:
    """``items`` as the standard's edition ``api_version`` (default: the setting) returns a
    sequence of arrays or devices: a tuple from 2025.12, a list before (2025.12 made
    ``meshgrid``, ``broadcast_arrays`` and ``devices()`` tuples)."""
    version = _config.api_version if api_version is None else api_version
    return tuple(items) if version >= "2025.12" else list(items)


# The start-up choices: the communicator, backend and device that new arrays use, and Torch's
# threads per rank. Code changes the first three with set_default_comm / set_backend, not
# set_config, so they are not Config fields. Each is read when its consumer first needs it
# (_runtime when xdist is imported and when it makes its defaults, backends/torch.py when
# Torch's backend is made), so a bad value is raised there, alike on every rank.
COMMS = ("world", "self")
BACKENDS = ("numpy", "torch", "cupy")


def comm_setting() -> str:
    """``XDIST_COMM``: ``"world"`` (the default) or ``"self"``."""
    return _env_choice("XDIST_COMM", COMMS, "world")


def backend_setting() -> str:
    """``XDIST_BACKEND``: the name of the backend new arrays use, ``"numpy"`` by default."""
    return _env_choice("XDIST_BACKEND", BACKENDS, "numpy")


def device_setting() -> str:
    """``XDIST_DEVICE``: ``"cpu"``, ``"cuda"`` (a GPU of the node, picked by node-local rank),
    ``"cuda:N"``, or ``""`` for the backend's default device. Whether the backend has that
    device is its own check."""
    value = os.environ.get("XDIST_DEVICE", "").strip().lower()
    kind, colon, index = value.partition(":")
    if value in ("", "default", "cpu", "cuda") or (kind == "cuda" and colon and index.isdigit()):
        return "" if value == "default" else value
    raise ValueError(f"XDIST_DEVICE: expected cpu, cuda or cuda:N, got {value!r}")


def torch_threads_setting() -> int | None:
    """``XDIST_TORCH_THREADS``: Torch threads per rank, a positive integer; None when unset."""
    return _threads_setting("XDIST_TORCH_THREADS", "Torch threads per rank")


def blas_threads_setting() -> int | None:
    """``XDIST_BLAS_THREADS``: BLAS threads per rank, a positive integer; None when unset."""
    return _threads_setting("XDIST_BLAS_THREADS", "BLAS threads per rank")


def _threads_setting(name: str, what: str) -> int | None:
    """The positive integer in the environment variable ``name``; None when unset."""
    value = os.environ.get(name, "")
    try:
        threads = int(value) if value.strip() else None
    except ValueError:
        threads = 0
    if threads is not None and threads < 1:
        raise ValueError(f"{name}: expected a positive integer ({what}), got {value!r}")
    return threads
