"""Mahjong scoring (pure): every yaku on the casino's list, fu edge cases, limit hands, payments, dora
indicators, bad input, the Korean rule set and the table settlement in points and won.

Every expectation below is computed BY HAND from the standard riichi rules, not by calling the library:

* fu (WRC 2022 rules §8 / EMA Riichi Competition Rules 2016 §4, identical here): 20 base; +10 closed ron;
  +2 tsumo (not with pinfu); triplets simple/terminal-honour: open 2/4, concealed 4/8, kans ×4 (open 8/16,
  closed 16/32); a value pair (dragon, seat or round wind) +2; kanchan, penchan, tanki +2; ryanmen, shanpon 0;
  rounded UP to 10; pinfu tsumo 20, chiitoitsu 25 (fixed); an open pinfu-shape ron 30.
* points: base = fu × 2^(han + 2); non-dealer ron 4 × base, dealer ron 6 × base, tsumo: each non-dealer pays
  base (dealer pays 2 × base), dealer tsumo 2 × base from each, every payment rounded UP to 100. Limits (base):
  mangan (5 han, or base > 2,000) 2,000; haneman (6-7) 3,000; baiman (8-10) 4,000; sanbaiman (11-12) 6,000;
  yakuman (13+ or a yakuman) 8,000; double yakuman 16,000. Honba: +300 a ron, +100 from each payer on a
  tsumo; riichi sticks 1,000 each to the winner.
* yaku han (closed / open) from the casino's page (seed 000 "파라다이스에서 사용하는 족보").

Unless a case says otherwise the winner sits South (non-dealer) in an East round, so 1z (East) is only the
round wind and 3z / 4z (West / North) are no value tiles.
"""

from __future__ import annotations

import pytest

from mahjong.hand_calculating.hand_config import HandConfig
from mahjong.hand_calculating.yaku_config import YakuConfig
from table_games.domain import mahjong as M
from table_games.domain.errors import TableRuleError

# base hand of many cases: 234m 567m 345p 999s 11p; a 4m completes the 23m ryanmen
# closed ron = 20 + 10 + 8 (concealed 999s) = 38 → 40 fu; tsumo = 20 + 2 + 8 = 30 fu
BASE = "234m567m345p999s11p"
PINFU = "234m567m345p678s99p"  # all sequences, non-value pair; 4m completes 23m (ryanmen)
CHIN = "111234567888m99m"  # chinitsu; 5m completes 67m (ryanmen); ron fu 20+10+8+4 = 42 → 50


def D(hand: str = "", win: str = "", **kw) -> dict:
    d = {"hand": hand, "win_tile": win, "seat_wind": "S", "round_wind": "E"}
    d.update(kw)
    return d


def meld(kind: str, tiles: str) -> dict:
    return {"type": kind, "tiles": tiles}


