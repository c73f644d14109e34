"""PHH import: pokerkit's own hold'em test hands (WSOP 2023 broadcasts, the PHH paper's Dwan-Ivey pot) replay to the
finishing stacks those tests assert, and a file whose ``ante_trimming_status`` contradicts its own recorded result
replays to the recorded stacks with a warning naming the overridden flag."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

import pytest
from pokerkit.tests import test_papers
from pokerkit.tests.test_wsop import test_2023_43_5, test_2023_54_4

from table_games.domain import poker_room as P
from table_games.domain.errors import TableRuleError

POKERKIT_DIR = Path(__file__).resolve().parents[1] / "data" / "phh" / "pokerkit"
POKERKIT_FILES = sorted(POKERKIT_DIR.glob("*.phh"))
TRUE, FALSE = "ante_trimming_status = true", "ante_trimming_status = false"


def _without_record(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("finishing_stacks"))


def _big_blind_ante(text: str) -> int:
    """The big blind's ante written in the file (0 when the hand has none)."""
    hh = P.load_phh(text)
    posters = [a for a in hh.antes if a]
    return posters[0] if len(posters) == 1 and hh.antes[1] else 0


def _pokerkit_holdem_tests() -> set[str]:
    """Every test in pokerkit's installed WSOP suites that plays a Texas hold'em game (read from its source)."""
    names = set()
    for mod in (test_2023_43_5, test_2023_54_4):
        for attr, fn in vars(mod.StateTestCase).items():
            if attr.startswith("test_"):
                head = inspect.getsource(fn).split("state = game(")[0]
                if re.search(r"game = (NoLimit|FixedLimit)TexasHoldem\(", head):
                    names.add(f"{mod.__name__.rsplit('.', 1)[1]}.{attr}")
    return names


def test_every_pokerkit_wsop_holdem_hand_has_its_file():
    wanted = _pokerkit_holdem_tests()
    assert len(wanted) == 26  # 11 no-limit and 7 limit hands of event 43 day 5, 8 limit hands of event 54 day 4
    cited = set()
    for path in POKERKIT_FILES:
        m = re.search(r"test_wsop/(test_\d+_\d+_\d+)\.py\n# \(StateTestCase\.(test_\w+):", path.read_text())
        if m:
            cited.add(f"{m[1]}.{m[2]}")
    assert cited == wanted
    # and the PHH paper's hold'em hand written as PHH in pokerkit's tests
    assert hasattr(test_papers.PaperTestCase if hasattr(test_papers, "PaperTestCase") else
                   next(c for c in vars(test_papers).values() if hasattr(c, "test_dwan_ivey_2009")),
                   "test_dwan_ivey_2009")
    assert (POKERKIT_DIR / "papers_dwan_ivey_2009.phh").exists()


@pytest.mark.parametrize("path", POKERKIT_FILES, ids=lambda p: p.stem)
def test_pokerkit_hand_replays_to_its_recorded_stacks(path):
    text = path.read_text()
    assert text.startswith("# Source: pokerkit 0.7.7")
    out = P.replay_phh(text)
    assert out["variant"] in ("FT", "NT")
    assert out["expected"] == [int(x) for x in P.load_phh(text).finishing_stacks]
    assert out["finishing_stacks"] == out["expected"] and out["matches"] is True
    assert out["overrides"] == {} and out["warnings"] == []  # pokerkit's flags agree with its asserted stacks
    assert sum(out["finishing_stacks"]) == sum(P.load_phh(text).starting_stacks)  # no rake: chips conserved


BB_ANTE_FILES = [p for p in POKERKIT_FILES if _big_blind_ante(p.read_text())]


def test_the_big_blind_ante_hands_are_there():
    assert len(BB_ANTE_FILES) == 11  # every no-limit hand of the Players Championship day 5


