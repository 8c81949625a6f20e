"""The 32-case evaluation suite: case files, cassettes, the runner, and the pytest plugin.

``pytest`` (with this package's plugin, loaded by the repository's conftest.py) replays
each case from its cassette and asserts the substance rules; ``pytest --record`` records
again against a live model; ``python -m agentic_chunking.suite rebuild-reference``
rebuilds the hand-written ``reference`` cassettes.
"""

from ._cases import CASE_COUNT, Case, CaseInput, Expectations, case_files, load_case, load_cases
from ._cassettes import (
    cassette_error,
    cassette_path,
    find_secrets,
    rerecord_command,
    vcr_config,
)
from ._reference import rebuild_reference_cassettes
from ._replies import REFERENCE_MODEL, ReferenceReplies, ReferenceServer, load_replies
from ._runner import failure_message, judge, run_case

__all__ = [
    "CASE_COUNT",
    "REFERENCE_MODEL",
    "Case",
    "CaseInput",
    "Expectations",
    "ReferenceReplies",
    "ReferenceServer",
    "case_files",
    "cassette_error",
    "cassette_path",
    "failure_message",
    "find_secrets",
    "judge",
    "load_case",
    "load_cases",
    "load_replies",
    "rebuild_reference_cassettes",
    "rerecord_command",
    "run_case",
    "vcr_config",
]