# (id, declaration, yaku keys expected (exactly), han, fu (None: not checked, limit hands), payments)
CASES = [
    # ---------------------------------------------------------------- 1 han
    ("riichi", D(BASE, "4m", riichi=True), {"riichi"}, 1, 40, {"discarder": 1300}),  # 4×320 = 1,280 → 1,300
    ("ippatsu", D(BASE, "4m", riichi=True, ippatsu=True), {"riichi", "ippatsu"}, 2, 40, {"discarder": 2600}),
    ("menzen tsumo", D(BASE, "4m", tsumo=True), {"menzen_tsumo"}, 1, 30,  # base 240 → 300 / 480 → 500
     {"dealer": 500, "non_dealer": 300}),
    ("pinfu ron (closed ron +10 = 30 fu)", D(PINFU, "4m"), {"pinfu"}, 1, 30, {"discarder": 1000}),
    ("pinfu tsumo 20 fu", D(PINFU, "4m", tsumo=True), {"pinfu", "menzen_tsumo"}, 2, 20,  # base 320
     {"dealer": 700, "non_dealer": 400}),
    ("iipeikou (kanchan 3m)", D("223344m567p678s99p", "3m"), {"iipeikou"}, 1, 40, {"discarder": 1300}),
    ("yakuhai haku", D("555z234m567p678s99s", "4m"), {"yakuhai_haku"}, 1, 40, {"discarder": 1300}),  # 20+10+8
    ("yakuhai hatsu", D("666z234m567p678s99s", "4m"), {"yakuhai_hatsu"}, 1, 40, {"discarder": 1300}),
    ("yakuhai chun", D("777z234m567p678s99s", "4m"), {"yakuhai_chun"}, 1, 40, {"discarder": 1300}),
    ("seat wind south", D("222z234m567p678s99s", "4m"), {"yakuhai_seat_south"}, 1, 40, {"discarder": 1300}),
    ("seat wind west", D("333z234m567p678s99s", "4m", seat_wind="W"), {"yakuhai_seat_west"}, 1, 40,
     {"discarder": 1300}),
    ("seat wind north", D("444z234m567p678s99s", "4m", seat_wind="N"), {"yakuhai_seat_north"}, 1, 40,
     {"discarder": 1300}),
    ("round wind east", D("111z234m567p678s99s", "4m"), {"yakuhai_round_east"}, 1, 40, {"discarder": 1300}),
    ("round wind south", D("222z234m567p678s99s", "4m", seat_wind="W", round_wind="S"), {"yakuhai_round_south"},
     1, 40, {"discarder": 1300}),
    ("double east (dealer, east round): 2 han", D("111z234m567p678s99s", "4m", seat_wind="E"),
     {"yakuhai_seat_east", "yakuhai_round_east"}, 2, 40, {"discarder": 3900}),  # 6×640 = 3,840 → 3,900
    ("tanyao", D("222m567m345p678s55p", "6s"), {"tanyao"}, 1, 40, {"discarder": 1300}),  # 20+10+4 = 34
    ("open tanyao (kuitan)", D("222m345p678s55p", "6s", melds=[meld("chi", "567m")]), {"tanyao"}, 1, 30,
     {"discarder": 1000}),  # 20 + 4 = 24 → 30
    ("haitei", D(BASE, "4m", tsumo=True, conditions=["haitei"]), {"menzen_tsumo", "haitei"}, 2, 30,
     {"dealer": 1000, "non_dealer": 500}),  # base 480 → 500 / 960 → 1,000
    ("houtei", D(BASE, "4m", conditions=["houtei"]), {"houtei"}, 1, 40, {"discarder": 1300}),
    ("rinshan (closed kan 9999s)", D("234m567m345p11p", "4m", tsumo=True, melds=[meld("closed_kan", "9999s")],
                                     conditions=["rinshan"]),
     {"menzen_tsumo", "rinshan"}, 2, 60, {"dealer": 2000, "non_dealer": 1000}),  # 20+2+32 = 54 → 60; base 960
    ("chankan", D(BASE, "4m", conditions=["chankan"]), {"chankan"}, 1, 40, {"discarder": 1300}),
    # ---------------------------------------------------------------- 2 han
    ("double riichi", D(BASE, "4m", double_riichi=True), {"double_riichi"}, 2, 40, {"discarder": 2600}),
    ("chiitoitsu 25 fu", D("1155m2299p3377s44z", "4z"), {"chiitoitsu"}, 2, 25, {"discarder": 1600}),
    ("sanshoku doujun closed (kanchan 5m)", D("123m123p123s456m99s", "5m"), {"sanshoku_doujun"}, 2, 40,
     {"discarder": 2600}),
    ("sanshoku doujun open: 1 han", D("123m123s456m99s", "5m", melds=[meld("chi", "123p")]), {"sanshoku_doujun"},
     1, 30, {"discarder": 1000}),
    ("ittsu closed", D("123456789m234p55s", "5m"), {"ittsu"}, 2, 40, {"discarder": 2600}),
    ("ittsu open: 1 han", D("123456m234p55s", "5m", melds=[meld("chi", "789m")]), {"ittsu"}, 1, 30,
     {"discarder": 1000}),
    ("chanta closed (penchan 3m)", D("123m789m123p789s44z", "3m"), {"chanta"}, 2, 40, {"discarder": 2600}),
    ("chanta open: 1 han", D("123m789m123p44z", "3m", melds=[meld("chi", "789s")]), {"chanta"}, 1, 30,
     {"discarder": 1000}),
    ("toitoi (shanpon ron on 9s)", D("555p777s999s11z", "9s", melds=[meld("pon", "222m")]), {"toitoi"}, 2, 40,
     {"discarder": 2600}),  # 20 + 2 + 4 + 4 + 4 (999s by ron) + 2 (round-wind pair) = 36 → 40
    ("sanankou (kanchan 3s)", D("222m555p777s234s99s", "3s"), {"sanankou"}, 2, 50, {"discarder": 3200}),
    ("shousangen (+ haku + hatsu = 4 han)", D("555z666z77z234m567p", "3m"), {"shousangen", "yakuhai_haku",
                                                                           "yakuhai_hatsu"}, 4, 50,
     {"discarder": 8000}),  # 20+10+8+8+2 (dragon pair)+2 (kanchan) = 50; base 3,200 > 2,000 → mangan
    ("honroutou + toitoi", D("999p111s444z99s", "4z", melds=[meld("pon", "111m")]), {"honroutou", "toitoi"}, 4, 50,
     {"discarder": 8000}),  # 20 + 4 + 8 + 8 + 4 = 44 → 50; 4 han 50 fu → mangan
    ("sanshoku doukou", D("222m222p345m99s", "4m", melds=[meld("pon", "222s")]), {"sanshoku_doukou"}, 2, 40,
     {"discarder": 2600}),  # 20 + 2 + 4 + 4 + 2 (kanchan) = 32 → 40
    ("sankantsu", D("567m99p", "6m", melds=[meld("kan", "2222m"), meld("added_kan", "3333p"),
                                           meld("closed_kan", "4444s")]),
     {"sankantsu"}, 2, 60, {"discarder": 3900}),  # 20 + 8 + 8 + 16 + 2 = 54 → 60; 4×960 = 3,840 → 3,900
    # ---------------------------------------------------------------- 3 han
    ("ryanpeikou", D("112233m667788p55s", "2m"), {"ryanpeikou"}, 3, 40, {"discarder": 5200}),  # 4×1,280
    ("honitsu closed", D("234m567m999m444z33z", "4m"), {"honitsu"}, 3, 50, {"discarder": 6400}),  # 20+10+8+8=46
    ("honitsu open: 2 han", D("234m567m999m33z", "4m", melds=[meld("pon", "444z")]), {"honitsu"}, 2, 40,
     {"discarder": 2600}),  # 20 + 4 + 8 = 32 → 40
    ("junchan closed", D("123m789m123p789s99p", "3m"), {"junchan"}, 3, 40, {"discarder": 5200}),
    ("junchan open: 2 han", D("123m789m123p99p", "3m", melds=[meld("chi", "789s")]), {"junchan"}, 2, 30,
     {"discarder": 2000}),  # 4 × 480 = 1,920 → 2,000
    # ---------------------------------------------------------------- mangan specials (page: 만관)
    ("renhou = mangan", D(BASE, "4m", conditions=["renhou"]), {"renhou"}, 5, None, {"discarder": 8000}),
    ("nagashi mangan (non-dealer)", D(conditions=["nagashi_mangan"]), {"nagashi_mangan"}, 5, None,
     {"dealer": 4000, "non_dealer": 2000}),
    ("nagashi mangan (dealer)", D(conditions=["nagashi_mangan"], seat_wind="E"), {"nagashi_mangan"}, 5, None,
     {"each": 4000}),
    # ---------------------------------------------------------------- 6 han
    ("chinitsu closed: haneman", D(CHIN, "5m"), {"chinitsu"}, 6, None, {"discarder": 12000}),
    ("chinitsu open: 5 han mangan", D("111234567m99m", "5m", melds=[meld("pon", "888m")]), {"chinitsu"}, 5, None,
     {"discarder": 8000}),
    # ---------------------------------------------------------------- yakuman (page: 역만; double where it says)
    ("suuankou (tsumo on shanpon)", D("111m333p555s777m22p", "1m", tsumo=True), {"suuankou"}, 13, None,
     {"dealer": 16000, "non_dealer": 8000}),
    ("suuankou tanki: double", D("111m333p555s777m22p", "2p"), {"suuankou_tanki"}, 26, None, {"discarder": 64000}),
    ("kokushi", D("19m19p19s1234567z1m", "9m"), {"kokushi"}, 13, None, {"discarder": 32000}),
    ("kokushi 13-sided wait: double", D("19m19p19s1234567z1m", "1m"), {"kokushi_13_wait"}, 26, None,
     {"discarder": 64000}),
    ("chuuren", D("11123455678999m", "2m"), {"chuuren"}, 13, None, {"discarder": 32000}),
    ("chuuren 9-sided wait: double", D("11123455678999m", "5m"), {"chuuren_9_wait"}, 26, None,
     {"discarder": 64000}),
    ("tenhou (dealer)", D(BASE, "4m", tsumo=True, seat_wind="E", conditions=["tenhou"]), {"tenhou"}, 13, None,
     {"each": 16000}),
    ("chiihou (non-dealer)", D(BASE, "4m", tsumo=True, conditions=["chiihou"]), {"chiihou"}, 13, None,
     {"dealer": 16000, "non_dealer": 8000}),
    ("daisangen", D("555z666z777z234m11p", "3m"), {"daisangen"}, 13, None, {"discarder": 32000}),
    ("shousuushii", D("111z222z333z44z234m", "3m"), {"shousuushii"}, 13, None, {"discarder": 32000}),
    ("daisuushii: double", D("333z444z55m", "5m", melds=[meld("pon", "111z"), meld("pon", "222z")]),
     {"daisuushii"}, 26, None, {"discarder": 64000}),
    ("tsuuiisou", D("555z777z66z", "6z", melds=[meld("pon", "111z"), meld("pon", "222z")]), {"tsuuiisou"}, 13,
     None, {"discarder": 32000}),
    ("chinroutou", D("111p999p11s", "1s", melds=[meld("pon", "111m"), meld("pon", "999m")]), {"chinroutou"}, 13,
     None, {"discarder": 32000}),
    ("ryuuiisou", D("223344s666s888s66z", "3s"), {"ryuuiisou"}, 13, None, {"discarder": 32000}),
    ("suukantsu", D("55s", "5s", melds=[meld("kan", "2222p"), meld("kan", "3333s"), meld("added_kan", "4444m"),
                                        meld("closed_kan", "7777p")]), {"suukantsu"}, 13, None, {"discarder": 32000}),
]


