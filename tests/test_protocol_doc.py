"""``docs/protocol.md`` held to the code: its purposes, ops, request and error fields, and
what the page stores. Each list in the doc is read as it is written there, and each
list in the code as the code has it (``facts.py``, ``OPS``, the fields the door reads
and blames, the page's storage names), so a change on one side alone fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pyapp.facts import BACKGROUND_PURPOSES, PURPOSES, VIEW_FOLLOWERS
from pyapp.web.api import OPS

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "protocol.md").read_text("utf-8")
#: The engine behind the page's door: everything ``handle`` can reach (the command
#: line and the corpus runner have doors of their own).
ENGINE = [ROOT / "pyapp" / "web", ROOT / "pyapp" / "core", ROOT / "pyapp" / "planning"]
NOT_ENGINE = [ROOT / "pyapp" / "planning" / "corpus"]


def section(title: str) -> str:
    """The doc from the heading ``title`` to the next heading of its level or higher."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", DOC, re.M)
    assert match, f"docs/protocol.md has no heading {title!r}"
    level = len(match.group(1))
    rest = DOC[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows (cells stripped) of the markdown table whose header row starts ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def code(cell: str) -> str:
    """The first `code span` of a cell."""
    match = re.search(r"`([^`]+)`", cell)
    assert match, cell
    return match.group(1)


def engine_sources() -> list[Path]:
    return [
        path
        for folder in ENGINE
        for path in sorted(folder.rglob("*.py"))
        if not any(path.is_relative_to(other) for other in NOT_ENGINE)
    ]


def test_the_doc_lists_every_purpose_which_wait_and_which_a_newer_view_drops() -> None:
    rows = table_rows(section("1. Page <-> worker: tagged messages"), "| purpose |")
    listed = [code(row[0]) for row in rows]
    assert sorted(listed) == sorted(PURPOSES) and len(set(listed)) == len(listed)
    assert {code(row[0]) for row in rows if row[2] == "yes"} == set(BACKGROUND_PURPOSES)
    assert {code(row[0]) for row in rows if row[3] == "yes"} == set(VIEW_FOLLOWERS)
    assert {row[2] for row in rows} | {row[3] for row in rows} <= {"yes", "no"}


def purpose_rows() -> list[tuple[str, set[str], str]]:
    """Each purpose, the ops its row says it carries, and why it is a word of its own."""
    rows = table_rows(section("1. Page <-> worker: tagged messages"), "| purpose |")
    return [(code(row[0]), set(re.findall(r"op `([a-z_]+)`", row[1])), row[4]) for row in rows]


def vocabulary_problems(rows: list[tuple[str, set[str], str]], ops: set[str]) -> list[str]:
    """What is wrong with the two vocabularies: a purpose carrying no known op, one named
    for its op that explains itself anyway, one that is not its op's name and does not
    say why, and an op no purpose carries."""
    problems, carried = [], set()
    for purpose, its_ops, why in rows:
        carried |= its_ops
        if not its_ops or not its_ops <= ops:
            problems.append(f"{purpose} carries unknown ops {sorted(its_ops - ops)}")
        elif its_ops == {purpose} and why != "–":
            problems.append(f"{purpose} is its op's name: nothing to explain")
        elif its_ops != {purpose} and len(why.split()) < 8:
            problems.append(f"{purpose} carries {sorted(its_ops)}: say why it is its own word")
    problems += [f"no purpose carries op {op}" for op in sorted(ops - carried)]
    return problems


def test_a_purpose_is_named_for_its_op_or_says_why_it_is_a_word_of_its_own() -> None:
    assert vocabulary_problems(purpose_rows(), set(OPS)) == []


def test_the_vocabulary_check_refuses_an_unexplained_purpose_and_an_orphan_op() -> None:
    rows = [("view", {"chunk"}, "–"), ("counts", {"counts"}, "–")]
    assert vocabulary_problems(rows, {"chunk", "counts", "warm"}) == [
        "view carries ['chunk']: say why it is its own word",
        "no purpose carries op warm",
    ]


def test_the_doc_lists_every_op_the_door_answers() -> None:
    rows = table_rows(section("Ops"), "| op |")
    listed = [code(row[0]) for row in rows]
    assert sorted(listed) == sorted(OPS) and len(set(listed)) == len(listed)


def literal(node: ast.expr | None) -> str | None:
    """The string a node spells, if it is a string constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def test_every_field_the_door_blames_is_listed_and_no_other() -> None:
    """``field`` of an error answer: the first argument of every engine error the door
    can reach, the field names given to the number parsers, and the door's own
    (``_error(op, "op", ...)``, ``_ref(request, "ref")``)."""
    first_is_field = {"InputError", "TokenizerError", "EngineError", "parse_whole", "parse_number"}
    raised: set[str] = set()
    for path in engine_sources():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
                at = 0 if node.func.id in first_is_field else 1
                if node.func.id in first_is_field | {"_error", "_ref"} and len(node.args) > at:
                    field = literal(node.args[at])
                    if field is not None:
                        raised.add(field)
    listed = re.search(r"`field` names the input to blame \(([^)]*)\)", DOC)
    assert listed, "docs/protocol.md no longer says which inputs `field` names"
    assert set(re.findall(r"`([^`]+)`", listed.group(1))) == raised


def request_fields(node: ast.AST) -> set[str]:
    """The request fields one node of ``api.py`` reads, if any."""
    names: list[str | None]
    match node:
        case ast.Call(func=ast.Attribute(value=ast.Name(id="request"), attr="get"), args=[key, *_]):
            names = [literal(key)]
        case ast.Call(func=ast.Name(id="_ref" | "_offset"), args=[_, key, *_]):
            names = [literal(key)]
        case ast.Subscript(value=ast.Name(id="request"), slice=key):
            names = [literal(key)]
        case ast.Assign(targets=[ast.Name(id=name)], value=ast.Tuple() as value) if name.endswith(
            "_FIELDS"
        ):
            names = list(ast.literal_eval(value))
        case _:
            names = []
    return {name for name in names if name}


def test_every_request_field_the_door_reads_is_in_the_doc() -> None:
    """Each name ``api.py`` reads from a request (``request.get("x")``, ``request["x"]``,
    the helpers that take a field name, the planning ops' field lists) is written in
    the doc as a code span."""
    tree = ast.parse((ROOT / "pyapp" / "web" / "api.py").read_text("utf-8"))
    read = set().union(*(request_fields(node) for node in ast.walk(tree)))
    assert len(read) > 20, read
    missing = sorted(name for name in read if f"`{name}`" not in DOC and f'"{name}"' not in DOC)
    assert not missing, f"docs/protocol.md does not mention the request fields {missing}"


STORAGE_APIS = {"localStorage": "localStorage", "sessionStorage": "sessionStorage",
                "indexedDB": "IndexedDB"}  # fmt: skip


def test_what_the_page_stores_is_what_the_doc_says() -> None:
    """Every storage the page's code uses is named in section 7, with the names it
    stores under (the string constants of the modules that touch storage)."""
    kept = section("7. What the page keeps, and what it opens")
    used: set[str] = set()
    for path in sorted((ROOT / "static").rglob("*.js")):
        source = path.read_text("utf-8")
        apis = {name for api, name in STORAGE_APIS.items() if re.search(rf"\b{api}\b", source)}
        if not apis:
            continue
        used |= apis
        for name, value in re.findall(r'^const ([A-Z_]+) = "([^"]+)";', source, re.M):
            if name in {"KEY", "DB_NAME", "STORE", "PENDING"}:
                assert f"`{value}`" in kept, f"{path.name} stores under {value!r} ({name})"
    assert used == {name for name in STORAGE_APIS.values() if name in kept}
