"""Room on disk, checked before the first paid call: ``chunk`` refuses to start when the
filesystem of ``-o`` or of the reply cache cannot hold what the plan says the run writes.

The sizes are estimates from the run's plan (``RunPlan``): the output holds every
proposition (the plan's output tokens, about 4 bytes each, written twice: in its chunk and
in the grouping's record) and a usage record per call; the reply cache one JSON entry per
call (the reply and its usage). Both are over-estimates by design: a run refused with room
to spare costs a rerun elsewhere, a run started without room costs the replies.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from ..pipeline import RunPlan

BYTES_PER_TOKEN = 4
ENTRY_OVERHEAD = 2048
"""Bytes of one cache entry besides its reply text (the usage record, hashes, layout)."""
OUTPUT_OVERHEAD = 16 * 1024
"""Bytes of an output besides its propositions (summary fields, the usage of each call)."""


@dataclass(frozen=True, slots=True)
class Need:
    """``size`` bytes to be written in ``directory`` for ``what``, given by ``option``."""

    what: str
    directory: Path
    size: int
    option: str


def output_bytes(plan: RunPlan) -> int:
    """The estimated size of the run's output (see the module)."""
    calls = plan.batches + plan.grouping_windows
    return 2 * BYTES_PER_TOKEN * plan.estimated_output_tokens + 512 * calls + OUTPUT_OVERHEAD


def cache_bytes(plan: RunPlan) -> int:
    """The estimated size of the run's reply-cache entries (see the module)."""
    calls = plan.batches + plan.grouping_windows + 1
    return 2 * BYTES_PER_TOKEN * plan.estimated_output_tokens + ENTRY_OVERHEAD * calls


def free_bytes(directory: Path) -> int:
    """The bytes an unprivileged writer may still use on ``directory``'s filesystem (its
    nearest existing ancestor's), by ``statvfs``."""
    probe = directory
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    stats = os.statvfs(probe)
    return stats.f_bavail * stats.f_frsize


def check_room(needs: list[Need]) -> None:
    """Raise InputError, before any call, when a filesystem has less room than the needs
    that fall on it together; the message gives both sizes and the option to change."""
    by_device: dict[int, list[Need]] = {}
    for need in needs:
        probe = need.directory
        while not probe.exists() and probe.parent != probe:
            probe = probe.parent
        by_device.setdefault(os.stat(probe).st_dev, []).append(need)
    for group in by_device.values():
        wanted = sum(need.size for need in group)
        free = free_bytes(group[0].directory)
        if free < wanted:
            what = " and ".join(f"{n.what} ({_size(n.size)})" for n in group)
            options = " or ".join(dict.fromkeys(n.option for n in group))
            raise InputError(
                f"not enough room in {group[0].directory}: {_size(free)} free, but {what} "
                f"need about {_size(wanted)}; nothing was sent. Free some space, or choose "
                f"another place with {options}"
            )


def _size(count: int) -> str:
    """``count`` bytes as a person reads them (``812 bytes``, ``40.0 KB``, ``1.2 MB``)."""
    if count < 1024:
        return f"{count:,} bytes"
    size = float(count)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            break
    return f"{size:,.1f} {unit}"
