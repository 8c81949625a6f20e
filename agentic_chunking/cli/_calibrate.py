"""``agentic-chunking calibrate-judge``: measure the judge on labelled items, recorded.

Each item of the fixed sample (``benchmarks/data/judge_calibration.jsonl``) is sent to the
judge model as a one-chunk case, through vcrpy with the suite's cassette options, into
``<cassette-root>/<judge-model>/judge-calibration.yaml`` (``openai:M`` in ``openai--M/``).
Replay (the default) needs no key and no network; ``--record`` calls the live model
(``ANTHROPIC_API_KEY``, or ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` for ``openai:M``).
The figures per rule go to ``<calibration-dir>/judge-<model>.json``, which the suite's report shows.

Guarantees: a recording is held in memory by the suite's ``StagedPersister`` and replaces
the cassette (atomically, through ``write_text_atomic``) only when every item was judged;
the calibration file is written after it, the same way. A failed or interrupted run (a
server fault, a rejected key, a timeout, SIGINT, SIGTERM, a kill) leaves both files byte
for byte. ``--per-class`` below 1 is refused before any call, and a damaged cassette on
replay (``--record`` replaces it).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._errors import ConfigurationError, InputError, ModelCallError
from ..client import (
    API_KEY_ENV_VAR,
    OPENAI_API_KEY_ENV_VAR,
    OPENAI_BASE_URL_ENV_VAR,
    ModelClient,
    missing_credentials,
    model_folder,
)
from ..pipeline import PROMPT_VERSIONS
from ._io import cannot_write_in, int_at_least, model_id

DEFAULT_ITEMS = Path("benchmarks/data/judge_calibration.jsonl")
DEFAULT_CALIBRATION_DIR = Path("calibration")
CASSETTE_NAME = "judge-calibration.yaml"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``calibrate-judge`` subcommand."""
    parser = subparsers.add_parser(
        "calibrate-judge",
        help="measure the judge's recall and specificity per rule on labelled items",
        description=(
            "Send a fixed, seeded sample of labelled items to the judge model (recorded as a "
            "cassette; replay needs no key) and write its recall, specificity and balanced "
            "accuracy per rule to a calibration file."
        ),
    )
    parser.add_argument(
        "--judge-model", required=True, type=model_id, help="the judge model to calibrate"
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help=f"call the live model (needs {API_KEY_ENV_VAR}, or {OPENAI_API_KEY_ENV_VAR} or "
        f"{OPENAI_BASE_URL_ENV_VAR} for an openai: model)",
    )
    parser.add_argument("--items", type=Path, default=DEFAULT_ITEMS, help="labelled items")
    parser.add_argument(
        "--per-class",
        type=int_at_least(1),
        default=10,
        help="items per check and label (1 or more)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample")
    parser.add_argument("--cassette-root", type=Path, default=Path("cassettes"))
    parser.add_argument(
        "--calibration-dir",
        type=Path,
        default=DEFAULT_CALIBRATION_DIR,
        help="where judge-<model>.json goes (default: calibration)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Calibrate, write the file, print the figures; 0 on success (errors raise)."""
    from ..judge import (
        Calibration,
        calibrate,
        calibration_path,
        load_items,
        run_judge,
        sample_items,
        write_calibration,
    )
    from ..suite import StagedPersister

    if not args.items.is_file():
        raise InputError(
            f"no calibration items at {args.items}; run from the repository root or pass "
            "--items benchmarks/data/judge_calibration.jsonl"
        )
    items = sample_items(load_items(args.items), per_class=args.per_class, seed=args.seed)
    if not items:
        raise InputError(f"{args.items} holds no calibration item; nothing was called or written")
    model = args.judge_model
    cassette = Path(args.cassette_root) / model_folder(model) / CASSETTE_NAME
    calibration_file = calibration_path(args.calibration_dir, model)
    recorder = _recorder(args.record, cassette, model)
    if args.record:  # both files are written after the paid calls: check the folders first
        _check_writable(cassette.parent, "--cassette-root")
        _check_writable(calibration_file.parent, "--calibration-dir")
    persister = StagedPersister(recording=args.record)
    recorder.register_persister(persister)
    client = ModelClient() if args.record else ModelClient.for_replay()
    with client, recorder.use_cassette(str(cassette)):
        try:
            figures = calibrate(
                items,
                lambda inputs, response, pairs: run_judge(
                    inputs, response, client=client, model=model, pairs=pairs
                ),
            )
        except ModelCallError as error:
            raise _explained(error, cassette, model) from None
        persister.approve(cassette)  # every item judged: the recording may replace the cassette
    calibration = Calibration(model, PROMPT_VERSIONS["judge"], args.seed, figures)
    path = write_calibration(calibration, calibration_file)
    for rule, values in figures.items():
        shown = ", ".join(f"{k} {v:g}" for k, v in values.items())
        print(f"{rule}: {shown}")
    print(f"calibration of {model!r} written to {path}")
    return 0


def _check_writable(directory: Path, option: str) -> None:
    """InputError naming ``option`` unless a file can be written in ``directory`` (made)."""
    reason = cannot_write_in(directory, make=True)
    if reason is not None:
        raise InputError(
            f"cannot write in {directory} ({reason}); choose a writable folder with {option}. "
            "Nothing was called"
        )


def _recorder(record: bool, cassette: Path, model: str) -> Any:
    try:
        import vcr
    except ImportError:  # pragma: no cover - the suite extra is missing
        raise ConfigurationError(
            "calibrate-judge records and replays with vcrpy: pip install 'agentic-chunking[suite]'"
        ) from None
    from ..suite import check_cassette, vcr_config

    if record:
        missing = missing_credentials(model)
        if missing is not None:
            raise ConfigurationError(
                f"--record calls the live judge model and needs an API key: {missing}. "
                "Without --record the recorded cassette is replayed."
            )
        return vcr.VCR(record_mode="all", **vcr_config())
    command = f"agentic-chunking calibrate-judge --judge-model {model} --record"
    if not cassette.is_file():
        raise InputError(
            f"no calibration cassette at {cassette} for judge model {model!r}. Record it "
            f"with: {command}"
        )
    problem = check_cassette(cassette, case_id="calibrate-judge", model=model, rerecord=command)
    if problem is not None:
        raise problem
    return vcr.VCR(record_mode="none", **vcr_config())


def _explained(error: ModelCallError, cassette: Path, model: str) -> Exception:
    from ..suite import cassette_error

    explained = cassette_error(error, path=cassette, case_id="calibrate-judge", model=model)
    if explained is None:
        return error
    return InputError(
        f"{explained}. For the calibration, re-record with: agentic-chunking calibrate-judge "
        f"--judge-model {model} --record"
    )
