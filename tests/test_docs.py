"""The documentation says what the command line does: every option of every subcommand's
``--help`` is named on a page that documents that subcommand, and no command line shown in
the docs (a fenced ``agentic-chunking <command> ...`` line) names a command or an option
the CLI lacks. The subcommands are read from the parser, so a command added later must be
documented too. Also: every page is in the site's nav, and the README stays short and links
only to pages that exist.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from agentic_chunking.cli._main import build_parser

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
README = REPO / "README.md"
README_MOST_LINES = 150

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# The command line's name (not a package to install), then its subcommand if any ("" for
# the top-level parser's options).
_COMMAND = re.compile(
    r"(?<![\w/.-])(?<!install )(?:agentic-chunking|python -m agentic_chunking)(?![\w./-])"
    r"(?:\s+([a-z][\w-]*))?(.*)"
)
_LONG_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
# Where a shell command stops: a comment, a pipe, a list operator or a redirection.
_COMMAND_END = re.compile(r"\s#|\s\|\s|&&|;|\s>")


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser by name, and the top-level parser under ``""``."""
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {"": parser, **action.choices}
    raise AssertionError("the parser has no subcommands")


def _long_options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options ``--help`` shows (``--help`` itself left out)."""
    return {
        option
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def command_lines(markdown: str) -> Iterator[tuple[str, list[str]]]:
    """Each command line in the fenced blocks of ``markdown``: the subcommand it runs and
    the long options it gives (a line continued with ``\\`` is read whole; what follows a
    comment, a pipe or a redirection is not the command's)."""
    for block in _FENCE.findall(markdown):
        for line in block.replace("\\\n", " ").splitlines():
            found = _COMMAND.search(line)
            if found is None:
                continue
            command, rest = found.groups()
            rest = _COMMAND_END.split(" " + rest, maxsplit=1)[0]
            yield command or "", _LONG_OPTION.findall(rest)


SUBCOMMANDS = sorted(name for name in _subcommands() if name)


def test_the_scanner_reads_commands_options_and_stops_at_comments() -> None:
    text = (
        "```sh\n"
        "$ agentic-chunking chunk x.md --nope -o a.json   # --not-this\n"
        "ANTHROPIC_API_KEY=... agentic-chunking split - --explain=full \\\n"
        "    --overlap 1 | head --lines 2\n"
        "python -m agentic_chunking --help\n"
        "pip install agentic-chunking --upgrade; ls ~/.cache/agentic-chunking/replies --all\n"
        "agentic-chunking --version\n"
        "```\n"
        "agentic-chunking chunk --outside-a-fence\n"
    )
    assert list(command_lines(text)) == [
        ("chunk", ["--nope"]),
        ("split", ["--explain", "--overlap"]),
        ("", ["--help"]),
        ("", ["--version"]),
    ]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_has_a_page_and_each_option_is_named_there(command: str) -> None:
    pages = [page for page in _pages() if f"agentic-chunking {command}" in page.read_text()]
    assert pages, f"no page of docs/ shows `agentic-chunking {command}`: document the command"
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    named = set(_LONG_OPTION.findall(text))
    missing = sorted(_long_options(_subcommands()[command]) - named)
    where = ", ".join(page.name for page in pages)
    assert not missing, f"`{command} --help` has {missing}, which {where} never name"


def test_the_top_level_options_are_documented() -> None:
    text = "\n".join(page.read_text(encoding="utf-8") for page in _pages())
    missing = sorted(_long_options(_subcommands()[""]) - set(_LONG_OPTION.findall(text)))
    assert "--version" in _long_options(_subcommands()[""]) and not missing, missing


def test_the_docs_show_no_command_or_option_the_cli_lacks() -> None:
    subcommands = _subcommands()
    seen: set[str] = set()
    wrong: list[str] = []
    for page in [README, *_pages()]:
        for command, options in command_lines(page.read_text(encoding="utf-8")):
            if command not in subcommands:
                wrong.append(f"{page.name}: no command {command!r}")
                continue
            seen.add(command)
            known = _long_options(subcommands[command]) | {"--help"}
            wrong += [f"{page.name}: {command} has no {o}" for o in options if o not in known]
    assert not wrong, wrong
    assert seen == set(subcommands), f"no fenced example of {sorted(set(subcommands) - seen)}"


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = {next(iter(entry.values())) for entry in config["nav"]}
    assert in_nav == {page.name for page in _pages()}


def test_the_readme_is_short_and_links_only_to_pages_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MOST_LINES
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", text)
    assert {Path(link).name for link in links} == {page.name for page in _pages()}
    assert all((REPO / link).is_file() for link in links)


def test_the_layout_page_names_every_package_and_command_module() -> None:
    """docs/layout.md is checked against the packages: a package or a command module the
    page leaves out fails here (it once omitted corpus/ and evaluate/)."""
    import agentic_chunking

    package = Path(agentic_chunking.__file__).parent
    page = (Path(__file__).resolve().parent.parent / "docs" / "layout.md").read_text("utf-8")
    packages = sorted(
        p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    )
    missing = [name for name in packages if f"{name}/" not in page]
    commands = sorted(  # a command's module is the one that registers its subcommand
        p.stem for p in (package / "cli").glob("_*.py") if "def register(" in p.read_text("utf-8")
    )
    missing += [f"cli/{c}" for c in commands if c not in page]
    assert not missing, f"docs/layout.md does not name {', '.join(missing)}"
