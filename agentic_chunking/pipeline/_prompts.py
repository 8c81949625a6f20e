"""The prompts of the pipeline (extraction, grouping, and the merge of a long document's
grouping windows) and the messages built around them.

The prompt texts live in versioned files, ``prompts/<stage>.v<N>.txt``, inside the package.
Each file starts with a ``# version: <id>`` line; that line is stripped before sending and
its id is exposed in ``PROMPT_VERSIONS``, so a recorded cassette can say which prompt it
answers. Changing a prompt's wording means a new file and a new version id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

_VERSION_PREFIX = "# version:"

# stage -> the prompt file in use for that stage.
_PROMPT_FILES: dict[str, str] = {
    "extraction": "extraction.v2.txt",
    "grouping": "grouping.v2.txt",  # v1 (facts copied verbatim) kept for old cassettes
    "grouping_merge": "grouping-merge.v1.txt",
    "judge": "judge.v3.txt",  # v1 (quoted reasons), v2 (reply objects) kept for old cassettes
}


@dataclass(frozen=True, slots=True)
class Prompt:
    """A system prompt: its ``version`` id and the ``text`` sent (version line stripped)."""

    stage: str
    version: str
    text: str


@cache
def load_prompt(stage: str) -> Prompt:
    """Return the prompt of ``stage`` ("extraction", "grouping" or "grouping_merge").

    Raises ValueError for an unknown stage or a prompt file without its version line.
    """
    try:
        file_name = _PROMPT_FILES[stage]
    except KeyError:
        raise ValueError(
            f"unknown prompt stage {stage!r}; expected one of {sorted(_PROMPT_FILES)}"
        ) from None
    raw = resources.files(__package__).joinpath("prompts", file_name).read_text("utf-8")
    first, _, rest = raw.partition("\n")
    if not first.startswith(_VERSION_PREFIX):
        raise ValueError(
            f"prompt file {file_name} must start with '{_VERSION_PREFIX} <id>', found {first!r}"
        )
    return Prompt(stage=stage, version=first[len(_VERSION_PREFIX) :].strip(), text=rest.strip())


PROMPT_VERSIONS: dict[str, str] = {stage: load_prompt(stage).version for stage in _PROMPT_FILES}
"""Version id of the prompt in use, per stage, e.g. ``{"extraction": "extraction-v2", ...}``."""


def extraction_user_message(batch_text: str) -> str:
    """Return the user message of an extraction call: the batch wrapped in ``<text>`` tags."""
    return f"<text>\n{batch_text}\n</text>"


def grouping_user_message(propositions: Sequence[str]) -> str:
    """Return the user message of the grouping call: the numbered list, 1-based."""
    lines = "\n".join(f"{number}. {text}" for number, text in enumerate(propositions, 1))
    return f"<propositions>\n{lines}\n</propositions>"


def grouping_merge_user_message(categories: Sequence[tuple[str, Sequence[str]]]) -> str:
    """Return the user message of the merge call of a windowed grouping.

    ``categories`` is ``[(label, example propositions), ...]``; each is numbered from 1
    and its examples follow, one per line, indented with ``- ``.
    """
    blocks = []
    for number, (label, examples) in enumerate(categories, 1):
        lines = "".join(f"\n   - {example}" for example in examples)
        blocks.append(f"{number}. {label}{lines}")
    return "<categories>\n" + "\n".join(blocks) + "\n</categories>"


def partition_repair_message(problem: str, *, shape: str) -> str:
    """Return the user turn that asks for a grouping again, naming what broke the partition.

    ``problem`` names the numbers missing, repeated or out of range (see
    ``_partition.NumberedPartition.repair_reason``).
    """
    return (
        f"Your grouping is not a partition: {problem}. Reply again with the whole grouping, "
        f"every number in exactly one group, as only {shape}: no prose before or after, "
        "no Markdown code fences."
    )


def repair_user_message(reason: str, *, shape: str) -> str:
    """Return the user turn that asks the model to resend an unreadable reply.

    ``reason`` is the parser's explanation; ``shape`` names the JSON expected.
    """
    return (
        f"Your reply could not be parsed: {reason}. Reply again with only {shape}, "
        "exactly as the instructions describe: no prose before or after, no Markdown "
        "code fences."
    )


EXTRACTION_SHAPE = "the JSON array of proposition strings"
GROUPING_SHAPE = 'the JSON array of {"category": ..., "fact_ids": [...]} objects'
GROUPING_MERGE_SHAPE = 'the JSON array of {"category": ..., "category_ids": [...]} objects'
