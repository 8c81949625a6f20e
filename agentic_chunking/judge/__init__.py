"""The recorded judge: model-graded verification of what deterministic rules cannot decide.

After a case's pipeline run, the judge model (prompt ``judge-v3``) gets the case's input
chunks as numbered sentences, its numbered propositions and the pairs that may state one
fact, and answers per proposition (supported, citing the source sentence by number; or
not supported / needs context / not atomic, with a short reason) and per pair (same fact
or not, with a short reason): one call per case, two or three for a
large one. The pairs are lexical (``candidate_pairs``) and, with the ``semantic``
extra, close in meaning (``_similar``: each also a ``similar_meaning`` warning of
``assess``). ``combine`` merges its verdicts with the deterministic findings (deterministic
errors first); ``assess`` runs every check on one output and takes the judgement in (the
suite's verdict on a case, and ``agentic-chunking check``'s on any output). The suite
sends these calls through the case's cassette, so the judge's verdicts replay offline
like every other model call.

Layering: suite, cli -> judge -> (report's records, pipeline's call loop, parse, prompts,
checks, semantic's finder of pairs close in meaning); nothing below imports this package.
"""

from ._assess import (
    CHECK_NOT_RUN,
    JUDGE_CHECK,
    JUDGE_FAILED,
    NEEDS_SOURCE,
    SOURCE_JOINER,
    Assessment,
    assess,
    judge_check,
    judge_usage,
    not_run,
    source_text,
)
from ._calibration import (
    CALIBRATION_SCHEMA,
    Calibration,
    CalibrationItem,
    calibrate,
    calibration_figures,
    calibration_path,
    load_calibration,
    load_items,
    sample_items,
    write_calibration,
)
from ._call import (
    DEFAULT_JUDGE_MAX_TOKENS,
    JUDGE_MODEL_ENV_VAR,
    JUDGE_STAGE,
    resolve_judge_model,
    run_judge,
)
from ._combine import JUDGE_STATUSES, JudgedFinding, JudgeStatus, combine
from ._request import (
    MAX_CALLS,
    MAX_PROPOSITIONS_PER_CALL,
    POSSIBLE_DUPLICATE_OVERLAP,
    JudgeRequest,
    Numbered,
    ReadRequest,
    SourceSentence,
    candidate_pairs,
    judge_user_message,
    number_propositions,
    number_sentences,
    plan_judge_requests,
    read_judge_request,
)
from ._simulated import SIMULATED_JUDGE_MODEL, simulated_careful_judge
from ._verdicts import (
    NEEDS_CONTEXT,
    NOT_ATOMIC,
    NOT_SUPPORTED,
    SUPPORTED,
    VERDICTS,
    Judgement,
    PairVerdict,
    PropositionVerdict,
    Verdict,
    cited_reason,
    read_judge_reply,
)

__all__ = [
    "CALIBRATION_SCHEMA",
    "CHECK_NOT_RUN",
    "DEFAULT_JUDGE_MAX_TOKENS",
    "JUDGE_CHECK",
    "JUDGE_FAILED",
    "JUDGE_MODEL_ENV_VAR",
    "JUDGE_STAGE",
    "JUDGE_STATUSES",
    "MAX_CALLS",
    "MAX_PROPOSITIONS_PER_CALL",
    "NEEDS_CONTEXT",
    "NEEDS_SOURCE",
    "NOT_ATOMIC",
    "NOT_SUPPORTED",
    "POSSIBLE_DUPLICATE_OVERLAP",
    "SIMULATED_JUDGE_MODEL",
    "SOURCE_JOINER",
    "SUPPORTED",
    "VERDICTS",
    "Assessment",
    "Calibration",
    "CalibrationItem",
    "JudgeRequest",
    "JudgeStatus",
    "JudgedFinding",
    "Judgement",
    "Numbered",
    "PairVerdict",
    "PropositionVerdict",
    "ReadRequest",
    "SourceSentence",
    "Verdict",
    "assess",
    "calibrate",
    "calibration_figures",
    "calibration_path",
    "candidate_pairs",
    "cited_reason",
    "combine",
    "judge_check",
    "judge_usage",
    "judge_user_message",
    "load_calibration",
    "load_items",
    "not_run",
    "number_propositions",
    "number_sentences",
    "plan_judge_requests",
    "read_judge_reply",
    "read_judge_request",
    "resolve_judge_model",
    "run_judge",
    "sample_items",
    "simulated_careful_judge",
    "source_text",
    "write_calibration",
]
