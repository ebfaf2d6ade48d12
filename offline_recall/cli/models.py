"""`offline-recall models`: pinned manifests and their weights."""

from __future__ import annotations

from pathlib import Path

import click
import tomli_w
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ..data.destinations import check_destinations, folder_files, written_whole
from ..engines.manifests import DEFAULT_MODEL, ModelManifest, bundled_manifests, load_manifest
from ..engines.pinning import PairOrder, pin_folder
from ..engines.weights import WeightsState, cached_dir, install_weights, model_dir, weights_state
from ..errors import OfflineRecallError
from ..printable import printable
from . import COMMANDS
from .engine_log import engine_log_path, engine_messages, verbose_option
from .options import file_option, number_option


@click.group(short_help=COMMANDS["models"].help)
def models() -> None:
    """Pinned models: manifests and their weights."""


@models.command("list")
@click.argument("manifests", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def list_models(manifests: tuple[Path, ...]) -> None:
    """Each bundled manifest (and each MANIFESTS file given), whether its weights are present
    and verified, and what its family needs: answer tokens, context length, system turn."""
    console = Console(soft_wrap=False)
    table = Table(title="Models")
    for column in ("model@fingerprint", "family", "context", "weights"):
        table.add_column(column, overflow="fold")
    notes: list[tuple[str, list[str]]] = []
    for path in [*bundled_manifests(), *manifests]:
        try:
            manifest = load_manifest(path)
        except OfflineRecallError as e:
            table.add_row(*_cells(path.stem, "?", "", "invalid"))
            notes.append((path.stem, [f"invalid manifest: {e}"]))
            continue
        state = weights_state(manifest)
        table.add_row(
            *_cells(
                manifest.fingerprint,
                manifest.family or "unknown",
                str(manifest.context_window),
                state.value,
            )
        )
        notes.append((manifest.name, model_notes(manifest, state)))
    console.print(table)
    for name, lines in notes:  # a manifest's text is shown escaped, never read as markup
        console.print(Text(printable(name), style="bold"))
        for line in lines:
            console.print(Padding(Text(printable(line)), (0, 0, 0, 2), expand=False))


def _cells(*texts: str) -> list[Text]:
    """A table row's cells: a manifest's text escaped, and never read as markup."""
    return [Text(printable(text)) for text in texts]


def model_notes(manifest: ModelManifest, state: WeightsState) -> list[str]:
    """What the table has no room for: how prompts are rendered, how yes and no are read,
    each scorer's defaults, and where the weights are or how to install them."""
    lines = []
    rendering = family_text(manifest).split("; ")[1:]
    if rendering:
        lines.append(f"rendering: {'; '.join(rendering)}")
    for scorer, defaults in manifest.scorers.items():
        said = [f"prompts {defaults.prompt_version}"] if defaults.prompt_version else []
        said += [f"at most {defaults.max_items} per list"] if defaults.max_items else []
        lines.append(f"{scorer}: {', '.join(said) or 'its own defaults'}")
    if manifest.answers is not None and manifest.classifier is None:
        lines += [f"tokens summed for {part}" for part in answers_text(manifest).split("; ")]
    else:
        lines.append(f"yes/no: {answers_text(manifest)}")
    if state != WeightsState.VERIFIED:
        lines.append(f"weights {state.value}: install with {manifest.source.install}")
    elif manifest.format == "gguf":
        cache = cached_dir(manifest)
        if cache.is_dir():
            lines += ["weights: GGUF, converted once into", f"  {cache}"]
        else:
            lines.append("weights: GGUF, converted on first use")
    return lines


def family_text(manifest: ModelManifest) -> str:
    """The family, and what renders its prompts differently: a folded system turn, template
    options (thinking off), an answer prefix; a classifier's label and pair order."""
    parts = [manifest.family or f"unknown family ({manifest.format})"]
    if manifest.classifier is not None:
        c = manifest.classifier
        parts.append(f"classifier ({c.supported_label}, {c.pair_order}, {c.max_length} tokens)")
    if manifest.system_turn == "fold":
        parts.append("system folded into user")
    parts += [f"{k}={v}" for k, v in manifest.template_options.items()]
    if manifest.answer_prefix:
        parts.append(f"answer prefix {manifest.answer_prefix!r}")
    if manifest.judge_prompt is not None:
        parts.append(f"judge prompt {Path(manifest.judge_prompt).name}")
    return "; ".join(parts)


def answers_text(manifest: ModelManifest) -> str:
    """The tokens read as yes and no (`"yes"=9891`), or how they are read without a pin."""
    if manifest.classifier is not None:
        label = manifest.classifier.supported_label
        return f"P(yes) is the probability of the classifier's label {label!r}"
    if manifest.answers is None:
        return (
            'P(yes) from the tokens of "yes" and "no" (the prompt\'s words; spellings not pinned)'
        )
    return "; ".join(
        f"{word}: " + ", ".join(f"{t.text!r}={t.id}" for t in tokens)
        for word, tokens in (("yes", manifest.answers.yes), ("no", manifest.answers.no))
    )


@models.command("install")
@click.argument("model", default=DEFAULT_MODEL)
@verbose_option
def install_model(model: str, verbose: bool) -> None:
    """Install MODEL's weights (a bundled model's name or a manifest path), verify them
    against their pinned sha256, and prepare the folder the engines load. Weights in parts
    say one line a part as each is verified."""
    manifest = load_manifest(model)
    if weights_state(manifest) != WeightsState.VERIFIED:
        done = install_weights(manifest, say=lambda line: click.echo(f"  {line}", err=True))
        click.echo(f"installed: {done}")
    state = weights_state(manifest)
    if state != WeightsState.VERIFIED:
        raise OfflineRecallError(
            f"the weights of {manifest.name} are {state.value} after installing"
        )
    if manifest.format == "gguf":
        click.echo(
            f"  preparing the folder the engines load: the GGUF converted once to "
            f"{manifest.convert_dtype} safetensors in the cache, its files checked by sha256",
            err=True,
        )
    # The conversion's own output (a progress bar redrawn in place) goes to the log.
    log = None if verbose else engine_log_path("models-install")
    with engine_messages(Console(stderr=True), log):
        folder = model_dir(manifest)  # converts GGUF weights once, then checks the copy's hashes
    click.echo(f"{manifest.name}: weights verified ({manifest.fingerprint}); ready in {folder}")


@models.command("pin")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--name", required=True, help="The model's name in results and manifests.")
@file_option(
    "--out",
    help="Manifest file to write (default: NAME.toml).",
)
@number_option(
    "--max-context",
    at_least=64,
    default=None,
    show_default=False,
    help="Cap the context window (default: the model's own, from config.json).",
)
@click.option(
    "--supported-label",
    default=None,
    help="A classifier's label meaning supported (default: entailment, supported, ...).",
)
@click.option(
    "--pair-order",
    type=click.Choice(["evidence-first", "statement-first"]),
    default="evidence-first",
    show_default=True,
    help="A classifier's input order: (context, claim) or (claim, context).",
)
@click.option(
    "--judge-prompt",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A TOML file with the model's own yes/no question ([judge]: system, user, yes, no).",
)
def pin_model(
    folder: Path,
    name: str,
    out: Path | None,
    max_context: int | None,
    supported_label: str | None,
    pair_order: PairOrder,
    judge_prompt: Path | None,
) -> None:
    """Write a manifest pinning a local safetensors model FOLDER by its files' sha256, with
    what its family needs: answer tokens, context length, system turn, thinking switch."""
    target = out or Path(f"{name}.toml")
    sources = folder_files("FOLDER", folder)
    if judge_prompt is not None:
        sources["--judge-prompt"] = judge_prompt
    check_destinations([("--out", target)], sources)
    manifest = pin_folder(
        folder,
        name,
        max_context=max_context,
        supported_label=supported_label,
        pair_order=pair_order,
        judge_prompt=judge_prompt,
    )
    with written_whole(target) as f:
        f.write(tomli_w.dumps(manifest, multiline_strings=True))
    pinned = load_manifest(target)  # what was written must read back as a valid manifest
    click.echo(
        f"wrote {target}: {family_text(pinned)}; context {pinned.context_window}; "
        f"answers {answers_text(pinned)}"
    )
    if pinned.can_generate:
        click.echo(f"score with: offline-recall score DATA --model {target}")
    else:
        click.echo(
            f"a classifier judges only; score with: offline-recall score DATA "
            f"--model CHAT_MODEL --judge-model {target}"
        )
