"""Cassettes are written like every other file: whole, or not at all.

vcrpy's own FilesystemPersister opens the cassette for writing and writes into it, so a
full disk or a kill in the middle leaves half a cassette. ``atomic_persister()`` is the
same persister with ``save_cassette`` going through ``write_text_atomic`` (a temporary
file in the same directory, renamed into place): the previous cassette stays whole until
the new one is complete. Registered by the plugin (``pytest_recording_configure``) and by
``rebuild-reference``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from .._files import write_text_atomic


@cache
def atomic_persister() -> type[Any]:
    """vcrpy's FilesystemPersister, saving atomically (built on first use: vcrpy is an extra)."""
    from vcr.persisters.filesystem import FilesystemPersister
    from vcr.serialize import serialize

    class AtomicFilesystemPersister(FilesystemPersister):  # type: ignore[misc]
        @staticmethod
        def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
            data = serialize(cassette_dict, serializer)
            path = Path(cassette_path)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, data)

    return AtomicFilesystemPersister
