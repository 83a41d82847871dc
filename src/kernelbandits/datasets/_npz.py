"""Byte-reproducible ``.npz`` files for the shipped lookup tables, and reading them back.

``numpy.savez_compressed`` stamps the clock into the zip members, so rebuilding a table gives
different bytes even when the arrays are equal; :func:`npz_bytes` fixes member names, order,
timestamps and permissions so that the bytes depend on the arrays only (what the build scripts'
``--check`` modes compare). :func:`load_shipped_table` / :func:`load_named_table` read a shipped
table back, :func:`frozen_float64` makes the read-only float64 arrays the loaders return.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A deflated ``.npz`` (readable by ``numpy.load``) whose bytes depend on ``arrays`` only."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue(), compresslevel=9)
    return buffer.getvalue()


def load_shipped_table(file: str, what: str, rebuild_hint: str) -> dict[str, np.ndarray]:
    """All arrays of the shipped table ``kernelbandits/datasets/tables/<file>``.

    ``FileNotFoundError`` naming ``what`` (e.g. "the SVM lookup table") and how to rebuild it
    when the file is missing from the installed package.
    """
    from importlib import resources

    resource = resources.files("kernelbandits.datasets").joinpath("tables", file)
    if not resource.is_file():
        raise FileNotFoundError(
            f"{what} kernelbandits/datasets/tables/{file} is missing; {rebuild_hint}"
        )
    with np.load(io.BytesIO(resource.read_bytes()), allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def load_named_table(
    files: Mapping[str, str], name: str, kind: str, what: str, rebuild_hint: str
) -> dict[str, np.ndarray]:
    """:func:`load_shipped_table` of ``files[name]`` (``files``: table name -> file name).

    ``ValueError`` naming ``kind`` (e.g. "SVM table") and the available names, sorted, when
    ``name`` is not a key of ``files``.
    """
    if name not in files:
        raise ValueError(f"unknown {kind} {name!r}; available: {', '.join(sorted(files))}")
    return load_shipped_table(files[name], what, rebuild_hint)


def frozen_float64(array: npt.ArrayLike) -> FloatArray:
    """A read-only float64 copy of ``array`` (same shape; always a copy, never a view)."""
    out = np.array(array, dtype=np.float64)
    out.flags.writeable = False
    return out
