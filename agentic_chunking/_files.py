"""Writing files so that a reader never meets half of one.

``write_text_atomic`` is the one way this package writes a file: the text goes to a
temporary file in the target's own directory (``safer``), which is renamed over the target
(``os.replace``) only once every byte is written. An exception, a full disk, SIGINT or a
kill in the middle leaves the previous file byte for byte (or no file, if there was none)
and no temporary file behind, except after a hard kill, which can leave one beside the
target but never a partial target. Such a temporary file is named as one, ``.NAME.tmp-PID-X``
beside NAME (hidden, and holding the id of the process that wrote it), so that
``remove_stale_temps(target)`` finds and removes those a dead process left.

Modes: a file that existed keeps its mode; a new file gets the mode ``open()`` would give
it, 0666 less the process's umask (the temporary file's own 0600 never reaches it).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, cast

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


TEMP_MARK = ".tmp-"
"""What names a temporary file: ``.NAME.tmp-PID-X`` beside NAME."""


def temp_path(target: Path) -> Path:
    """A new temporary file's path for ``target``: beside it, ``.NAME.tmp-PID-X``."""
    return target.with_name(f".{target.name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}")


def remove_stale_temps(target: Path | str) -> list[Path]:
    """Remove the temporary files of ``target`` that a process no longer running left (a
    hard kill in the middle of a write); return them. A live process's are kept."""
    target = Path(target)
    removed: list[Path] = []
    for path in target.parent.glob(f".{_glob_escape(target.name)}{TEMP_MARK}*"):
        pid = path.name[len(target.name) + 1 + len(TEMP_MARK) :].split("-", 1)[0]
        if pid.isdigit() and _running(int(pid)):
            continue
        try:
            path.unlink()
        except OSError:  # gone already, or not ours to remove: leave it
            continue
        removed.append(path)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, another user's
        return True
    return True


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


@contextmanager
def open_atomic(
    path: Path | str, *, binary: bool = False, encoding: str = "utf-8"
) -> Iterator[Any]:
    """A stream whose bytes reach ``path`` only when the block ends without an exception:
    the one writer behind ``write_text_atomic`` and the corpus's OUT (see the module).

    The parent directory must exist (else OSError, the old file kept).
    """
    target = Path(path)
    new_mode = 0o666 & ~current_umask()
    with safer.open(
        target,
        "wb" if binary else "w",
        encoding=None if binary else encoding,
        temp_file=temp_path(target),
    ) as stream:
        # safer's stub omits fileno(); its stream is a real file. An existing target's
        # mode is copied over this one by safer before the rename.
        os.fchmod(cast(IO[Any], stream).fileno(), new_mode)
        yield stream


def write_text_atomic(path: Path | str, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically; return the path.

    The parent directory must exist. Raises OSError (the caller names the way out) when
    the directory is missing or not writable, or the disk is full; the old file is kept.
    """
    target = Path(path)
    with open_atomic(target, encoding=encoding) as stream:
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
        if b"\x00" in raw[:8192]:  # NUL bytes and no UTF-8: an image, an archive, a program
            raise InputError(
                f"{name}: not UTF-8 text: binary or UTF-16 (it holds NUL bytes); convert it "
                "to UTF-8 text first, or leave it out"
            ) from None
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