@pytest.mark.parametrize("name,decl,yaku,han,fu,payments", CASES, ids=[c[0] for c in CASES])
def test_scoring_case(name, decl, yaku, han, fu, payments):
    s = M.score_hand(decl)
    assert {y["key"] for y in s.yaku} == yaku
    assert s.han == han
    if fu is not None:
        assert s.fu == fu
    assert s.payments == payments
    for y in s.yaku:  # every yaku is named in Korean, Japanese and English
        assert y["ko"] and y["ja"] and y["en"]


def test_every_yaku_on_the_casinos_list_has_a_scoring_case():
    covered = set().union(*(c[2] for c in CASES))
    assert set(M.CASINO_YAKU) <= covered, set(M.CASINO_YAKU) - covered


def test_the_pages_han_values_are_the_rules_we_score_with():
    """The page's han (closed / open) for each yaku on its list = the han the configured rules give it."""
    lib = {M.YAKU_NAMES[type(y).__name__][0]: y for y in vars(YakuConfig()).values()
           if type(y).__name__ in M.YAKU_NAMES}
    for key, (_ko, closed, opened) in M.CASINO_YAKU.items():
        y = lib[key]
        assert y.han_closed == closed, key
        if opened is not None:
            assert y.han_open == opened, key
        else:  # closed-only (or the page gives it no open value)
            assert not y.han_open or key in ("nagashi_mangan",), key


def test_korean_names_are_the_pages():
    assert M.score_hand(D(BASE, "4m", riichi=True)).yaku[0]["ko"] == "리치"
    assert M.score_hand(D("567m99p", "6m", melds=[meld("kan", "2222m"), meld("kan", "3333p"),
                                                 meld("closed_kan", "4444s")])).yaku[0]["ko"] == "삼공자"


# ------------------------------------------------------------------------------------------- fu edge cases
@pytest.mark.parametrize("hand,win,fu,points", [
    (PINFU, "4m", 30, 2000),   # riichi + pinfu, ryanmen: 20 + 10 → 30; 2 han 30 fu = 4 × 480 → 2,000
    (PINFU, "3m", 40, 1300),   # kanchan 2_4: no pinfu; 20 + 10 + 2 = 32 → 40; riichi only
    ("123m567m345p678s99p", "3m", 40, 1300),  # penchan 12_3: 32 → 40
    (PINFU, "9p", 40, 1300),   # tanki on 9p: 32 → 40
])
def test_waits(hand, win, fu, points):
    s = M.score_hand(D(hand, win, riichi=True))
    assert (s.fu, s.payments["discarder"]) == (fu, points)


def test_closed_ron_bonus_and_tsumo_fu():
    ron, tsumo = M.score_hand(D(BASE, "4m", riichi=True)), M.score_hand(D(BASE, "4m", riichi=True, tsumo=True))
    # the closed ron's +10 shows as a base of 30 (20 + 10); a tsumo keeps 20 and adds 2
    assert {d["reason"]: d["fu"] for d in ron.fu_details} == {"base": 30, "closed_terminal_pon": 8}
    assert {d["reason"]: d["fu"] for d in tsumo.fu_details} == {"base": 20, "closed_terminal_pon": 8, "tsumo": 2}
    assert (ron.fu, tsumo.fu) == (40, 30)  # 20+10+8 = 38 → 40; 20+2+8 = 30


def test_open_vs_closed_same_tiles():
    closed = M.score_hand(D("222m567m345p678s55p", "6s"))  # tanyao: 20 + 10 + 4 = 34 → 40
    opened = M.score_hand(D("222m345p678s55p", "6s", melds=[meld("chi", "567m")]))  # 20 + 4 = 24 → 30
    assert (closed.fu, opened.fu) == (40, 30)
    assert (closed.payments["discarder"], opened.payments["discarder"]) == (1300, 1000)


def test_open_pinfu_shape_ron_is_30_fu():
    s = M.score_hand(D("567m345p678s55p", "6s", melds=[meld("chi", "234m")]))  # kuitan, ryanmen, no fu: 30
    assert (s.han, s.fu, s.payments["discarder"]) == (1, 30, 1000)


def test_chiitoitsu_tsumo_25_fu():
    s = M.score_hand(D("1155m2299p3377s44z", "4z", tsumo=True))  # 3 han 25 fu: base 800
    assert (s.han, s.fu, s.payments) == (3, 25, {"dealer": 1600, "non_dealer": 800})
    dealer = M.score_hand(D("1155m2299p3377s44z", "4z", seat_wind="E"))  # 6 × 400 = 2,400
    assert dealer.payments == {"discarder": 2400}


