"""Write pokerkit 0.7.7's own hold'em test hands (its WSOP broadcast tests and the PHH paper's example) as PHH files.

Run once with the project's interpreter (``.venv/bin/python tests/data/phh/pokerkit/extract.py``); the files it
writes are committed next to it. Each hand is taken from the test that pokerkit ships in its wheel
(``pokerkit/tests/test_wsop/*.py``, ``pokerkit/tests/test_papers.py``): the test plays the broadcast hand on a
pokerkit state and calls ``HandHistory.from_game_state``; this script records that call's hand history and writes
the **stacks the test asserts** as ``finishing_stacks``. Only Texas hold'em (``FT`` / ``NT``) hands are taken: the
poker room deals no other variant.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import pokerkit
from pokerkit import HandHistory

OUT = Path(__file__).resolve().parent
REPO = "https://github.com/uoftcprg/pokerkit/blob/v0.7.7/pokerkit/tests"
MODULES = {
    "test_2023_43_5": ("2023 World Series of Poker Event #43: $50,000 Poker Players Championship | Day 5",
                       "https://www.pokergo.com/videos/6e5e4f34-9857-458c-b61e-d478ad29dbd6"),
    "test_2023_54_4": ("2023 World Series of Poker Event #54: $10,000 H.O.R.S.E. Championship | Day 4",
                       "https://www.pokergo.com/videos/55817f62-ddfd-481b-bcf4-6513f9023672"),
}
HOLDEM = ("NoLimitTexasHoldem", "FixedLimitTexasHoldem")


def asserted_stacks(src: str) -> list[int]:
    """The literal list in the test's ``self.assertEqual(state.stacks, [...])``."""
    for node in ast.walk(ast.parse(textwrap.dedent(src))):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "assertEqual"
                and ast.unparse(node.args[0]) == "state.stacks"):
            return ast.literal_eval(node.args[1])
    raise LookupError("no asserted stacks")


def wsop_hands():
    captured: list = []
    original = HandHistory.from_game_state.__func__

    def capture(cls, game, state, **kw):
        hh = original(cls, game, state, **kw)
        captured.append(hh)
        return hh

    HandHistory.from_game_state = classmethod(capture)
    try:
        for name, (event, video) in MODULES.items():
            mod = importlib.import_module(f"pokerkit.tests.test_wsop.{name}")
            case = mod.StateTestCase
            for attr in sorted(a for a in dir(case) if a.startswith("test_")):
                src = inspect.getsource(getattr(case, attr))
                head = src.split("state = game(")[0]
                if not any(f"game = {g}(" in head for g in HOLDEM):
                    continue
                captured.clear()
                getattr(case(attr), attr)()  # the pokerkit test itself: it must pass
                yield name, attr, event, video, captured[0], asserted_stacks(src)
    finally:
        HandHistory.from_game_state = classmethod(original)


def write(path: Path, comment: str, hh: HandHistory, finishing: list[int]) -> None:
    hh.finishing_stacks = list(finishing)
    path.write_text(textwrap.indent(comment.strip(), "# ", lambda _line: True).replace("# \n", "#\n")
                    + "\n" + hh.dumps() + "\n")


def main() -> None:
    assert pokerkit.__name__ and (Path(pokerkit.__file__).parent / "tests").is_dir()
    for name, attr, event, video, hh, finishing in wsop_hands():
        _, number, hh_, mm, ss = attr.split("_")
        hh.event = event
        label = f"{name[5:]}_{int(number):02d}_{hh_}_{mm}_{ss}"
        write(OUT / f"wsop_{label}.phh", f"""
Source: pokerkit 0.7.7's own test of this broadcast hand, {REPO}/test_wsop/{name}.py
(StateTestCase.{attr}: the hand at {hh_}:{mm}:{ss} of {video}), {event}.
Actions, cards and flags as pokerkit's test plays them; finishing_stacks = the stacks that test asserts.
Written by tests/data/phh/pokerkit/extract.py.""", hh, finishing)
    papers = importlib.import_module("pokerkit.tests.test_papers")
    src = inspect.getsource(papers.PaperTestCase.test_dwan_ivey_2009 if hasattr(papers, "PaperTestCase")
                            else next(c for c in vars(papers).values() if inspect.isclass(c)
                                      and hasattr(c, "test_dwan_ivey_2009")).test_dwan_ivey_2009)
    text = ast.literal_eval(ast.unparse(next(n for n in ast.walk(ast.parse(textwrap.dedent(src)))
                                             if isinstance(n, ast.Constant) and isinstance(n.value, str)
                                             and "variant" in n.value)))
    hh = HandHistory.loads(text)
    write(OUT / "papers_dwan_ivey_2009.phh", f"""
Source: pokerkit 0.7.7's PHH paper test, {REPO}/test_papers.py (test_dwan_ivey_2009; the same hand is the
paper's Figure 2, test_figure_2): the first televised million-dollar pot, Tom Dwan v Phil Ivey, Full Tilt
Million Dollar Cash Game S4E12 (https://youtu.be/GnxFohpljqM). The PHH text is the test's, as written;
finishing_stacks = the stacks that test asserts. Written by tests/data/phh/pokerkit/extract.py.""",
          hh, asserted_stacks(src))


if __name__ == "__main__":
    main()
