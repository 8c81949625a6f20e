"""Writing files so that a reader never meets half of one.

``write_text_atomic`` is the one way this package writes a file: the text goes to a
temporary file in the target's own directory (``safer``), which is renamed over the target
(``os.replace``) only once every byte is written. An exception, a full disk, SIGINT or a
kill in the middle leaves the previous file byte for byte (or no file, if there was none)
and no temporary file behind, except after a hard kill, which can leave one beside the
target but never a partial target.

Modes: a file that existed keeps its mode; a new file gets the mode ``open()`` would give
it, 0666 less the process's umask (the temporary file's own 0600 never reaches it).
"""

from __future__ import annotations

import hashlib
import os
import threading
import unicodedata
from pathlib import Path
from typing import IO, cast

import safer

from ._errors import InputError

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows
    (``/proc/self/status``), else by setting and restoring it under a lock."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:  # pragma: no cover - systems without /proc
        mask = os.umask(0o077)
        os.umask(mask)
    return mask  # pragma: no cover


def write_text_atomic(path: Path | str, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically; return the path.

    The parent directory must exist. Raises OSError (the caller names the way out) when
    the directory is missing or not writable, or the disk is full; the old file is kept.
    """
    target = Path(path)
    new_mode = 0o666 & ~current_umask()
    with safer.open(target, "w", encoding=encoding, temp_file=True) as stream:
        # safer's stub omits fileno(); its stream is a real file. An existing target's
        # mode is copied over this one by safer before the rename.
        os.fchmod(cast(IO[str], stream).fileno(), new_mode)
        stream.write(text)
    return target


def sha256_of(path: Path) -> str:
    """The SHA-256 of the file at ``path`` (hex), read in blocks of 1 MiB: how a pinned
    model file is recognised at load."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def decode_text(raw: bytes, name: str, *, give: str | None = None) -> str:
    """``raw`` as a text document: UTF-8, a BOM removed, line endings kept.

    Raises InputError naming ``name`` and the way out when it is not UTF-8, holds NUL bytes
    (binary, or UTF-16), or has no text (only whitespace: "empty"; only control characters:
    "not text"); ``give`` names what the caller takes, for the way out of an empty file
    (default: a document with some text). The one reading of a document's bytes, for
    ``chunk`` and for every file of a corpus.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{name}: not UTF-8 text ({error.reason}); save it as UTF-8") from None
    if "\x00" in text:
        raise InputError(
            f"{name}: contains NUL bytes, so it is binary (or UTF-16), not UTF-8 text; "
            "give a text file saved as UTF-8"
        )
    if not text.strip(_PLAIN_SPACE):
        raise InputError(f"{name}: the file is empty; give {give or 'a document with some text'}")
    if not any(not _is_control(char) and not char.isspace() for char in text):
        raise InputError(
            f"{name}: not text: it holds only control characters (and whitespace), no "
            "letter, digit or sign; give a text document saved as UTF-8"
        )
    return text


_PLAIN_SPACE = " \t\n\r"
"""The whitespace an empty file may hold; any other character (a form feed, U+001C..U+001F,
which ``str.strip`` also takes for whitespace) makes it "not text" unless text is there too."""


def _is_control(char: str) -> bool:
    """A control or format character (Unicode category Cc or Cf): never text by itself."""
    return unicodedata.category(char) in ("Cc", "Cf")