# ------------------------------------------------------------------------------------------- limit hands
def test_limits_mangan_to_kazoe():
    mangan = M.score_hand(D("111234567m99m", "5m", melds=[meld("pon", "888m")]))
    haneman = M.score_hand(D(CHIN, "5m"))
    baiman = M.score_hand(D(CHIN, "5m", riichi=True, ippatsu=True))  # 6 + 1 + 1 = 8
    sanbaiman = M.score_hand(D(CHIN, "5m", riichi=True, ippatsu=True, tsumo=True, dora_indicators="8m"))  # 9 + 2 = 11
    kazoe = M.score_hand(D(CHIN, "5m", riichi=True, ippatsu=True, tsumo=True, dora_indicators="9m",
                           ura_dora_indicators="7m"))  # 9 + 3 (1m) + 3 (8m) = 15
    assert [h.limit["key"] for h in (mangan, haneman, baiman, sanbaiman, kazoe)] == \
        ["mangan", "haneman", "baiman", "sanbaiman", "kazoe_yakuman"]
    assert (baiman.han, baiman.payments) == (8, {"discarder": 16000})
    assert (sanbaiman.han, sanbaiman.payments) == (11, {"dealer": 12000, "non_dealer": 6000})
    assert (kazoe.han, kazoe.payments, kazoe.total) == (15, {"dealer": 16000, "non_dealer": 8000}, 32000)
    assert mangan.limit["ko"] == "만관" and kazoe.limit["ja"] == "数え役満"


def test_four_han_forty_fu_is_mangan_and_double_yakuman_named():
    s = M.score_hand(D("111z234m567p678s99s", "4m", dora_indicators="4z"))  # round east 1 + dora 3 = 4 han 40 fu
    assert (s.han, s.fu, s.limit["key"], s.payments["discarder"]) == (4, 40, "mangan", 8000)
    d = M.score_hand(D("111m333p555s777m22p", "2p"))
    assert (d.limit["key"], d.limit["ko"], d.yakuman) == ("double_yakuman", "더블 역만", 2)


@pytest.mark.parametrize("decl,payments", [
    (D(CHIN, "5m", seat_wind="E", dora_indicators="", ura_dora_indicators="")
     | {"hand": "111234567m99m", "melds": [meld("pon", "888m")]}, {"discarder": 12000}),  # dealer mangan ron
    (D("111234567m99m", "5m", seat_wind="E", tsumo=True, melds=[meld("pon", "888m")]), {"each": 4000}),
    (D("111234567m99m", "5m", tsumo=True, melds=[meld("pon", "888m")]), {"dealer": 4000, "non_dealer": 2000}),
    (D(CHIN, "5m", seat_wind="E"), {"discarder": 18000}),  # dealer haneman ron
    (D("555z666z777z234m11p", "3m", seat_wind="E"), {"discarder": 48000}),  # dealer yakuman ron
    (D("555z666z777z234m11p", "3m", seat_wind="E", tsumo=True), {"each": 16000}),
    (D(PINFU, "4m", seat_wind="E"), {"discarder": 1500}),  # dealer 1 han 30 fu: 6 × 240 = 1,440 → 1,500
    (D(PINFU, "4m", seat_wind="E", tsumo=True), {"each": 700}),  # dealer pinfu tsumo: 2 × 320 = 640 → 700
])
def test_payment_tables(decl, payments):
    assert M.score_hand(decl).payments == payments


def test_honba_and_riichi_sticks():
    ron = M.score_hand(D(PINFU, "4m", honba=2, riichi_sticks=1))  # 1,000 + 600; +1,000 stick
    assert (ron.payments, ron.honba_points, ron.sticks, ron.total) == ({"discarder": 1600}, 600, 1000, 2600)
    tsumo = M.score_hand(D(PINFU, "4m", tsumo=True, honba=2, riichi_sticks=2))  # 400+200 / 700+200
    assert tsumo.payments == {"dealer": 900, "non_dealer": 600}
    assert (tsumo.honba_points, tsumo.sticks, tsumo.total) == (600, 2000, 900 + 2 * 600 + 2000)
    dealer = M.score_hand(D(PINFU, "4m", tsumo=True, seat_wind="E", honba=1))
    assert dealer.payments == {"each": 800}


# ------------------------------------------------------------------------------------------- dora
@pytest.mark.parametrize("indicator,dora", [("1m", "2m"), ("9m", "1m"), ("9p", "1p"), ("9s", "1s"), ("1z", "2z"),
                                            ("4z", "1z"), ("5z", "6z"), ("7z", "5z")])
def test_indicator_to_dora(indicator, dora):
    t = M.parse_tiles(indicator, "x", aka=False)[0]
    assert M.tile_name(M.dora_of(t.kind)) == dora


def test_dora_counts_through_indicators_with_honour_wrap():
    s = M.score_hand(D(BASE, "4m", riichi=True, dora_indicators="9p"))  # 1p ×2: riichi 1 + 2 = 3 han 40 fu
    assert (s.han, s.payments["discarder"], s.dora) == (3, 5200, ["1p"])
    haku = M.score_hand(D("555z234m567p678s99s", "4m", dora_indicators="7z"))  # red → white ×3: 1 + 3 = 4 han
    assert (haku.han, haku.payments["discarder"]) == (4, 8000)


def test_ura_dora_only_with_riichi():
    with_riichi = M.score_hand(D(BASE, "4m", riichi=True, ura_dora_indicators="8s"))  # 9s ×3: 1 + 3 = 4 han 40 fu
    assert (with_riichi.han, with_riichi.payments["discarder"]) == (4, 8000)
    with pytest.raises(TableRuleError) as e:  # no riichi: no ura-dora is turned over, so none may be sent
        M.score_hand(D(BASE, "4m", tsumo=True, ura_dora_indicators="8s"))
    assert e.value.field == "ura_dora_indicators" and "riichi" in e.value.detail


