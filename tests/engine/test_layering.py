"""The corpus package is a lower layer: it never imports the command line, and its
modules import one another without a cycle (function-level imports included)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pyapp.planning.corpus as corpus

PACKAGE = "pyapp.planning.corpus"


def imports_of(path: Path, module: str) -> set[str]:
    """Every module ``path`` imports, anywhere in it (resolved to absolute names)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # from . import x
    return found


def package_graph() -> dict[str, set[str]]:
    root = Path(corpus.__file__).parent
    modules = {PACKAGE: root / "__init__.py"}
    modules |= {f"{PACKAGE}.{p.stem}": p for p in root.glob("*.py") if p.stem != "__init__"}
    return {name: imports_of(path, name) & set(modules) - {name} for name, path in modules.items()}


def test_importing_the_corpus_package_loads_no_command_line_module() -> None:
    code = (
        "import sys, pyapp.planning.corpus\n"
        "print(sorted(m for m in sys.modules if m.startswith('pyapp.cli')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_no_corpus_module_imports_the_command_line() -> None:
    root = Path(corpus.__file__).parent
    for path in root.glob("*.py"):
        name = PACKAGE if path.stem == "__init__" else f"{PACKAGE}.{path.stem}"
        assert not any(m.startswith("pyapp.cli") for m in imports_of(path, name)), path.name


def test_the_corpus_modules_import_each_other_without_a_cycle() -> None:
    graph = package_graph()
    # The listing and the readers share .files, and neither imports the other.
    assert f"{PACKAGE}.readers" not in graph[f"{PACKAGE}.sources"]
    assert f"{PACKAGE}.sources" not in graph[f"{PACKAGE}.readers"]
    # The package's __init__ imports its modules; none of them imports it back.
    assert not any(PACKAGE in deps for name, deps in graph.items() if name != PACKAGE)
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for dep in sorted(graph[name]):
            assert state.get(dep) != "open", " -> ".join([*path, name, dep])
            if dep not in state:
                visit(dep, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    assert len(graph) > 8  # the walk saw the package's modules
