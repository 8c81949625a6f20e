"""Writing files so that a reader never meets half of one.

``write_text_atomic`` is the one way this package writes a file: the text goes to a
temporary file in the target's own directory (``safer``), which is renamed over the target
(``os.replace``) only once every byte is written. An exception, a full disk, SIGINT or a
kill in the middle leaves the previous file byte for byte (or no file, if there was none)
and no temporary file behind, except after a hard kill, which can leave one beside the
target but never a partial target.
"""

from __future__ import annotations

from pathlib import Path

import safer


def write_text_atomic(path: Path | str, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically; return the path.

    The parent directory must exist. Raises OSError (the caller names the way out) when
    the directory is missing or not writable, or the disk is full; the old file is kept.
    """
    target = Path(path)
    with safer.open(target, "w", encoding=encoding, temp_file=True) as stream:
        stream.write(text)
    return target
