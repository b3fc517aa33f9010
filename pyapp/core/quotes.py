"""Where each of many quotes occurs in one text, without searching the text once
per quote.

An evidence file may hold thousands of quotes, and searching the text once for each
costs quotes × text (10,000 absent quotes over a megabyte took seconds). So past
:data:`FEW` distinct quotes:

* **A long quote** (at least :data:`GRAM` code points) can only occur where its
  first ``GRAM`` code points occur, and where its last ones do, shifted. One pass
  over the text (pieces cut and looked up at C speed) collects the places of every
  such piece wanted; each quote is then checked with ``startswith`` only at the
  places of the rarer of its two pieces.
* **Short quotes**, and long ones whose rarer piece occurs more than :data:`RARE`
  times (a text that repeats itself), are found together by an Aho–Corasick
  automaton: one trie of the quotes, each node with a failure link (the longest
  proper suffix of its string that is also a node) and a dictionary link (the
  nearest such suffix that is a whole quote). One pass over the text reports every
  occurrence, overlapping ones too. A quote stops being reported once it has been
  seen :data:`COUNTED` times and is then cut out of the dictionary chains, so
  occurrences past what a message shows cost nothing.

Every quote is counted up to :data:`COUNTED` occurrences, with its first
:data:`SHOWN` offsets. A few quotes (or a few left to the automaton) are searched
with ``str.find`` instead, in C, with nothing to build. Every way gives the same
answer (tested against a brute force), and the cost is bounded by the text, the
quotes and :data:`COUNTED` per quote, never their product. Pure Python: the engine
runs in Pyodide too.

>>> found = find_quotes("she sells sea shells", ["sea", "he", "shells", "xyz"])
>>> [(f.count, f.offsets) for f in found]
[(1, [10]), (2, [1, 15]), (1, [14]), (0, [])]
>>> find_quotes("aaaa", ["aa"], few=0)[0].offsets  # overlapping occurrences count
[0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, count
from typing import Final

__all__ = ["COUNTED", "FEW", "GRAM", "RARE", "SHOWN", "Found", "find_quotes"]

#: Occurrences counted per quote ("occurs 100 or more times").
COUNTED: Final = 100
#: Offsets kept per quote (a message shows five, and "…" when there are more).
SHOWN: Final = 6
#: Up to this many distinct quotes (or short quotes), each is searched on its own.
FEW: Final = 16
#: A quote of at least this many code points is looked for through its first and
#: last this many...
GRAM: Final = 16
#: ...at the places of the rarer of the two, when it occurs at most this often.
RARE: Final = 64


@dataclass(slots=True)
class Found:
    """How often a quote occurs (up to :data:`COUNTED`) and its first offsets (up
    to :data:`SHOWN`, in order)."""

    count: int
    offsets: list[int]

    def add(self, at: int) -> bool:
        """Counts an occurrence at ``at``; whether the quote is now counted in full."""
        self.count += 1
        if len(self.offsets) < SHOWN:
            self.offsets.append(at)
        return self.count >= COUNTED


def find_quotes(text: str, quotes: Sequence[str], *, few: int = FEW) -> list[Found]:
    """A :class:`Found` per quote (non-empty strings), in order; equal quotes share
    one. Up to ``few`` distinct quotes are searched one by one."""
    distinct = list(dict.fromkeys(quotes))
    found: dict[str, Found] = {}
    if len(distinct) <= few:
        found.update((q, _find_one(text, q)) for q in distinct)
    else:
        rest = [q for q in distinct if len(q) < GRAM]
        rest += _by_pieces(text, [q for q in distinct if len(q) >= GRAM], found)
        if len(rest) <= few:
            found.update((q, _find_one(text, q)) for q in rest)
        else:
            found.update(zip(rest, _automaton(text, rest), strict=True))
    return [found[q] for q in quotes]


def _find_one(text: str, quote: str) -> Found:
    """One quote, with ``str.find`` (each search in C)."""
    found = Found(0, [])
    at = text.find(quote)
    while at >= 0 and not found.add(at):
        at = text.find(quote, at + 1)
    return found


def _places(text: str, wanted: Iterable[str]) -> dict[str, list[int]]:
    """Where each of the ``wanted`` pieces of :data:`GRAM` code points occurs, in
    order: the text's pieces are cut and looked up at C speed, and only the places
    where a wanted one starts are kept."""
    keys = set(wanted)
    out: dict[str, list[int]] = {key: [] for key in keys}
    stop = len(text) - GRAM + 1
    if not keys or stop <= 0:
        return out
    pieces = map(text.__getitem__, map(slice, range(stop), range(GRAM, stop + GRAM)))
    for at in compress(count(), map(keys.__contains__, pieces)):
        out[text[at : at + GRAM]].append(at)
    return out


def _by_pieces(text: str, quotes: list[str], found: dict[str, Found]) -> list[str]:
    """Distinct quotes of at least :data:`GRAM` code points into ``found``, each
    checked only where the rarer of its first and last pieces occurs; the quotes
    whose rarer piece occurs more than :data:`RARE` times are left to the automaton
    (returned)."""
    places = _places(text, [p for q in quotes for p in (q[:GRAM], q[-GRAM:])])
    hard: list[str] = []
    for q in quotes:
        at, shift = places[q[:GRAM]], 0
        last = places[q[-GRAM:]]
        if len(last) < len(at):
            at, shift = last, len(q) - GRAM
        if len(at) > RARE:
            hard.append(q)
            continue
        hit = found[q] = Found(0, [])
        for p in at:
            start = p - shift
            if start >= 0 and text.startswith(q, start) and hit.add(start):
                break
    return hard


def _automaton(text: str, quotes: list[str]) -> list[Found]:
    """Distinct non-empty ``quotes``, found in one pass over ``text``."""
    # The trie. Node 0 is the root, whose children are a dict of their own (the
    # search is there often); any other node keeps its first child in two lists
    # (a node of a long quote mostly has one) and further children in a dict.
    root: dict[str, int] = {}
    first_char: list[str] = [""]
    first_node: list[int] = [0]
    more: dict[int, dict[str, int]] = {}
    ends: list[int] = [-1]  # the quote ending at a node, or -1

    def child(node: int, ch: str) -> int:
        if node == 0:
            return root.get(ch, -1)
        if first_char[node] == ch:
            return first_node[node]
        branch = more.get(node)
        return -1 if branch is None else branch.get(ch, -1)

    for number, quote in enumerate(quotes):
        node = 0
        for ch in quote:
            nxt = child(node, ch)
            if nxt < 0:
                nxt = len(ends)
                first_char.append("")
                first_node.append(0)
                ends.append(-1)
                if node == 0:
                    root[ch] = nxt
                elif not first_char[node]:
                    first_char[node], first_node[node] = ch, nxt
                else:
                    more.setdefault(node, {})[ch] = nxt
            node = nxt
        ends[node] = number

    # Failure and dictionary links, breadth first (a node's links are shallower).
    fail = [0] * len(ends)
    link = [0] * len(ends)  # the nearest proper suffix that ends a quote, or 0
    queue = list(root.values())
    for node in queue:  # the queue grows as it is walked
        kids = [(first_char[node], first_node[node])] if first_char[node] else []
        kids.extend(more.get(node, {}).items())
        for ch, kid in kids:
            back = fail[node]
            while (target := child(back, ch)) < 0 and back:
                back = fail[back]
            target = max(target, 0)
            fail[kid] = target
            link[kid] = target if ends[target] >= 0 else link[target]
            queue.append(kid)

    found = [Found(0, []) for _ in quotes]
    lengths = [len(q) for q in quotes]
    state = 0
    for at, ch in enumerate(text, 1):
        while True:
            if state == 0:
                state = root.get(ch, 0)
                break
            if first_char[state] == ch:
                state = first_node[state]
                break
            branch = more.get(state)
            if branch is not None and ch in branch:
                state = branch[ch]
                break
            state = fail[state]
        if not state:
            continue
        # Every quote ending here: the state's own, then along the dictionary links.
        # ``holder`` is the node whose link led here, so that a quote counted in full
        # is cut out of the chain the first time it is met.
        if ends[state] >= 0:
            holder, node = -1, state
        else:
            holder, node = state, link[state]
        while node:
            number = ends[node]
            if number < 0:
                node = link[node]
                if holder >= 0:
                    link[holder] = node
                continue
            if found[number].add(at - lengths[number]):
                ends[node] = -1
            holder, node = node, link[node]
    return found
