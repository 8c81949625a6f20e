"""write_text_atomic: the whole text or the old file, never half of one."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentic_chunking._files import remove_stale_temps, temp_path, write_text_atomic


def test_writes_the_text_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    assert write_text_atomic(target, "new ✓\n") == target
    assert target.read_text(encoding="utf-8") == "new ✓\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_failure_midway_keeps_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")

    class Full(OSError):
        pass

    def fail_replace(*_: object) -> None:
        raise Full(28, "No space left on device")

    monkeypatch.setattr("os.replace", fail_replace)
    with pytest.raises(OSError, match="No space left"):
        write_text_atomic(target, "x" * 100_000)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_missing_directory_is_an_oserror_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "absent" / "out.json", "x")
    assert not (tmp_path / "absent").exists()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        write_text_atomic(tmp_path / "new.json", "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o666 & ~umask


def test_a_replaced_file_keeps_its_own_mode(tmp_path: Path) -> None:
    target = tmp_path / "old.json"
    target.write_text("old")
    target.chmod(0o640)
    write_text_atomic(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "new"


def test_a_temporary_file_is_named_as_one_and_only_a_dead_writers_are_removed(
    tmp_path: Path,
) -> None:
    target = tmp_path / "out[1].jsonl"  # glob characters in the name are taken as they are
    mine = temp_path(target)
    assert mine.parent == tmp_path and mine.name.startswith(f".out[1].jsonl.tmp-{os.getpid()}-")
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    stale = tmp_path / f".out[1].jsonl.tmp-{int(dead.stdout)}-abcd1234"
    others = [tmp_path / ".out1.jsonl.tmp-1-x", tmp_path / "out[1].jsonl", tmp_path / ".outX"]
    for path in (mine, stale, *others):
        path.write_text("half", encoding="utf-8")
    assert remove_stale_temps(target) == [stale]
    assert sorted(tmp_path.iterdir()) == sorted([mine, *others])  # a live writer's is kept
