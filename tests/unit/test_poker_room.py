"""Poker room domain (pokerkit wrapper): published hands replayed from PHH files, fixed-limit raise cap and
heads-up uncapped, odd-chip split, rake with cap, side pots, uncalled bets, Korean hand names, refusals."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pokerkit import Card, ChipsPushing, Label, StandardHighHand

from table_games.domain import poker_room as P
from table_games.domain.errors import TableRuleError

PHH_DIR = Path(__file__).resolve().parents[1] / "data" / "phh"
PHH_FILES = sorted(PHH_DIR.glob("*.phh"))


class SeededRng:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self.r.randrange(n)


def stacked(holes: list[str], board: str) -> list[str]:
    """A deck that deals ``holes`` (one string of two cards per player, pokerkit order) one card at a time
    round the table, then burn/flop/burn/turn/burn/river from ``board`` (5 cards); the rest follows."""
    n = len(holes)
    first = [holes[i][:2] for i in range(n)] + [holes[i][2:] for i in range(n)]
    b = [board[i:i + 2] for i in range(0, 10, 2)]
    used = set(first + b)
    rest = [repr(c) for c in Card.parse("".join(P.shuffled_deck(SeededRng(0)))) if repr(c) not in used]
    out = first + [rest.pop()] + b[:3] + [rest.pop()] + [b[3]] + [rest.pop()] + [b[4]] + rest
    assert len(out) == 52 and len(set(out)) == 52
    return out


# ---------------------------------------------------------------------- published hands
def test_the_phh_corpus_is_there():
    names = {p.name for p in PHH_FILES}
    assert {"wsop2023_e43_d5_0207_bb_ante.phh", "wsop2019_e42_d3_0107_bb_ante.phh",
            "wsop2023_e43_d5_0302_bb_ante_all_in.phh", "wsop2023_e54_d4_0020_fixed_limit.phh",
            "multiway_all_in_side_pots.phh", "wsop2018_main_event_d7_three_way_all_in.phh"} <= names
    for p in PHH_FILES:
        assert p.read_text().startswith("# "), f"{p.name}: the source must be recorded in a comment"


@pytest.mark.parametrize("path", PHH_FILES, ids=lambda p: p.stem)
def test_published_hand_replays_to_its_finishing_stacks(path):
    text = path.read_text()
    hh = P.load_phh(text)
    out = P.replay_phh(text)
    assert out["expected"] == [int(x) for x in hh.finishing_stacks]  # the figures written in the file
    assert out["finishing_stacks"] == out["expected"], path.name
    assert out["matches"] is True
    assert sum(out["finishing_stacks"]) == sum(hh.starting_stacks)  # no rake in these hands: chips conserved


def test_big_blind_ante_is_dead_money_in_the_main_pot():
    text = (PHH_DIR / "wsop2019_e42_d3_0107_bb_ante.phh").read_text()
    assert "ante_trimming_status = true" in text  # as the public dataset writes it
    out = P.replay_phh(text)
    # Kempe (BB) paid the 500,000 ante and 3,400,000 of live bets and lost: 9,525,000 - 3,900,000
    assert out["finishing_stacks"][1] == 5_625_000 and out["matches"] is True
    assert out["overrides"] == {"ante_trimming_status": False}
    assert out["warnings"] == ["ante_trimming_status=true overridden: the recorded finishing stacks treat the big "
                               "blind's ante as dead money in the main pot (pokerkit would return the big blind's "
                               "ante as an uncalled bet)"]
    # without a recorded result the flag is followed: the ante "trimmed" and given back to Kempe
    bare = "\n".join(line for line in text.splitlines() if not line.startswith("finishing_stacks"))
    trimmed = P.replay_phh(bare)
    assert trimmed["finishing_stacks"][1] == 5_625_000 + 500_000
    assert trimmed["matches"] is None and trimmed["overrides"] == {} and trimmed["warnings"] == []


def test_constructed_multiway_all_in_builds_main_and_side_pots():
    # a CONSTRUCTED hand (not published): three pots, each won by a different player
    text = (PHH_DIR / "multiway_all_in_side_pots.phh").read_text()
    *_, state = P.load_phh(text)  # replay every action; the final state
    pushes = [(op.pot_index, op.amounts) for op in state.operations if isinstance(op, ChipsPushing)]
    # the main pot to the aces, side pot 1 to the kings, side pot 2 to the queens
    assert pushes == [(0, (0, 0, 32_000, 0)), (1, (36_000, 0, 0, 0)), (2, (0, 60_000, 0, 0))]


def test_published_three_way_all_in_2018_main_event_final_table_bubble():
    # 2018 WSOP Main Event, Day 7, ten-handed: Manion AsAh, Labat KdKc, Zhu KsKh all in pre-flop (sources in the file)
    text = (PHH_DIR / "wsop2018_main_event_d7_three_way_all_in.phh").read_text()
    hh = P.load_phh(text)
    names = list(hh.players)
    manion, labat, zhu = names.index("Nicolas Manion"), names.index("Antoine Labat"), names.index("Yueqi Zhu")
    assert hh.starting_stacks[labat] == 51_250_000  # PokerNews: Labat's stack before the hand
    out = P.replay_phh(text)
    got = dict(zip(names, out["finishing_stacks"]))
    # published counts after the hand (PokerNews / WSOP final-table seating), not pokerkit's output
    assert got == {"Nicolas Manion": 112_775_000, "Antoine Labat": 8_050_000, "Yueqi Zhu": 0,
                   "Michael Dyer": 109_175_000, "Tony Miles": 42_750_000, "John Cynn": 37_075_000,
                   "Alex Lynskey": 25_925_000, "Joe Cada": 23_675_000, "Aram Zobian": 18_875_000,
                   "Artem Metalidi": 15_475_000}
    assert hh.starting_stacks[labat] - got["Antoine Labat"] == 43_200_000  # "lost 43,200,000" (onlinepoker.net)
    assert out["board"] == ["Jd", "7c", "4c", "3s", "Jc"]
    assert {x["position"] for x in out["showdown"]} == {manion, labat, zhu}
    pots = None
    for state in hh:
        if any(p.amount for p in state.pots):
            pots = [(p.amount, set(p.player_indices)) for p in state.pots]
    # main pot: Zhu's 24,775,000 three times + 7 other antes + both blinds; side pot: Manion and Labat only
    assert pots == [(3 * 24_775_000 + 700_000 + 900_000, {manion, labat, zhu}),
                    (2 * (43_200_000 - 24_775_000), {manion, labat})]


def test_bb_ante_all_in_busts_the_big_blind():
    out = P.replay_phh((PHH_DIR / "wsop2023_e43_d5_0302_bb_ante_all_in.phh").read_text())
    assert out["finishing_stacks"][1] == 0
    names = {x["position"]: x["name"] for x in out["showdown"]}
    assert names == {1: "One pair", 4: "One pair"}  # nines lose to the turned aces


# ---------------------------------------------------------------------- export / import
def test_a_hand_played_here_exports_and_replays_exactly():
    cfg = P.RoomConfig(variant="NL", seats=6, small_blind=1_000, big_blind=2_000, ante=2_000, ante_mode="big_blind",
                       rake_ppm=50_000, rake_cap=4_000)
    stacks = [60_000, 45_000, 100_000, 30_000]
    deck = P.shuffled_deck(SeededRng(7))
    st = P.new_state(cfg, stacks, deck)
    log = [P.act(st, 2, "raise", 6_000), P.act(st, 3, "all_in"), P.act(st, 0, "call"), P.act(st, 1, "fold")]
    log.append(P.act(st, 2, "call"))
    while st.status:
        lg = P.legal(st)
        log.append(P.act(st, lg["player"], "check" if "check" in lg["actions"] else "call"))
    res = P.HandResult.of(st)
    text = P.to_phh(cfg, st, players=["a", "b", "c", "d"])
    out = P.replay_phh(text)
    assert out["matches"] and out["finishing_stacks"] == res.finishing_stacks
    assert out["rake"] == res.rake == 4_000  # 5% of the pot, capped
    assert P.rebuild(cfg, stacks, deck, log).stacks == res.finishing_stacks  # deck + actions rebuild the hand
    assert sum(res.net) == -res.rake


def test_shuffled_deck_is_a_permutation_from_the_rng():
    d1, d2 = P.shuffled_deck(SeededRng(1)), P.shuffled_deck(SeededRng(1))
    assert d1 == d2 and len(set(d1)) == 52 and d1 != P.shuffled_deck(SeededRng(2))


# ---------------------------------------------------------------------- fixed limit
FL = P.RoomConfig(variant="FL", seats=10, small_blind=10_000, big_blind=20_000, small_bet=20_000, big_bet=40_000,
                  min_buy_in=400_000, max_buy_in=4_000_000)


def test_fixed_limit_bet_sizes_and_the_cap():
    st = P.new_state(FL, [1_000_000] * 4, P.shuffled_deck(SeededRng(3)))
    # pre-flop: UTG raises to 40,000 (the blind counts as the bet), then 60,000, 80,000 = bet + three raises: capped
    assert P.legal(st)["min_raise_to"] == P.legal(st)["max_raise_to"] == 40_000
    P.act(st, 2, "raise")
    P.act(st, 3, "raise")
    P.act(st, 0, "raise")
    lg = P.legal(st)
    assert lg["player"] == 1 and "raise" not in lg["actions"] and lg["call"] == 80_000 - 20_000
    with pytest.raises(TableRuleError) as e:
        P.act(st, 1, "raise", 100_000)
    assert e.value.field == "action"
    for i in (1, 2, 3):
        P.act(st, i, "call")
    # flop: small bets; turn: big bets
    lg = P.legal(st)
    assert lg["bet_or_raise"] == "bet" and lg["min_raise_to"] == lg["max_raise_to"] == 20_000
    for _ in range(4):
        P.act(st, P.legal(st)["player"], "check")
    lg = P.legal(st)
    assert len(P.board(st)) == 4 and lg["min_raise_to"] == lg["max_raise_to"] == 40_000
    with pytest.raises(TableRuleError) as e:
        P.act(st, lg["player"], "bet", 30_000)
    assert e.value.field == "amount"
    # turn: a bet and three raises (40,000 ... 160,000), then only fold or call
    sizes = []
    while "bet" in P.legal(st)["actions"] or "raise" in P.legal(st)["actions"]:
        lg = P.legal(st)
        sizes.append(lg["min_raise_to"])
        P.act(st, lg["player"], lg["bet_or_raise"])
    assert sizes == [40_000, 80_000, 120_000, 160_000]
    assert P.legal(st)["actions"] == ["fold", "call"]


def test_fixed_limit_heads_up_raises_are_uncapped():
    st = P.new_state(FL, [2_000_000, 2_000_000], P.shuffled_deck(SeededRng(4)))
    raises = 0
    while "raise" in P.legal(st)["actions"] and raises < 12:
        P.act(st, P.legal(st)["player"], "raise")
        raises += 1
    assert raises == 12  # far beyond the bet-and-three-raises cap of a multiway pot
    assert max(st.bets) == 20_000 + 12 * 20_000
    text = P.to_phh(FL, st)  # in play: the export carries the heads-up rule
    assert "_heads_up_raises_uncapped = true" in text


def test_heads_up_fixed_limit_hand_replays_from_phh():
    st = P.new_state(FL, [2_000_000, 2_000_000], P.shuffled_deck(SeededRng(5)))
    for _ in range(6):
        P.act(st, P.legal(st)["player"], "raise")
    P.act(st, P.legal(st)["player"], "call")
    while st.status:
        lg = P.legal(st)
        P.act(st, lg["player"], "check" if "check" in lg["actions"] else "call")
    out = P.replay_phh(P.to_phh(FL, st))
    assert out["matches"] and out["finishing_stacks"] == list(st.stacks)


# ---------------------------------------------------------------------- split pots and odd chips
def test_odd_chip_goes_to_the_first_winner_left_of_the_button():
    cfg = P.RoomConfig(variant="NL", seats=9, small_blind=5, big_blind=10, min_buy_in=10, max_buy_in=10_000)
    # p1 SB folds; p2 (BB) and p3 (button) split a 25-won pot with the board's straight
    deck = stacked(["2c3d", "2h3s", "2d3c"], "5c6d7h8s9c")
    st = P.new_state(cfg, [1_000, 1_000, 1_000], deck)
    P.act(st, 2, "call")
    P.act(st, 0, "fold")
    P.act(st, 1, "check")
    while st.status:
        P.act(st, P.legal(st)["player"], "check")
    assert list(st.stacks) == [995, 1_000 - 10 + 13, 1_000 - 10 + 12]  # 25 = 13 + 12: the odd chip to the BB
    assert P.replay_phh(P.to_phh(cfg, st))["matches"]


def test_heads_up_odd_chip_goes_to_the_big_blind():
    cfg = P.RoomConfig(variant="NL", seats=2, small_blind=5, big_blind=10, ante=1, ante_mode="big_blind",
                       min_buy_in=10, max_buy_in=10_000)
    # heads-up pokerkit order: p1 = big blind, p2 = button/small blind; pot 10 + 10 + 1 dead ante = 21
    st = P.new_state(cfg, [1_000, 1_000], stacked(["2c3d", "2h3s"], "5c6d7h8s9c"))
    P.act(st, 1, "call")
    P.act(st, 0, "check")
    while st.status:
        P.act(st, P.legal(st)["player"], "check")
    assert list(st.stacks) == [1_000 - 11 + 11, 1_000 - 10 + 10]  # 21 = 11 (BB, left of the button) + 10


# ---------------------------------------------------------------------- rake
def _walk_to_river(cfg, stacks, bet_to):
    st = P.new_state(cfg, stacks, stacked(["AhAd", "KhKd"], "2c7d9s3hJc"))
    P.act(st, 1, "raise", bet_to)
    P.act(st, 0, "call")
    while st.status:
        P.act(st, P.legal(st)["player"], "check")
    return st


def test_rake_is_a_percentage_rounded_down_and_capped():
    base = dict(variant="NL", seats=2, small_blind=1_000, big_blind=2_000, min_buy_in=2_000, max_buy_in=10**9)
    st = _walk_to_river(P.RoomConfig(**base, rake_ppm=50_000), [1_000_000, 1_000_000], 123_457)
    pot = 2 * 123_457
    assert P.HandResult.of(st).rake == pot * 5 // 100 == 12_345  # 12,345.7 rounds down
    assert list(st.stacks) == [1_000_000 + 123_457 - 12_345, 1_000_000 - 123_457]
    capped = _walk_to_river(P.RoomConfig(**base, rake_ppm=50_000, rake_cap=3_000), [1_000_000, 1_000_000], 123_457)
    assert P.HandResult.of(capped).rake == 3_000
    free = _walk_to_river(P.RoomConfig(**base), [1_000_000, 1_000_000], 123_457)
    assert P.HandResult.of(free).rake == 0  # none by default


def test_no_flop_no_drop():
    cfg = P.RoomConfig(variant="NL", seats=2, small_blind=1_000, big_blind=2_000, min_buy_in=2_000,
                       max_buy_in=10**9, rake_ppm=100_000)
    st = P.new_state(cfg, [100_000, 100_000], P.shuffled_deck(SeededRng(9)))
    P.act(st, 1, "raise", 10_000)
    P.act(st, 0, "fold")
    assert P.HandResult.of(st).rake == 0 and list(st.stacks) == [98_000, 102_000]  # uncalled raise returned


# ---------------------------------------------------------------------- names
@pytest.mark.parametrize("hole, board, casino, korean", [
    ("AhKd", "QcJsTh2c3d", "Mountain", "마운틴"),
    ("Ah2d", "3c4s5h9cKd", "Back straight", "백스트레이트"),
    ("Ah2h", "3h4h5h9cKd", "Back straight flush", "백스트레이트 플러시"),
    ("AhKh", "QhJhTh9cKd", "Royal straight flush", "로열 스트레이트 플러시"),
    ("9h8d", "7c6s5h2cKd", "Straight", "스트레이트"),
    ("9h9d", "9c6s5h2cKd", "Three of a kind", "트리플"),
])
def test_korean_hand_names(hole, board, casino, korean):
    h = StandardHighHand.from_game(hole, board)
    names = P.hand_names(h.entry.label, h.cards)
    assert names["casino"] == casino and names["korean"] == korean
    assert names["name"] in ("Straight", "Straight flush", "Three of a kind")


def test_mountain_beats_back_straight():
    assert StandardHighHand.from_game("AhKd", "QcJsTh2c3d") > StandardHighHand.from_game("Ah2d", "3c4s5h9cKd")
    assert StandardHighHand.from_game("Ah2h", "3h4h5h9cKd").entry.label == Label.STRAIGHT_FLUSH


# ---------------------------------------------------------------------- refusals
def test_out_of_turn_and_illegal_amounts_are_refused_without_change():
    cfg = P.RoomConfig(variant="NL", seats=6, small_blind=1_000, big_blind=2_000)
    st = P.new_state(cfg, [100_000, 100_000, 100_000], P.shuffled_deck(SeededRng(11)))
    before = (list(st.stacks), list(st.bets), st.actor_index)
    for player, action, amount, field in [(0, "call", None, "seat"), (2, "raise", 3_000, "amount"),
                                          (2, "raise", 100_001, "amount"), (2, "check", None, "action"),
                                          (2, "call", 5_000, "amount"), (2, "raise", None, "amount")]:
        with pytest.raises(TableRuleError) as e:
            P.act(st, player, action, amount)
        assert e.value.field == field, (action, amount)
    assert (list(st.stacks), list(st.bets), st.actor_index) == before
    lg = P.legal(st)
    assert lg == {"player": 2, "actions": ["fold", "call", "raise"], "call": 2_000, "bet_or_raise": "raise",
                  "min_raise_to": 4_000, "max_raise_to": 100_000, "stack": 100_000, "bet": 0}


@pytest.mark.parametrize("rules, field", [
    ({"seats": 11}, "seats"), ({"seats": 1}, "seats"), ({"variant": "PL"}, "variant"),
    ({"variant": "FL"}, "small_bet"), ({"ante": 500}, "ante"), ({"ante_mode": "big_blind"}, "ante"),
    ({"min_buy_in": 500_000, "max_buy_in": 100_000}, "min_buy_in"), ({"rake_ppm": 200_000}, "rake_ppm"),
    ({"colour": "red"}, "rules"), ({"big_blind": 2_000.5}, "big_blind"),
])
def test_bad_rules_name_the_field(rules, field):
    with pytest.raises(TableRuleError) as e:
        P.RoomConfig.from_dict(rules)
    assert e.value.field == field


def test_not_a_phh_file():
    with pytest.raises(TableRuleError) as e:
        P.replay_phh("variant = 'NT'\nthis is not toml = = =")
    assert e.value.field == "phh"
    with pytest.raises(TableRuleError):
        P.replay_phh("variant = 'FR'\nantes = [0]\nbring_in = 1\nsmall_bet = 2\nbig_bet = 4\n"
                     "starting_stacks = [10, 10]\nactions = []\n")


# ---------------------------------------------------------------------- random play
def test_random_hands_rebuild_and_replay_exactly():
    """60 hands of random legal play (2-10 players, FL/NL, antes, rake): the stored deck + actions rebuild the
    hand, its PHH replays to the same stacks, chips are conserved up to the rake, and the rake never passes the cap."""
    for seed in range(60):
        r = random.Random(seed)
        fl = r.random() < 0.5
        mode = r.choice(["none", "each", "big_blind"])
        cfg = P.RoomConfig(variant="FL" if fl else "NL", seats=10, small_blind=500, big_blind=1_000,
                           small_bet=1_000 if fl else 0, big_bet=2_000 if fl else 0, ante=0 if mode == "none" else 300,
                           ante_mode=mode, min_buy_in=1_000, max_buy_in=10**7, rake_ppm=r.choice([0, 50_000]),
                           rake_cap=r.choice([0, 700]))
        stacks = [r.randint(1, 50_000) for _ in range(r.randint(2, 10))]
        deck = P.shuffled_deck(SeededRng(seed))
        st, log = P.new_state(cfg, stacks, deck), []
        while st.status:
            lg = P.legal(st)
            a = r.choice(lg["actions"] + ["all_in"])
            amount = r.randint(lg["min_raise_to"], lg["max_raise_to"]) if a in ("bet", "raise") else None
            try:
                log.append(P.act(st, lg["player"], a, amount))
            except TableRuleError:
                pass
        res = P.HandResult.of(st)
        assert P.rebuild(cfg, stacks, deck, log).stacks == res.finishing_stacks, seed
        out = P.replay_phh(P.to_phh(cfg, st))
        assert out["matches"] and out["finishing_stacks"] == res.finishing_stacks, seed
        assert sum(res.finishing_stacks) + res.rake == sum(stacks)
        assert 0 <= res.rake <= (cfg.rake_cap or res.rake)