def test_aka_dora_when_on():
    rules = M.RiichiRules(aka_dora=True)
    s = M.score_hand(D("234m067m345p999s11p", "4m", riichi=True), rules)  # riichi 1 + red five 1 = 2 han 40 fu
    assert (s.han, s.payments["discarder"]) == (2, 2600)
    with pytest.raises(TableRuleError) as e:
        M.score_hand(D("234m067m345p999s11p", "4m", riichi=True))
    assert e.value.field == "hand"


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("decl,field,text", [
    (D("23m567m345p999s11p", "3m"), "hand", "13"),  # 13 tiles
    (D("2234m567m345p999s11p", "4m"), "hand", "15"),  # 15 tiles
    (D("11111m567m345p99s1p", "1m"), "hand", "five 1m"),  # five of a tile
    (D(BASE, "4m", riichi=True, dora_indicators="9s", ura_dora_indicators="9s"), "ura_dora_indicators",
     "five 9s"),  # 3 in the hand + 2 indicators
    (D("234x567m345p999s11p", "4m"), "hand", "notation"),
    (D("234m567m345p999s18z", "4m"), "hand", "notation"),  # 8z does not exist
    (D(BASE, "8m"), "win_tile", "not in the concealed hand"),
    (D(BASE, "46m"), "win_tile", "one tile"),
    (D("234m567m345p11p", "4m", melds=[meld("chi", "135s")]), "melds[0]", "chi"),
    (D("234m567m345p11p", "4m", melds=[meld("pon", "123s")]), "melds[0]", "pon"),
    (D("234m567m345p11p", "4m", melds=[meld("kan", "999s")]), "melds[0]", "kan"),
    (D("234m567m345p11p", "4m", melds=[meld("chi", "123z")]), "melds[0]", "chi"),
    (D("234m567m345p999s12p", "4m"), "hand", "not a winning hand"),
    (D("234m567m345p999s11p", "4m"), "hand", "without yaku"),  # complete, but no yaku under riichi rules
    (D("234m567m345p11p", "4m", riichi=True, melds=[meld("pon", "999s")]), "riichi", "closed"),
    (D(BASE, "4m", ippatsu=True), "ippatsu", "riichi"),
    (D(BASE, "4m", conditions=["haitei"]), "conditions", "tsumo"),
    (D(BASE, "4m", tsumo=True, conditions=["tenhou"]), "conditions", "dealer"),
    (D(BASE, "4m", tsumo=True, seat_wind="E", conditions=["chiihou"]), "conditions", "non-dealer"),
    (D(BASE, "4m", conditions=["lucky"]), "conditions", "unknown"),
    (D(BASE, "4m", riichi=True, dora_indicators="1m2m"), "dora_indicators", "at most 1"),
    (D(BASE, "4m", seat_wind="X"), "seat_wind", "E, S, W, N"),
    (D(BASE, "4m", honba=-1), "honba", "integer"),
])
def test_bad_input_names_the_field(decl, field, text):
    with pytest.raises(TableRuleError) as e:
        M.score_hand(decl)
    assert e.value.field == field
    assert text in e.value.detail


# ------------------------------------------------------------------------------------------- Korean rule set
K = M.KoreanRules()


def test_korean_win_needs_no_yaku():
    s = M.score_hand(D(BASE, "4m"), K)  # no yaku: refused under riichi rules (above), 1 point here
    assert (s.rule_set, s.points, s.payments, s.han) == ("korean", 1, {"discarder": 1}, None)


def test_korean_riichi_adds_two_points_and_tsumo_is_paid_by_three():
    s = M.score_hand(D(BASE, "4m", riichi=True, tsumo=True), K)
    assert (s.points, s.payments, s.total) == (3, {"each": 3}, 9)
    assert [i["key"] for i in s.yaku] == ["win", "riichi"]


def test_korean_schedule_is_configuration():
    rules = M.rules_from_dict({"rule_set": "korean", "win_points": 2, "dora_points": 1})
    s = M.score_hand(D(BASE, "4m", dora_indicators="9p"), rules)  # 2 + 2 dora (1p ×2)
    assert s.points == 4


@pytest.mark.parametrize("decl,field", [
    (D("1155m2299p3377s44z", "4z"), "hand"),  # seven pairs: not one pair and four sets
    (D("234m567m345p999s12p", "4m"), "hand"),
    (D(BASE, "4m", honba=1), "honba"),
    (D(BASE, "4m", conditions=["houtei"]), "conditions"),
])
def test_korean_refusals(decl, field):
    with pytest.raises(TableRuleError) as e:
        M.score_hand(decl, K)
    assert e.value.field == field


def test_rules_from_dict_refuses_unknown():
    with pytest.raises(TableRuleError) as e:
        M.rules_from_dict({"rule_set": "riichi", "akadora": True})
    assert e.value.field == "rules.akadora" and "aka_dora" in e.value.detail  # names it, lists the known ones
    with pytest.raises(TableRuleError) as e:
        M.rules_from_dict({"rule_set": "hongkong"})
    assert e.value.field == "rules.rule_set"


# ------------------------------------------------------------------------------------------- seats and won
def test_seat_points_ron_and_tsumo():
    ron = M.score_hand(D("111234567m99m", "5m", seat_wind="E", melds=[meld("pon", "888m")]))  # dealer 12,000
    assert M.seat_points(ron, "E", "E", "S") == {"E": 12000, "S": -12000, "W": 0, "N": 0}
    ts = M.score_hand(D("111234567m99m", "5m", tsumo=True, melds=[meld("pon", "888m")]))  # W wins, dealer N
    assert M.seat_wind("W", "N") == "N"  # N deals (East): E is South, S is West, W is North
    assert M.seat_points(ts, "W", "N", None) == {"E": -2000, "S": -2000, "W": 8000, "N": -4000}
    with pytest.raises(TableRuleError):
        M.seat_points(ron, "E", "E", "E")


def test_settle_hand_in_won_with_fee_and_sticks():
    ron = M.score_hand(D("111234567m99m", "5m", seat_wind="E", riichi_sticks=3,
                         melds=[meld("pon", "888m")]))
    # E (dealer) wins 12,000 from S; sticks: N declared this hand (1) + 2 carried in the pot
    st = M.settle_hand(ron, winner="E", dealer="E", discarder="S", riichi_seats=("N",), pot_sticks=2,
                       point_value=10, fee_ppm=50_000, fee_unit=100)
    assert st.points == {"E": 15000, "S": -12000, "W": 0, "N": -1000}
    assert st.take == 120_000 and st.fee == 6_000  # 5% of ₩120,000
    assert st.won == {"E": 144_000, "S": -120_000, "W": 0, "N": -10_000}
    assert sum(st.won.values()) + st.fee == st.pot_won == 20_000


def test_fee_rounds_up_to_the_unit():
    s = M.score_hand(D(PINFU, "4m"))  # 1,000 points
    st = M.settle_hand(s, winner="S", dealer="E", discarder="W", point_value=7, fee_ppm=33_000, fee_unit=100)
    # take ₩7,000; 3.3% = ₩231 → ₩300 (rounded UP to the ₩100 unit)
    assert (st.take, st.fee, st.won["S"]) == (7_000, 300, 6_700)


# ------------------------------------------------------------------------------------------- rule options
# Published examples: the library's own tests (MahjongRepository/mahjong, tests/hand_calculating/
# tests_yakuman_calculation.py: daisharin, daichisei, sashikomi, paarenchan, renhou yakuman, sextuple limit) and
# the standard scoring table (base = fu × 2^(han + 2), non-dealer ron 4 × base, dealer ron 6 ×, rounded up to 100).
R = M.rules_from_dict
FOUR_WIND_KANS = [meld("closed_kan", t) for t in ("1111z", "2222z", "3333z", "4444z")]


