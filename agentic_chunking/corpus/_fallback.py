"""Replies a corpus run kept in a temporary folder because the disk under its reply cache
filled, taken back by the next run on the same cache.

When the reply cache cannot be written, ``ReplyCache`` puts every reply of the run in a
fallback folder (``agentic-chunking-replies-XXXX`` in the temporary directory). A corpus
run that ends with one marks it (``mark_fallback``: a file ``FOR_CACHE`` naming the cache
it stands in for); the next run on that cache, before any call, copies every entry of a
marked folder into the cache (``take_back``) and removes the folder, so that rerunning the
same command pays for none of those replies again. Entries are copied, not trusted: the
cache verifies each before serving it. A folder that cannot be copied whole stays, and
the run is refused (``InputError``) naming it and the room it needs.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from pathlib import Path

from .._errors import InputError
from .._files import write_text_atomic
from ..pipeline import FALLBACK_PREFIX, ReplyCache

FOR_CACHE = "for-cache.txt"
"""The marker of a corpus run's fallback folder: the absolute path of its reply cache."""
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")


def mark_fallback(cache: ReplyCache) -> Path | None:
    """Mark the cache's fallback folder, if the run made one, as standing in for the cache;
    return the folder (None when the run needed none). A marker that cannot be written is
    no error: the folder is named in the run's message all the same."""
    if cache.fallback is None:
        return None
    with contextlib.suppress(OSError):
        write_text_atomic(cache.fallback / FOR_CACHE, str(cache.directory.resolve()) + "\n")
    return cache.fallback


def take_back(cache_dir: Path, temporary: Path | None = None) -> int:
    """Copy every entry of each fallback folder marked for ``cache_dir`` (in ``temporary``,
    default the system's temporary directory) into it, then remove the folder; return the
    number of entries copied. InputError, before any call, when one cannot be copied."""
    where = Path(temporary or tempfile.gettempdir())
    target = str(cache_dir.resolve())
    copied = 0
    for folder in sorted(where.glob(f"{FALLBACK_PREFIX}*")):
        try:
            marked = (folder / FOR_CACHE).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue  # another command's folder, or none of ours
        if marked != target:
            continue
        entries = [p for p in folder.iterdir() if _ENTRY.fullmatch(p.name)]
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            for entry in entries:
                if not (cache_dir / entry.name).exists():
                    write_text_atomic(cache_dir / entry.name, entry.read_text(encoding="utf-8"))
                    copied += 1
        except OSError as error:
            raise InputError(
                f"the {len(entries):,} model replies an earlier run kept in {folder} (its "
                f"reply cache was full) cannot be put back in {cache_dir} "
                f"({error.strerror or error}); free room there and rerun: none of them is "
                "paid for again"
            ) from None
        shutil.rmtree(folder, ignore_errors=True)
    return copied
