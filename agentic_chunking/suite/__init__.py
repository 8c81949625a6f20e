"""The 32-case evaluation suite: case files, cassettes, the runner, and the pytest plugin.

``pytest`` (with this package's plugin, loaded by the repository's conftest.py) replays
each case from its cassette and asserts the substance rules; ``pytest --record`` records
again against a live model; ``python -m agentic_chunking.suite rebuild-reference``
rebuilds the hand-written ``reference`` cassettes.
"""

from ._cases import CASE_COUNT as CASE_COUNT
from ._cases import Case, load_case, load_cases
from ._cases import case_files as case_files
from ._cassette_check import check_cassette as check_cassette
from ._cassettes import StagedPersister as StagedPersister
from ._cassettes import cassette_error as cassette_error
from ._cassettes import cassette_path as cassette_path
from ._cassettes import find_secrets as find_secrets
from ._cassettes import vcr_config as vcr_config
from ._reference import rebuild_reference_cassettes as rebuild_reference_cassettes
from ._replies import REFERENCE_MODEL as REFERENCE_MODEL
from ._replies import ReferenceServer as ReferenceServer
from ._replies import load_replies as load_replies
from ._runner import judge as judge
from ._runner import run_case

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "Case",
    "load_case",
    "load_cases",
    "run_case",
]