@pytest.mark.parametrize("path", BB_ANTE_FILES, ids=lambda p: p.stem)
def test_big_blind_ante_hand_written_as_public_datasets_do_replays_to_the_recorded_stacks(path):
    """The same broadcast hand with ``ante_trimming_status = true`` (the public datasets' flag): the import still
    reproduces the recorded stacks; it warns exactly when the flag would have changed them, and then the flag as
    written would have handed the big blind's ante back (the recorded stacks differ from it by the ante)."""
    text = path.read_text()
    assert FALSE in text
    public = text.replace(FALSE, TRUE)
    ante = _big_blind_ante(text)
    expected = [int(x) for x in P.load_phh(text).finishing_stacks]
    out = P.replay_phh(public)
    assert out["finishing_stacks"] == expected and out["matches"] is True
    try:
        as_flagged = P.replay_phh(_without_record(public))["finishing_stacks"]
    except TableRuleError:
        as_flagged = None  # the recorded all-in only replays with the ante dead
    if as_flagged == expected:
        assert out["overrides"] == {} and out["warnings"] == []  # the big blind won: both rules agree
        return
    assert out["overrides"] == {"ante_trimming_status": False}
    [warning] = out["warnings"]
    assert warning.startswith("ante_trimming_status=true overridden: the recorded ")
    assert "treat the big blind's ante as dead money in the main pot" in warning
    if as_flagged is not None:
        diff = [a - e for a, e in zip(as_flagged, expected)]
        assert diff[1] == ante and sum(diff) == 0  # the big blind gets its ante back, taken from the winner(s)


def test_the_all_in_for_the_stack_behind_the_dead_ante_replays_only_with_the_override():
    text = (POKERKIT_DIR / "wsop_2023_43_5_68_03_02_41.phh").read_text().replace(FALSE, TRUE)
    out = P.replay_phh(text)
    assert out["finishing_stacks"] == [2_200_000, 0, 2_675_000, 3_125_000, 21_700_000]
    assert out["warnings"] == ["ante_trimming_status=true overridden: the recorded actions and finishing stacks "
                               "treat the big blind's ante as dead money in the main pot (as written the hand does "
                               "not replay)"]
    with pytest.raises(TableRuleError) as e:  # no record to go by: the file's flag is followed, as before
        P.replay_phh(_without_record(text))
    assert e.value.field == "phh"


def test_a_false_flag_contradicted_by_trimmed_stacks_is_overridden_the_other_way():
    text = (POKERKIT_DIR / "wsop_2023_43_5_02_00_08_38.phh").read_text()
    trimmed = P.replay_phh(_without_record(text.replace(FALSE, TRUE)))["finishing_stacks"]
    lines = [f"finishing_stacks = {trimmed}" if line.startswith("finishing_stacks") else line
             for line in text.splitlines()]
    out = P.replay_phh("\n".join(lines))
    assert out["finishing_stacks"] == trimmed and out["matches"] is True
    assert out["overrides"] == {"ante_trimming_status": True}
    assert out["warnings"] == ["ante_trimming_status=false overridden: the recorded finishing stacks return the "
                               "unmatched part of the big blind's ante as an uncalled bet (trimmed) (pokerkit would "
                               "keep the big blind's ante as dead money)"]


def test_a_record_no_flag_explains_is_reported_as_a_mismatch_not_overridden():
    text = (POKERKIT_DIR / "wsop_2023_43_5_02_00_08_38.phh").read_text()
    hh = P.load_phh(text)
    wrong = list(hh.finishing_stacks)
    wrong[0], wrong[1] = wrong[0] + 1, wrong[1] - 1
    lines = [f"finishing_stacks = {wrong}" if line.startswith("finishing_stacks") else line
             for line in text.splitlines()]
    out = P.replay_phh("\n".join(lines))
    assert out["matches"] is False and out["expected"] == wrong
    assert out["finishing_stacks"] == [int(x) for x in hh.finishing_stacks]
    assert out["overrides"] == {} and out["warnings"] == []


def test_the_extractor_asserted_stacks_are_the_tests_literals():
    """The finishing stacks in each file are the literal the pokerkit test asserts, read here from its source."""
    src = inspect.getsource(test_2023_43_5.StateTestCase.test_68_03_02_41)
    literal = next(ast.literal_eval(n.args[1]) for n in ast.walk(ast.parse(textwrap.dedent(src)))
                   if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "assertEqual"
                   and ast.unparse(n.args[0]) == "state.stacks")
    text = (POKERKIT_DIR / "wsop_2023_43_5_68_03_02_41.phh").read_text()
    assert [int(x) for x in P.load_phh(text).finishing_stacks] == literal