def test_every_optional_rule_of_the_library_is_a_table_option():
    """Each OptionalRules parameter (but the three-player one) maps to a RiichiRules option, and turning that
    option away from its default changes the library's field: nothing of the scoring is out of reach."""
    import inspect

    from mahjong.hand_calculating.hand_config import OptionalRules

    params = [p for p in inspect.signature(OptionalRules.__init__).parameters if p != "self"]
    base = M.RiichiRules().options()
    flip = {"kazoe": "none"}
    for p in params:
        if p == "is_three_player":
            with pytest.raises(TableRuleError) as e:
                R({p: True})
            assert e.value.field == f"rules.{p}" and "four seats" in e.value.detail
            continue
        name = M.RULE_ALIASES.get(p, p)
        default = getattr(M.RiichiRules(), name)
        changed = {name: flip.get(name, not default)}
        if name == "sashikomi_yakuman":
            changed["open_riichi"] = True
        assert getattr(R(changed).options(), p) != getattr(base, p), p
        assert R({p: changed[name], **{k: v for k, v in changed.items() if k != name}}) == R(changed)  # the alias


def test_every_hand_config_flag_is_reachable_from_a_declaration():
    """HandConfig's situational parameters ↔ where a declaration (or the table's rules) sets them."""
    import inspect

    reach = {"is_tsumo": "tsumo", "is_riichi": "riichi", "is_ippatsu": "ippatsu", "is_daburu_riichi": "double_riichi",
             "is_open_riichi": "open_riichi", "is_rinshan": "rinshan", "is_chankan": "chankan", "is_haitei": "haitei",
             "is_houtei": "houtei", "is_nagashi_mangan": "nagashi_mangan", "is_tenhou": "tenhou",
             "is_renhou": "renhou", "is_chiihou": "chiihou", "player_wind": "seat_wind", "round_wind": "round_wind",
             "kyoutaku_number": "riichi_sticks", "tsumi_number": "honba", "paarenchan": "paarenchan",
             "options": "rules", "num_nuki_dora": None}  # nuki dora: three-player only, not offered
    params = {p for p in inspect.signature(HandConfig.__init__).parameters if p != "self"}
    assert params == set(reach)
    fields_ = set(M.Declaration.__dataclass_fields__) | set(M.CONDITIONS) | {"rules"}
    assert {v for v in reach.values() if v} <= fields_


def test_rule_values_are_validated_and_named():
    for bad, field in [({"kiriage": "yes"}, "rules.kiriage"), ({"kazoe": "sometimes"}, "rules.kazoe"),
                       ({"nagashi_payment": "ron"}, "rules.nagashi_payment"),
                       ({"sashikomi_yakuman": True}, "rules.sashikomi_yakuman"),  # needs open riichi
                       ({"daisharin": False, "daisharin_other_suits": True}, "rules.daisharin_other_suits"),
                       ({"has_open_tanyao": True, "open_tanyao": True}, "rules.has_open_tanyao"),
                       ({"num_nuki_dora": 1}, "rules.num_nuki_dora"),
                       ({"kazoe": [1]}, "rules.kazoe"), ({"rule_set": [1]}, "rules.rule_set"),  # not hashable
                       ({"rule_set": "korean", "kiriage": True}, "rules.kiriage")]:
        with pytest.raises(TableRuleError) as e:
            R(bad)
        assert e.value.field == field, bad
    assert R({"kazoe_limit": 1}).kazoe == "sanbaiman"  # the library's constant is accepted
    assert R({"daisharin_other_suits": True}).daisharin is True  # implies daisharin, as in the library
    r = R({"kiriage": True, "open_riichi": True, "sashikomi_yakuman": True, "nagashi_payment": "draw"})
    assert R(r.to_dict()) == r  # what a table stores reads back the same


def test_casino_defaults():
    r = M.RiichiRules()
    assert (r.renhou_yakuman, r.nagashi_mangan, r.nagashi_payment, r.double_yakuman) == (False, True, "tsumo", True)


def test_kiriage_rounds_4_han_30_fu_to_mangan():
    # riichi + pinfu + tanyao + dora (indicator 1m → 2m) = 4 han 30 fu: 4 × 1,920 = 7,680 → 7,700; kiriage: 8,000
    d = D("234m567m345p678s55p", "4m", riichi=True, dora_indicators="1m")
    assert M.score_hand(d).payments == {"discarder": 7700}
    s = M.score_hand(d, R({"kiriage": True}))
    assert (s.payments, s.limit["key"]) == ({"discarder": 8000}, "mangan")


def test_pinfu_fu_options():
    # open pinfu shape ron: 30 fu by default (1,000); without fu_for_open_pinfu 1 han 20 fu: 4 × 160 → 700
    d = D("567m345p678s55p", "6s", melds=[meld("chi", "234m")])
    assert M.score_hand(d, R({"fu_for_open_pinfu": False})).payments == {"discarder": 700}
    # pinfu tsumo with the tsumo 2 fu: 22 → 30 fu, and no longer pinfu: menzen tsumo 1 han 30 fu = 300 / 500
    s = M.score_hand(D(PINFU, "4m", tsumo=True), R({"fu_for_pinfu_tsumo": True}))
    assert ({y["key"] for y in s.yaku}, s.fu, s.payments) == ({"menzen_tsumo"}, 30, {"dealer": 500, "non_dealer": 300})


def test_open_tanyao_off_refuses_kuitan_and_double_yakuman_off():
    with pytest.raises(TableRuleError) as e:
        M.score_hand(D("222m345p678s55p", "6s", melds=[meld("chi", "567m")]), R({"open_tanyao": False}))
    assert e.value.field == "hand" and "without yaku" in e.value.detail
    s = M.score_hand(D("111m333p555s777m22p", "2p"), R({"double_yakuman": False}))  # suuankou tanki: single
    assert (s.han, s.payments) == (13, {"discarder": 32000})


def test_kazoe_sanbaiman():
    d = D(CHIN, "5m", riichi=True, ippatsu=True, tsumo=True, dora_indicators="9m", ura_dora_indicators="7m")
    s = M.score_hand(d, R({"kazoe": "sanbaiman"}))  # 15 han capped at sanbaiman: 6,000 base
    assert (s.limit["key"], s.payments) == ("sanbaiman", {"dealer": 12000, "non_dealer": 6000})


@pytest.mark.parametrize("hand,win,rules,key,ko", [
    ("22334455667788p", "8p", {"daisharin": True}, "daisharin", "대차륜"),  # library: test_is_daisharin
    ("22334455667788s", "8s", {"daisharin_other_suits": True}, "daichikurin", "대죽림"),  # test_is_daichikurin
    ("22334455667788m", "8m", {"daisharin_other_suits": True}, "daisuurin", "대수린"),  # test_is_daisuurin
])
def test_daisharin_family(hand, win, rules, key, ko):
    s = M.score_hand(D(hand, win), R(rules))
    assert ([y["key"] for y in s.yaku], [y["ko"] for y in s.yaku], s.han) == ([key], [ko], 13)
    plain = M.score_hand(D(hand, win))  # off: chiitoitsu + tanyao + chinitsu (+ ...) = 11 han, per the library
    assert plain.han == 11 and key not in {y["key"] for y in plain.yaku}


