"""Checking an uploaded game definition: the YAML text → a :class:`GameDefinition` or the list of its errors,
each naming the field (the ``GameDefinitionError`` path of docs/game-format.md) and the 1-based line of the
YAML text where the offending item is written. Pure (standard library + PyYAML); the text is parsed with
``yaml.safe_load`` / ``yaml.compose`` only (no tags, no code), by the one loader ``parse_game``.

Shapes
    :func:`check_definition` returns ``(definition | None, errors)``; an error is
    ``{"field": "variations.92.reels[2][17]", "line": 31 | None, "message": "unknown symbol 'QX'"}``.
    The loader stops at the first problem, so there is one error per upload (a YAML syntax error names
    ``field`` ``yaml`` and the line the parser stopped on).

Mapping a path to a line
    The path's parts (``symbols``, ``[3]``, ``pays``) are followed down the composed YAML node tree as far as
    they go; the line is that of the deepest node reached (a reel strip written as one whitespace-separated
    string maps to the string's line). Variation keys may contain dots (``variations.94.5``): at a mapping the
    longest run of dotted parts that is a key is taken.
"""

from __future__ import annotations

import hashlib
import re

import yaml

from slotsys.floor.domain.game import GameDefinition, GameDefinitionError, parse_game

MAX_DEFINITION_CHARS = 48 * 1024
"""An uploaded definition is at most 48 KiB of text (the catalogue's files are about 11 KiB), so its JSON body stays
within the request body limit (``SLOTSYS_MAX_BODY_BYTES``, 64 KiB)."""

_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def definition_sha256(text: str) -> str:
    """The hex SHA-256 of the definition's UTF-8 text: the identity of what was approved."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _parts(path: str) -> list[str | int]:
    return [int(i) if i else k for i, k in _PART.findall(path)]


def line_of(text: str, path: str) -> int | None:
    """The 1-based line of ``text`` holding the item at ``path`` (``symbols[3].pays``), or ``None`` when the
    text does not compose or the path names nothing in it (a missing key: the line of its parent is given)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    line = node.start_mark.line + 1
    parts = _parts(path)
    i = 0
    while i < len(parts):
        part = parts[i]
        nxt = None
        if isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                nxt, i = node.value[part], i + 1
        elif isinstance(node, yaml.MappingNode):
            for j in range(len(parts), i, -1):  # the longest dotted run that is a key ("94.5"; pays[3] is key 3)
                run = parts[i:j]
                if j - i > 1 and not all(isinstance(p, str) for p in run):
                    continue
                key = ".".join(str(p) for p in run)
                hit = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and str(k.value) == key), None)
                if hit is not None:
                    nxt, i = hit, j
                    break
        if nxt is None:
            break
        node = nxt
        line = node.start_mark.line + 1
    return line


def check_definition(text: str) -> tuple[GameDefinition | None, list[dict]]:
    """Parse and validate an uploaded definition. Returns ``(game, [])`` or ``(None, errors)`` (shape above).

    Refused before parsing: an empty text or one over :data:`MAX_DEFINITION_CHARS` (field ``definition``)."""
    if not text.strip():
        return None, [{"field": "definition", "line": None, "message": "the definition is empty"}]
    if len(text) > MAX_DEFINITION_CHARS:
        return None, [{"field": "definition", "line": None,
                       "message": f"the definition is longer than {MAX_DEFINITION_CHARS} characters"}]
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        return None, [{"field": "yaml", "line": mark.line + 1 if mark is not None else None,
                       "message": f"not valid YAML: {problem}"}]
    try:
        game = parse_game(text)
    except GameDefinitionError as e:
        return None, [{"field": e.path, "line": line_of(text, e.path), "message": e.message}]
    return game, []
