"""The shipped reference cassettes are exactly what rebuild-reference makes of the replies."""

from __future__ import annotations

from pathlib import Path

from agentic_chunking.suite import REFERENCE_MODEL, rebuild_reference_cassettes

REPO = Path(__file__).resolve().parent.parent


def test_reference_cassettes_are_up_to_date_with_the_reply_files(tmp_path: Path) -> None:
    written = rebuild_reference_cassettes(
        cases_dir=REPO / "cases",
        replies_dir=REPO / "cases" / "reference_replies",
        cassette_root=tmp_path,
    )
    assert len(written) == 32
    stale = [
        path.name
        for path in written
        if path.read_text() != (REPO / "cassettes" / REFERENCE_MODEL / path.name).read_text()
    ]
    assert stale == [], (
        f"{stale} differ from a fresh rebuild: run `python -m agentic_chunking.suite "
        "rebuild-reference` and commit cassettes/reference/"
    )
