"""The command table `--help` is listed from cannot drift from the commands themselves: each
entry names a real command with its own one-line help, and every command is in the table."""

from __future__ import annotations

import importlib
import pkgutil

import click
from click.testing import CliRunner

import offline_recall.cli
from offline_recall.cli import COMMANDS, main


def _top_level_commands() -> dict[tuple[str, str], click.Command]:
    """Each command a module of the cli package defines, by (module, attribute), less the
    sub-commands of its groups."""
    found: dict[tuple[str, str], click.Command] = {}
    for info in pkgutil.iter_modules(offline_recall.cli.__path__):
        name = f"{offline_recall.cli.__name__}.{info.name}"
        module = importlib.import_module(name)
        defined = {
            attribute: value
            for attribute, value in vars(module).items()
            if isinstance(value, click.Command)
            and value.callback is not None
            and value.callback.__module__ == name
        }
        inner = {
            id(command)
            for value in defined.values()
            if isinstance(value, click.Group)
            for command in value.commands.values()
        }
        found |= {(name, a): c for a, c in defined.items() if id(c) not in inner}
    return found


def test_each_entry_is_its_command_with_its_own_short_help() -> None:
    for name, lazy in COMMANDS.items():
        command = getattr(importlib.import_module(lazy.module), lazy.attribute)
        assert isinstance(command, click.Command), name
        assert command.name == name
        assert lazy.help == command.get_short_help_str(), name


def test_every_command_is_in_the_table() -> None:
    listed = {(lazy.module, lazy.attribute) for lazy in COMMANDS.values()}
    assert set(_top_level_commands()) == listed


def test_help_lists_each_command_with_its_line() -> None:
    done = CliRunner().invoke(main, ["--help"])
    assert done.exit_code == 0, done.output
    listing = done.output.split("Commands:", 1)[1].splitlines()[1:]
    assert [line.split(None, 1) for line in listing if line.strip()] == [
        [name, lazy.help] for name, lazy in sorted(COMMANDS.items())
    ]


def test_a_command_is_found_by_its_name_and_an_unknown_one_is_refused() -> None:
    ctx = click.Context(main)
    assert main.get_command(ctx, "score") is importlib.import_module(COMMANDS["score"].module).score
    assert main.get_command(ctx, "nope") is None
    done = CliRunner().invoke(main, ["nope"])
    assert done.exit_code == 2 and "No such command 'nope'" in done.output
