"""The rules as the project models them live in the repository (docs/rules/), stay true to
the rules dataclasses, and are what the code links to; nothing points outside the repository."""

from __future__ import annotations

import inspect
import subprocess
from pathlib import Path

import pytest

from sim import games
from sim.outputs import rulesdoc

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", sorted(rulesdoc.pages()), ids=lambda p: p.name)
def test_each_rules_page_lists_the_parameters_of_the_code(path):
    names = rulesdoc.pages()[path]
    assert path.read_text() == rulesdoc.expected(path, names), (
        f"{path.name} is out of date with the rules dataclasses: run "
        "python -m sim.outputs.rulesdoc")


@pytest.mark.parametrize("name", games.names())
def test_every_game_links_its_rules_page(name):
    game = games.get(name)
    assert game.rules_doc and (ROOT / game.rules_doc).exists()
    source = inspect.getsource(inspect.getmodule(game.rules_type))
    assert game.rules_doc in source  # the rules module's docstring points to the page


def test_nothing_refers_to_files_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    outside = "shared" + "/"  # written so that this file does not match itself
    hits = [f for f in files if Path(ROOT / f).is_file() and f.endswith(
        (".py", ".md", ".toml", ".j2", ".txt", ".csv")) and outside in (ROOT / f).read_text(
            errors="replace")]
    assert hits == []