def test_daichisei():
    # library test_is_tsuisou_and_daichisei: seven honour pairs = tsuuiisou + daichisei, 26 han
    s = M.score_hand(D("11223344556677z", "7z"), R({"daichisei": True}))
    assert ({y["key"] for y in s.yaku}, s.han, s.payments) == ({"tsuuiisou", "daichisei"}, 26, {"discarder": 64000})
    assert M.score_hand(D("11223344556677z", "7z")).han == 13


def test_open_riichi_and_sashikomi():
    # library test_is_open_riichi_sashikomi: 123444s 234456m 66p ron on 4s with an open riichi
    d = D("123444s234456m66p", "4s", riichi=True, open_riichi=True)
    with pytest.raises(TableRuleError) as e:
        M.score_hand(d)  # the casino does not play open riichi
    assert e.value.field == "open_riichi"
    s = M.score_hand(d, R({"open_riichi": True}))  # open riichi 2 han; 20 + 10 + 2 (444s by ron) = 32 → 40 fu
    assert ([y["key"] for y in s.yaku], s.han, s.fu, s.payments) == (["open_riichi"], 2, 40, {"discarder": 2600})
    s = M.score_hand(d, R({"open_riichi": True, "sashikomi_yakuman": True}))  # dealt into: yakuman
    assert ([y["key"] for y in s.yaku], s.han, s.payments) == (["sashikomi"], 13, {"discarder": 32000})
    with pytest.raises(TableRuleError) as e:
        M.score_hand(D(BASE, "4m", open_riichi=True), R({"open_riichi": True}))
    assert e.value.field == "open_riichi" and "riichi" in e.value.detail


def test_renhou_as_yakuman_option():
    # library test_is_renhou_yakuman; the casino's default counts it as mangan (5 han, 8,000 from the discarder)
    d = D("123444s234456m66p", "4s", conditions=["renhou"])
    assert M.score_hand(d).payments == {"discarder": 8000}
    s = M.score_hand(d, R({"renhou_yakuman": True}))
    assert (s.yaku[0]["key"], s.yaku[0]["ko"], s.han, s.payments) == ("renhou_yakuman", "인화 (역만)", 13,
                                                                       {"discarder": 32000})


def test_paarenchan():
    on = R({"paarenchan": True})
    # library test_paarenchan: suuankou tsumo + paarenchan = 26 han; ×4 = 65 han (5x yakuman, base 40,000)
    d = D("111222777p44455s", "7p", tsumo=True, seat_wind="E", paarenchan=1)
    assert (M.score_hand(d, on).han, M.score_hand(d, on).payments) == (26, {"each": 32000})
    assert M.score_hand(d | {"paarenchan": 4}, on).payments == {"each": 80000}
    for decl, rules, field in [(d, None, "paarenchan"),  # not counted at the casino's table
                               (d | {"seat_wind": "S"}, on, "paarenchan")]:  # the dealer's streak only
        with pytest.raises(TableRuleError) as e:
            M.score_hand(decl, rules)
        assert e.value.field == field
    # library test_paarenchan_no_yaku_*: a hand without yaku needs paarenchan_needs_yaku off
    plain = D("12367778p678s456m", "7p", seat_wind="E", paarenchan=1)
    with pytest.raises(TableRuleError) as e:
        M.score_hand(plain, on)
    assert e.value.field == "hand"
    s = M.score_hand(plain, R({"paarenchan": True, "paarenchan_needs_yaku": False}))
    assert (s.han, s.payments) == (13, {"discarder": 48000})  # dealer yakuman ron


def test_sextuple_yakuman_limit():
    # four closed wind kans + 5z tanki: suukantsu 13 + tsuuiisou 13 + daisuushii 26 + suuankou tanki 26 = 78,
    # + paarenchan 13 = 91 han. Capped at six yakuman: base 48,000 × 6 (dealer ron) = 288,000; uncapped the
    # library adds 8,000 base per 13 han past 78: 56,000 × 6 = 336,000 (as its test_septuple_yakuman_enabled)
    d = D("55z", "5z", seat_wind="E", paarenchan=1, melds=FOUR_WIND_KANS)
    assert M.score_hand(d, R({"paarenchan": True})).payments == {"discarder": 288000}
    s = M.score_hand(d, R({"paarenchan": True, "limit_to_sextuple_yakuman": False}))
    assert (s.han, s.payments) == (91, {"discarder": 336000})


def test_aotenjou_removes_the_limits():
    # closed chinitsu ron, 6 han 50 fu: haneman 12,000; aotenjou: 4 × 50 × 2^8 = 51,200
    s = M.score_hand(D(CHIN, "5m"), R({"aotenjou": True}))
    assert (s.han, s.fu, s.payments, s.limit) == (6, 50, {"discarder": 51200}, None)


# ------------------------------------------------------------------------------------------- names
def test_every_library_yaku_has_korean_japanese_and_english_names():
    import inspect

    import mahjong.hand_calculating.yaku_list as plain
    import mahjong.hand_calculating.yaku_list.yakuman as yakuman
    from mahjong.hand_calculating.yaku import Yaku

    classes = {c for mod in (plain, yakuman) for c in vars(mod).values()
               if inspect.isclass(c) and issubclass(c, Yaku) and c is not Yaku}
    assert len(classes) >= 63
    instances = [c() for c in classes]
    dai = yakuman.Daisharin()
    for setter in (dai.set_man, dai.set_sou, dai.set_pin):
        setter()
        instances.append(yakuman.Daisharin())
        instances[-1].name = dai.name
    keys = set()
    for y in instances:
        key, ko, ja, en = M.yaku_names(y)
        assert type(y).__name__ in M.YAKU_NAMES or y.name in M.YAKU_NAMES, type(y).__name__
        assert ko and ja and en and key and ko != y.name, type(y).__name__
        assert any("\uac00" <= ch <= "\ud7a3" for ch in ko), (type(y).__name__, ko)  # Hangul
        keys.add(key)
    assert len(keys) == len(M.YAKU_NAMES)  # one key per name entry, none shared


