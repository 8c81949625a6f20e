"""A sweep's recommendation: the chosen setting with its interval, and those tied with it."""

from __future__ import annotations

from agentic_chunking.evaluate._output import format_table, recommendation
from agentic_chunking.evaluate._records import ChunkerResult, Scores
from agentic_chunking.evaluate._run import Evaluation


def result(name: str, recalls: list[float], tokens: float) -> ChunkerResult:
    mean = sum(recalls) / len(recalls)
    spread = (sum((r - mean) ** 2 for r in recalls) / (len(recalls) - 1)) ** 0.5
    scores = Scores(mean, 0.5, 0.4, 3.0, 900.0, spread / len(recalls) ** 0.5)
    return ChunkerResult(
        name, "baseline", {}, "none", 10, tokens, tokens, 0, 0, 0, 0, 0.0, 0.0,
        scores, scores, budget_recalls=tuple(recalls),
    )  # fmt: skip


def evaluation(*results: ChunkerResult) -> Evaluation:
    ordered = sorted(results, key=lambda r: -r.at_budget.recall)
    return Evaluation("c", 1, 100, 8, "e", 5, 1000, tuple(ordered), chosen=ordered[0].name)


BEST = [0.9, 0.8, 1.0, 0.7, 0.9, 0.8, 1.0, 0.9]


def test_the_recommendation_gives_the_interval_and_the_settings_tied_with_it() -> None:
    near = [r - 0.01 if i % 2 else r + 0.005 for i, r in enumerate(BEST)]  # a hair below
    far = [r - 0.5 for r in BEST]  # clearly below
    shown = evaluation(result("size=64", near, 64), result("size=256", BEST, 256),
                       result("size=8", far, 8))  # fmt: skip
    lines = recommendation(shown)
    assert lines[0].startswith("recommended: size=256 (R@budget 87.5%, 95% interval ")
    assert "mean chunk 256 tokens" in lines[0]
    assert "size=64 (-0.3 ±" in lines[1] and "size=8" not in lines[1]
    assert "recommended: size=256" in format_table(shown)


def test_a_clear_winner_is_said_to_be_one_and_no_sweep_recommends_nothing() -> None:
    shown = evaluation(result("a", BEST, 100), result("b", [r - 0.5 for r in BEST], 50))
    assert recommendation(shown)[1] == (
        "every other setting is below it (paired difference, 95% interval)"
    )
    unchosen = Evaluation("c", 1, 100, 8, "e", 5, 1000, shown.results)
    assert recommendation(unchosen) == []
