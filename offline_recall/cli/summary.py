"""What `score` prints: the judge profile that decides, the summary per scorer, the items,
and whether a CI gate passes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from ..judging.profile import ProfileOrigin
from ..printable import NAME_SHOWN, printable
from ..runs.results import ItemRecord
from ..runs.spec import RunSpec, ScorerSpec
from ..runs.summary import Summary
from ..scorer.declaration import ScorerDefinition
from ..scorer.registry import scorer_kind
from ..scorer.results import Status
from .progress import CHUNK_CHECKS, rate_text

if TYPE_CHECKING:
    from ..scorer.pipeline import ScorerClass


VETO_WORDS = {
    "contradicted_quantity": "a quantity its chunk contradicts",
    "missing_number": "a number its chunk never states",
}
"""A rule's vetoes in the words of a run's first lines."""


def profile_line(scorer: ScorerSpec) -> str:
    """Which judge profile decides a scorer's verdicts: where it came from, its digest, how
    it did when it was cross-validated, and its card (how often it was right per kind of
    behaviour case) where it has one."""
    profile = scorer.setup.judge_profile
    where = scorer.profile_origin.value
    if scorer.profile_path is not None:
        where += f" ({scorer.profile_path})"
    card = "" if profile.card is None else f"; behaviour cases right: {profile.card.describe()}"
    if scorer.profile_origin is ProfileOrigin.THRESHOLD:
        stated = (
            ""
            if profile.stated_p_yes is None
            else f" (an English claim its chunk states word for word: {profile.stated_p_yes:g} "
            "without asking the model)"
        )
        if profile.vetoes:
            vetoes = " or ".join(VETO_WORDS[veto] for veto in profile.vetoes)
            stated += f" (a claim with {vetoes}: unsupported without asking the model)"
        return (
            f"{scorer.id}: judge profile {where}: P(yes) >= {profile.threshold:g}{stated}, "
            f"not calibrated [{profile.digest}]{card}"
        )
    checked = profile.cross_validated
    numbers = (
        "not cross-validated"
        if checked is None
        else f"cross-validated AUROC {checked.auroc:.3f} (word overlap "
        f"{checked.baseline_auroc:.3f}) over {profile.rows} pairs"
    )
    return f"{scorer.id}: judge profile {where} [{profile.digest}], {numbers}{card}"


def summary_table(
    scorer_id: str, summary: Summary, seconds: float, spec: RunSpec, checks: int | None = None
) -> Table:
    """A scorer's summary; `checks`: the chunk checks the progress counted for it, if any."""
    kind = scorer_kind(scorer_id)
    setup = spec.scorer(scorer_id).setup
    table = Table(
        title=Text(printable(kind.name)),
        caption=_checks(kind, checks),
        caption_justify="left",
        show_header=False,
    )
    table.add_column(style="bold", overflow="fold")
    table.add_column(justify="right", no_wrap=True)  # a fingerprint is read whole, never cut
    counts = summary.by_status
    labels = {
        Status.NO_GROUND_TRUTH: "no ground truth",
        Status.NO_CLAIMS: f"no {kind.unit}",
        Status.NO_CONTEXT: "no context",
    }
    rows = [
        (f"mean {kind.measure}", _mean(summary)),
        ("items", str(summary.items)),
        ("ok", str(counts[Status.OK])),
        *(
            (labels[status], str(counts[status]))
            for status in kind.statuses
            if status is not Status.NO_CLAIMS or counts[status]  # only when some, as in the report
        ),
        ("failed", str(summary.failed)),
        (f"{kind.unit} {kind.positive}", f"{summary.positive} / {summary.judged}"),
        ("time", f"{seconds:.1f} s"),
        ("model", spec.model_fingerprint if kind.asks_model() else "none: a rule, asking none"),
        ("prompt version", setup.prompt_version),
    ]
    missing = summary.by_status[Status.NO_GROUND_TRUTH]
    if missing and summary.mean_with_ground_truth is not None:
        rows.insert(
            1,
            (
                f"mean {kind.measure}, items with ground truth",
                f"{summary.mean_with_ground_truth:.4f}",
            ),
        )
    if not kind.asks_model():  # a rule gives no verdicts to count
        rows = [(name, value) for name, value in rows if name != f"{kind.unit} {kind.positive}"]
    for name, value in rows:
        table.add_row(name, value)
    return table


def scoring_line(scoring: tuple[int, float] | None, seconds: float) -> str | None:
    """The rows this run scored, the seconds they took and their rate, beside the command's
    time (which holds the model's load), so that the rate reads against the time it was
    measured over: `scored 16 rows in 0.4 s (42.0 rows/s); 7.0 s in all, with the model's
    load`. None when this run scored no row."""
    rate = None if scoring is None else rate_text(*scoring)
    if scoring is None or rate is None:
        return None
    rows, took = scoring
    return (
        f"scored {rows} row{'' if rows == 1 else 's'} in {took:.1f} s ({rate}); "
        f"{seconds:.1f} s in all, with the model's load"
    )


