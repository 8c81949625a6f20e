"""What every command of the command line reads, writes and parses the same way."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._errors import InputError
from ._files import write_text_atomic


def read_text_file(path: Path) -> str:
    """Return the text of ``path`` (UTF-8, a BOM removed, line endings kept).

    Raises InputError, naming the file and the way out, when it is missing, a directory,
    unreadable, not UTF-8, or empty.
    """
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; give a text file") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason}); save it as UTF-8") from None
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    if not text.strip():
        raise InputError(f"{path}: the file is empty; give a document with some text")
    return text


def write_json(data: Any, output: Path | None) -> None:
    """Write ``data`` as indented UTF-8 JSON to ``output``, or to stdout when it is None."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        write_text_atomic(output, text)
    except OSError as error:
        raise InputError(
            f"cannot write the output to {output}: {error.strerror}; choose a writable path with -o"
        ) from error


def int_at_least(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if number < least:
            raise argparse.ArgumentTypeError(f"{value!r} must be {least} or more")
        return number

    return parse