# ------------------------------------------------------------------------------------------- seats
def test_tenhou_and_chiihou_without_a_seat_wind_are_scored_for_the_right_seat():
    # library test_is_tenhou / test_is_chiihou hand; the library pays tenhou as a non-dealer when no seat wind is
    # given (its test_sextuple_yakuman: 96,000 / 48,000); here tenhou is the dealer's: 16,000 from each
    base = {"hand": "123444s234456m66p", "win_tile": "4s", "tsumo": True}
    s = M.score_hand(base | {"conditions": ["tenhou"]})
    assert (s.payments, s.dealer, s.declaration["seat_wind"]) == ({"each": 16000}, True, "E")
    s = M.score_hand(base | {"conditions": ["chiihou"]})
    assert (s.payments, s.dealer) == ({"dealer": 16000, "non_dealer": 8000}, False)
    s = M.score_hand({"hand": "11122233344455z", "win_tile": "5z", "tsumo": True, "conditions": ["tenhou"]})
    assert (s.han, s.payments) == (78, {"each": 96000})  # six yakuman for the dealer: 2 × 48,000 from each


def test_seat_wind_from_the_seating():
    base = {"hand": "123444s234456m66p", "win_tile": "4s", "tsumo": True}
    assert M.score_hand(base | {"conditions": ["tenhou"]}, winner="N", dealer="N").payments == {"each": 16000}
    s = M.score_hand(base | {"conditions": ["chiihou"]}, winner="E", dealer="N")  # E sits South
    assert (s.declaration["seat_wind"], s.payments) == ("S", {"dealer": 16000, "non_dealer": 8000})
    for kw, decl, field in [({"winner": "S", "dealer": "E"}, {"conditions": ["tenhou"]}, "conditions"),
                            ({"winner": "W", "dealer": "W"}, {"conditions": ["chiihou"]}, "conditions"),
                            ({"winner": "S", "dealer": "E"}, {"seat_wind": "W"}, "seat_wind"),
                            ({"winner": "S"}, {}, "dealer")]:
        with pytest.raises(TableRuleError) as e:
            M.score_hand(base | decl, **kw)
        assert e.value.field == field, (kw, decl)


def test_renhou_without_a_seat_needs_one_only_when_the_seat_changes_the_score():
    assert M.score_hand(D(BASE, "4m", conditions=["renhou"]) | {"seat_wind": None}).payments == {"discarder": 8000}
    windy = {"hand": "234m567m345p222z11p", "win_tile": "4m", "conditions": ["renhou"]}  # a South triplet
    with pytest.raises(TableRuleError) as e:
        M.score_hand(windy)
    assert e.value.field == "seat_wind"
    assert M.score_hand(windy | {"seat_wind": "S"}).han == 6  # renhou 5 + seat wind south 1: haneman
    assert M.score_hand(windy | {"seat_wind": "W"}).han == 5


def test_no_riichi_before_a_first_discard():
    with pytest.raises(TableRuleError) as e:
        M.score_hand(D(BASE, "4m", tsumo=True, riichi=True, seat_wind="E", conditions=["tenhou"]))
    assert e.value.field == "conditions"


@pytest.mark.parametrize("kind,dealer,winner,tenpai,nxt", [
    ("win", "E", "E", False, "E"), ("win", "E", "S", False, "S"), ("win", "N", "W", False, "E"),
    ("draw", "S", None, True, "S"), ("draw", "S", None, False, "W"),
])
def test_next_dealer_renchan(kind, dealer, winner, tenpai, nxt):
    assert M.next_dealer(kind, dealer, winner, tenpai) == nxt


# ------------------------------------------------------------------------------------------- dora, shape
def test_dora_indicators_one_plus_kans_up_to_five():
    two_kans = D("234m567m11p", "4m", riichi=True, melds=[meld("closed_kan", "9999s"), meld("closed_kan", "5555p")])
    # riichi 1; indicators 1m 2m 3m → dora 2m 3m 4m = 3: 4 han; fu 20+10+32+16 = 78 → 80: mangan
    s = M.score_hand(two_kans | {"dora_indicators": "1m2m3m"})
    assert (s.han, s.dora, s.payments) == (4, ["2m", "3m", "4m"], {"discarder": 8000})
    with pytest.raises(TableRuleError) as e:
        M.score_hand(two_kans | {"dora_indicators": "1m2m3m6m"})
    assert e.value.field == "dora_indicators" and "at most 3" in e.value.detail
    four = D("55s", "5s", melds=[meld("kan", "2222p"), meld("kan", "3333s"), meld("added_kan", "4444m"),
                                 meld("closed_kan", "7777p")], dora_indicators="1m2m3m6m7m")
    assert M.score_hand(four).yakuman == 1  # suukantsu with five indicators turned over
    with pytest.raises(TableRuleError) as e:
        M.score_hand(two_kans | {"dora_indicators": "1m", "ura_dora_indicators": "2m3m"})
    assert e.value.field == "ura_dora_indicators"


def test_not_a_winning_hand_is_refused_as_such_whatever_the_win_tile():
    for win in ("9m", "1p", "4m", ""):
        with pytest.raises(TableRuleError) as e:
            M.score_hand(D("234m567m345p999s12p", win))
        assert (e.value.field, e.value.detail.startswith("not a winning hand")) == ("hand", True), win


# ------------------------------------------------------------------------------------------- nagashi mangan
def test_nagashi_mangan_payment_forms():
    d = D(conditions=["nagashi_mangan"], honba=2, riichi_sticks=1)
    tsumo = M.score_hand(d)  # default: a tsumo mangan with the honba (100 a payer each) and the stick
    assert (tsumo.payments, tsumo.sticks, tsumo.payment_form) == ({"dealer": 4200, "non_dealer": 2200}, 1000,
                                                                  "nagashi_tsumo")
    draw = M.score_hand(d, R({"nagashi_payment": "draw"}))  # the hand stays a draw: no honba, the stick stays
    assert (draw.payments, draw.sticks, draw.honba_points, draw.payment_form) == \
        ({"dealer": 4000, "non_dealer": 2000}, 0, 0, "nagashi_draw")
    st = M.settle_hand(draw, winner="S", dealer="E", discarder=None, riichi_seats=("W",), pot_sticks=2,
                       point_value=10)
    # E pays 4,000, N 2,000, W 2,000 + a stick that goes to the pot; the 2 carried sticks stay there
    assert st.points == {"E": -4000, "S": 8000, "W": -3000, "N": -2000}
    assert (st.pot_won, st.sticks_to_pot, st.to_pot_won) == (0, 1, 10_000)
    assert sum(st.won.values()) + st.fee == st.pot_won - st.to_pot_won
    with pytest.raises(TableRuleError):
        M.score_hand(D(conditions=["nagashi_mangan"]), R({"nagashi_mangan": False}))
