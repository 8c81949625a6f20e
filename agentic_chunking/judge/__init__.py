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

from ._assess import CHECK_NOT_RUN as CHECK_NOT_RUN
from ._assess import JUDGE_CHECK as JUDGE_CHECK
from ._assess import NEEDS_SOURCE as NEEDS_SOURCE
from ._assess import SOURCE_JOINER as SOURCE_JOINER
from ._assess import Assessment, assess
from ._assess import judge_usage as judge_usage
from ._assess import source_text as source_text
from ._calibration import Calibration, calibrate
from ._calibration import CalibrationItem as CalibrationItem
from ._calibration import calibration_figures as calibration_figures
from ._calibration import calibration_path as calibration_path
from ._calibration import load_calibration as load_calibration
from ._calibration import load_items as load_items
from ._calibration import sample_items as sample_items
from ._calibration import set_name as set_name
from ._calibration import write_calibration as write_calibration
from ._call import JUDGE_MODEL_ENV_VAR as JUDGE_MODEL_ENV_VAR
from ._call import resolve_judge_model as resolve_judge_model
from ._call import run_judge
from ._combine import JUDGE_STATUSES as JUDGE_STATUSES
from ._combine import combine as combine
from ._request import MAX_CALLS as MAX_CALLS
from ._request import SourceSentence as SourceSentence
from ._request import candidate_pairs as candidate_pairs
from ._request import number_propositions as number_propositions
from ._request import number_sentences as number_sentences
from ._request import plan_judge_requests as plan_judge_requests
from ._request import read_judge_request as read_judge_request
from ._simulated import SIMULATED_JUDGE_MODEL as SIMULATED_JUDGE_MODEL
from ._simulated import simulated_careful_judge as simulated_careful_judge
from ._verdicts import VERDICTS as VERDICTS
from ._verdicts import Judgement
from ._verdicts import PairVerdict as PairVerdict
from ._verdicts import PropositionVerdict as PropositionVerdict
from ._verdicts import cited_reason as cited_reason
from ._verdicts import read_judge_reply as read_judge_reply

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "Assessment",
    "Calibration",
    "Judgement",
    "assess",
    "calibrate",
    "run_judge",
]