def _checks(kind: ScorerClass, checks: int | None) -> str | None:
    """How the progress's chunk checks (`checks` of them) make the summary's claims, for a
    scorer that judges claims against the context (said once, where both have been shown);
    None for another. Where the progress counted none (a run on Ray, a resumed run with no
    row left), how a claim is decided alone."""
    if not (kind.separate_judge and kind.asks_model()):
        return None
    unit = kind.unit.removesuffix("s")
    decided = f"a {unit} is {kind.positive} when one chunk supports it"
    if not checks:
        return decided
    return (
        f"{decided}; the progress counted {checks} {CHUNK_CHECKS} (each {unit} against one chunk)"
    )


def _mean(summary: Summary) -> str:
    return "n/a (no item scored)" if summary.mean is None else f"{summary.mean:.4f}"


def missing_truth_line(scorer_id: str, summary: Summary) -> str | None:
    """What the mean is over when items had no ground truth (they score 0, as in the
    reference, which RAGAS users may not expect); None when every item had one."""
    missing = summary.by_status[Status.NO_GROUND_TRUTH]
    if not missing or summary.mean is None:
        return None
    measure = scorer_kind(scorer_id).measure
    with_truth = summary.scored - missing
    line = (
        f"mean {measure} over {summary.scored} items, {missing} without ground truth scored 0: "
        f"{summary.mean:.4f}"
    )
    if summary.mean_with_ground_truth is not None:
        line += f"; mean over the {with_truth} with one: {summary.mean_with_ground_truth:.4f}"
    return line


def items_table(records: Sequence[ItemRecord]) -> Table:
    table = Table(title="Items")
    table.add_column("line", justify="right")
    table.add_column("id")
    table.add_column("scorer")
    table.add_column("status")
    table.add_column("score", justify="right")
    table.add_column("positive", justify="right")
    table.add_column("negative verdicts or error", overflow="fold")
    for r in records:
        for sid, result in r.results.items():
            kind = scorer_kind(sid)
            judgments = result.judgments()
            negative = "; ".join(j.text for j in judgments if not j.positive)
            verdicts = kind.asks_model() or judgments  # a rule gives no verdicts to count
            table.add_row(
                str(r.line),
                Text("" if r.id is None else printable(str(r.id), NAME_SHOWN)),
                Text(printable(_scorer_word(kind))),
                result.status.value,
                "n/a" if result.score is None else f"{result.score:.2f}",
                f"{sum(j.positive for j in judgments)}/{len(judgments)}" if verdicts else "",
                Text(printable(result.error or negative)),  # Text: never read as markup
            )
    return table


def _scorer_word(kind: ScorerClass) -> str:
    """A scorer as the items table names it: what it measures ("recall"), or its name where it
    does not say (a plugin's measure left as "score")."""
    return kind.name if kind.measure == ScorerDefinition.measure else kind.measure


def every_row_failed(summaries: Mapping[str, Summary]) -> str | None:
    """Why a run failed although it ran: a scorer whose every row failed (status error), so
    that it scored nothing; None when each scorer scored some row."""
    for sid, summary in summaries.items():
        if summary.items and summary.failed == summary.items:
            return (
                f"every row failed for {sid} ({summary.failed} of {summary.items}, status "
                "error): nothing was scored; the first reasons are above"
            )
    return None


def gate_failure(
    summaries: Mapping[str, Summary], gates: Mapping[str, float], max_failed: int | None
) -> str | None:
    """Why a CI gate fails: a mean under its --fail-under, or more failed rows than allowed;
    None when it passes."""
    for sid, gate in gates.items():
        summary = summaries.get(sid)
        mean = None if summary is None else summary.mean
        if mean is None or mean < gate:
            shown = "none: no item scored" if mean is None else f"{mean:.4f}"
            return f"mean {scorer_kind(sid).measure} {shown} is under --fail-under {gate} ({sid})"
    if max_failed is not None:
        failed = max((s.failed for s in summaries.values()), default=0)
        if failed > max_failed:
            return (
                f"{failed} row{'' if failed == 1 else 's'} failed, more than --max-failed "
                f"{max_failed}; their errors are in "
                "the results (status error)"
            )
    return None


REASON_SHOWN = 1000
"""Characters of a failed row's reason shown under the summary; its record keeps it whole."""


def failed_lines(
    failed: Sequence[ItemRecord], failed_most: int, where: str, position: str = "line"
) -> list[str]:
    """The failed rows shown under the summary: each one's `position` ("line 3", "row 3"), id
    and reason, and `where` the others are (`failed_most`: the most rows a scorer failed)."""
    lines = []
    for record in failed:
        errors = {
            sid: r.error or "failed"
            for sid, r in record.results.items()
            if r.status is Status.ERROR
        }
        reasons = set(errors.values())
        reason = (
            reasons.pop()
            if len(reasons) == 1
            else "; ".join(f"{scorer_kind(sid).measure}: {e}" for sid, e in errors.items())
        )
        named = "" if record.id is None else f" (id {printable(str(record.id), NAME_SHOWN)})"
        lines.append(f"failed: {position} {record.line}{named}: {printable(reason, REASON_SHOWN)}")
    if failed_most > len(failed):
        lines.append(f"the other failed rows are in {where} (status error)")
    elif failed:
        lines.append(f"their records are in {where} (status error)")
    return lines
