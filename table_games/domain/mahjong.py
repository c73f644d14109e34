"""Mahjong hand scoring (pure): riichi scoring through the ``mahjong`` library (2.1) with the casino's yaku list,
and the casino page's Korean mahjong as a second rule set.

We never count han, fu or yaku ourselves: :func:`score_hand` validates the declared win (tile notation, tile
counts, melds, win tile, winds, dora indicators, conditions), builds the library's ``HandConfig`` /
``OptionalRules`` from the table's :class:`RiichiRules`, calls ``HandCalculator.estimate_hand_value`` and turns
its answer into the casino's terms: the yaku with Korean (the page's names), Japanese and English names, the
limit name, and the payments by role. :func:`seat_points` turns those payments into points per seat (E/S/W/N)
for the table's settlement.

**Notation** (standard "mpsz"): digits then a suit letter, e.g. ``123m456p789s11z``; ``m`` characters (만수),
``p`` circles (통수), ``s`` bamboo (삭수), ``z`` honours 1-7 = East, South, West, North, White (백), Green (발),
Red (중); ``0m`` / ``0p`` / ``0s`` are red fives (only at a table with aka dora on).

**A declared win** (:class:`Declaration`; units: tiles as notation strings, counters as ints):

* ``hand``: the concealed tiles **including the win tile**; ``melds``: called / declared sets, each
  ``{"type": "chi" | "pon" | "kan" (open, 대명깡) | "added_kan" (소명깡) | "closed_kan" (안깡), "tiles": "234m"}``.
  Tile count: concealed tiles + 3 per meld = 14 (a kan counts as 3 here, its 4th tile is the replacement).
* ``win_tile`` (one tile, in ``hand``), ``tsumo`` (else ron), ``riichi`` / ``double_riichi`` / ``ippatsu`` /
  ``open_riichi`` (a riichi declared face up; only where the table plays it), ``paarenchan`` (0-6: the dealer's
  eighth consecutive win, counted as that many yakuman; only where the table counts it),
  ``seat_wind`` / ``round_wind`` (``E S W N``; the dealer is the East seat), ``dora_indicators`` /
  ``ura_dora_indicators`` (INDICATORS as on the wall; the dora is the next tile: 9 → 1 in a suit,
  E → S → W → N → E, White → Green → Red → White; 1 + one per kan declared, at most 5; ura-dora only on a riichi
  win, one under each dora indicator), ``honba`` (300 points per honba on a ron, 100 per payer on
  a tsumo), ``riichi_sticks`` (1,000 points each, to the winner), ``conditions`` ⊆ ``haitei houtei rinshan
  chankan tenhou chiihou renhou nagashi_mangan``.
* **The seat wind** is, in order: the seating (``winner`` and ``dealer`` seats given to :func:`score_hand`; a
  ``seat_wind`` that contradicts it is refused), the declaration's ``seat_wind``, the conditions (tenhou: the
  dealer, E; chiihou / renhou: a non-dealer — scored for S, W and N and refused only if the three differ, i.e.
  a seat-wind triplet), else E. Tenhou is the dealer's, chiihou and renhou a non-dealer's: a contradiction is
  422 ``conditions`` (the library would pay a tenhou without a seat wind as a non-dealer's).

**Payment forms** (``Score.payment_form``): ``ron`` — the discarder pays everything (4 × base, the dealer 6 ×);
``tsumo`` — a non-dealer winner takes 2 × base from the dealer and 1 × from each other, the dealer 2 × from
each; every limit hand (mangan to six yakuman, kazoe, renhou, tenhou, chiihou, sashikomi, paarenchan) is paid in
the form of its win (renhou and sashikomi are always a ron, tenhou and chiihou a tsumo). Nagashi mangan (no
win tile) follows ``rules.nagashi_payment``: ``nagashi_tsumo`` (default) — a tsumo mangan with the honba and the
riichi sticks, as the library pays it; ``nagashi_draw`` — the same mangan but the hand stays a draw: no honba,
and the riichi sticks stay in the table's pot (this hand's join them). Aotenjou (``rules.aotenjou``) has no
limits and no honba or stick bonus.

**The casino's rules** (seed page "Mahjong", 파라다이스 족보 list) mapped to the library's ``OptionalRules``:
renhou counts as **mangan** (a 5-han yaku, ``renhou_as_yakuman=False``: it adds to other yaku); nagashi mangan
**on** (a mangan paid as a tsumo, no tiles needed); **double yakuman** (``has_double_yakuman=True``) exactly
where the page says: suuankou tanki, kokushi 13-sided wait, pure chuuren 9-sided wait, daisuushii (the
library gives these four 26 han and no other hand); suukantsu, tenhou, chiihou etc. single yakuman. Where the
page is silent we follow the standard (WRC/Tenhou-like) rule, configurable per table: open tanyao allowed
(the page gives tanyao no closed-hand condition, unlike the yaku it marks 비멘젠), no kiriage mangan, kazoe
yakuman at 13+ han (``kazoe``), aka dora off (``aka_dora``), and none of the local yakuman the page does not
list (daisharin, daichisei, sashikomi, paarenchan, open riichi all off). Every other ``OptionalRules`` field is a
table option (:class:`RiichiRules`; the library's names are accepted as aliases). Double wind pairs/triplets:
2 han (the page's 연풍패), the library's rule.

**Korean mahjong** (:class:`KoreanRules`): the page says a win needs one pair and four sets ("머리 1개와 몸통
4개") and **no yaku**, and a win after a riichi declaration adds **2 points** ("리치 선언 후 승리하면 +2점").
The page gives no other schedule, so ours is configuration with these defaults (our choice): a win is worth
``win_points`` = 1 point, + ``riichi_points`` = 2 after riichi (double riichi counts as riichi), +
``dora_points`` = 0 per dora (off); on a ron the discarder pays the points, on a tsumo each of the three others
pays them; no dealer premium, no honba, no riichi sticks, no special conditions (refused with 422 if sent);
seven pairs and thirteen orphans are not a Korean win (not four sets and a pair). The points are converted to
won by the table like riichi points.

Errors: :class:`~table_games.domain.errors.TableRuleError` (422) naming the field: ``hand`` (malformed
notation, a red five with aka dora off, wrong tile count, a fifth copy of a tile, not a winning hand, no yaku),
``melds[i]`` (type unknown, tiles that are not that meld), ``win_tile`` (not one tile, not in the hand — checked
after the shape, so an incomplete hand is always "not a winning hand"), ``seat_wind`` (contradicts the seating,
or needed) / ``round_wind``, ``dora_indicators`` / ``ura_dora_indicators`` (more than the kans allow, ura
without riichi), ``riichi`` / ``double_riichi`` / ``ippatsu`` (with an open hand, ippatsu without riichi),
``open_riichi`` / ``paarenchan`` (off at the table, without riichi, not the dealer), ``conditions`` (unknown,
contradicting tsumo/ron or each other or riichi, tenhou for a non-dealer, chiihou / renhou for the dealer,
nagashi mangan off or with tiles), ``honba`` / ``riichi_sticks`` (not an integer 0-100; Korean: not zero),
``rules.<option>`` (unknown option, bad value, three-player rules; ``rules.rule_set`` unknown), and from
:func:`seat_points` / :func:`settle_hand`: ``winner`` / ``dealer`` / ``discarder`` /
``riichi_seats`` (not a seat, a ron without another seat's discarder, a tsumo with one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from mahjong.constants import EAST, NORTH, SOUTH, WEST
from mahjong.agari import Agari
from mahjong.hand_calculating.divider import HandDivider
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.hand_calculating.scores import Aotenjou, ScoresCalculator
from mahjong.meld import Meld

from slotsys.kernel.money import commission_ceil
from table_games.domain.errors import TableRuleError

SEATS = ("E", "S", "W", "N")  # table seats in turn order (counter-clockwise)
WIND_TILE = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}  # 34-index of the wind tiles (27..30)
CONDITIONS = ("haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou", "renhou", "nagashi_mangan")
MELD_TYPES = ("chi", "pon", "kan", "added_kan", "closed_kan")
STICK_POINTS = 1_000  # a riichi stick
MAX_COUNTER = 100  # honba / riichi sticks bound (far above any real table)
MAX_INDICATORS = 5  # dora indicators: 1 + one per kan, at most 5
MAX_PAARENCHAN = 6  # paarenchan yakuman count (the library caps a hand at six yakuman)

_NOTATION = re.compile(r"^(?:[0-9]+[mps]|[1-7]+z)+$")
_GROUP = re.compile(r"([0-9]+)([mpsz])")
_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27}

# --------------------------------------------------------------------------------------------- names
# library class name → (key, Korean (the page's name where it has one), Japanese, English)
YAKU_NAMES: dict[str, tuple[str, str, str, str]] = {
    "Tsumo": ("menzen_tsumo", "멘젠쯔모", "門前清自摸和", "Fully concealed self-draw"),
    "Riichi": ("riichi", "리치", "立直", "Riichi"),
    "Ippatsu": ("ippatsu", "일발", "一発", "Ippatsu (one-shot)"),
    "Chankan": ("chankan", "창깡", "搶槓", "Robbing a kan"),
    "Rinshan": ("rinshan", "영상개화", "嶺上開花", "After a kan"),
    "Haitei": ("haitei", "해저로월", "海底撈月", "Last tile self-draw"),
    "Houtei": ("houtei", "하저로어", "河底撈魚", "Last discard"),
    "DaburuRiichi": ("double_riichi", "더블 리치", "ダブル立直", "Double riichi"),
    "NagashiMangan": ("nagashi_mangan", "유국만관", "流し満貫", "Nagashi mangan"),
    "Renhou": ("renhou", "인화", "人和", "Blessing of man"),
    "Pinfu": ("pinfu", "핑후", "平和", "Pinfu (all sequences)"),
    "Tanyao": ("tanyao", "탕야오", "断幺九", "All simples"),
    "Iipeiko": ("iipeikou", "이페코", "一盃口", "Pure double sequence"),
    "Haku": ("yakuhai_haku", "역패 (백)", "役牌 白", "Dragon triplet: white"),
    "Hatsu": ("yakuhai_hatsu", "역패 (발)", "役牌 發", "Dragon triplet: green"),
    "Chun": ("yakuhai_chun", "역패 (중)", "役牌 中", "Dragon triplet: red"),
    "SeatWindEast": ("yakuhai_seat_east", "역패 (자풍 동)", "自風 東", "Seat wind: east"),
    "SeatWindSouth": ("yakuhai_seat_south", "역패 (자풍 남)", "自風 南", "Seat wind: south"),
    "SeatWindWest": ("yakuhai_seat_west", "역패 (자풍 서)", "自風 西", "Seat wind: west"),
    "SeatWindNorth": ("yakuhai_seat_north", "역패 (자풍 북)", "自風 北", "Seat wind: north"),
    "RoundWindEast": ("yakuhai_round_east", "역패 (장풍 동)", "場風 東", "Round wind: east"),
    "RoundWindSouth": ("yakuhai_round_south", "역패 (장풍 남)", "場風 南", "Round wind: south"),
    "RoundWindWest": ("yakuhai_round_west", "역패 (장풍 서)", "場風 西", "Round wind: west"),
    "RoundWindNorth": ("yakuhai_round_north", "역패 (장풍 북)", "場風 北", "Round wind: north"),
    "Sanshoku": ("sanshoku_doujun", "삼색동순", "三色同順", "Mixed triple sequence"),
    "Ittsu": ("ittsu", "일기통관", "一気通貫", "Pure straight"),
    "Chantai": ("chanta", "찬타", "混全帯幺九", "Half outside hand"),
    "Honroto": ("honroutou", "혼노두", "混老頭", "All terminals and honours"),
    "Toitoi": ("toitoi", "또이또이", "対々和", "All triplets"),
    "Sanankou": ("sanankou", "삼암각", "三暗刻", "Three concealed triplets"),
    "SanKantsu": ("sankantsu", "삼공자", "三槓子", "Three kans"),
    "SanshokuDoukou": ("sanshoku_doukou", "삼색동각", "三色同刻", "Triple triplets"),
    "Chiitoitsu": ("chiitoitsu", "치또이쯔", "七対子", "Seven pairs"),
    "Shosangen": ("shousangen", "소삼원", "小三元", "Little three dragons"),
    "Honitsu": ("honitsu", "혼일색", "混一色", "Half flush"),
    "Junchan": ("junchan", "준짱", "純全帯幺九", "Fully outside hand"),
    "Ryanpeikou": ("ryanpeikou", "량페코", "二盃口", "Twice pure double sequence"),
    "Chinitsu": ("chinitsu", "청일색", "清一色", "Full flush"),
    "KokushiMusou": ("kokushi", "국사무쌍", "国士無双", "Thirteen orphans"),
    "DaburuKokushiMusou": ("kokushi_13_wait", "국사무쌍 13면 대기", "国士無双十三面待ち", "Thirteen orphans, 13-sided wait"),
    "ChuurenPoutou": ("chuuren", "구련보등", "九蓮宝燈", "Nine gates"),
    "DaburuChuurenPoutou": ("chuuren_9_wait", "구련보등 9면 대기", "純正九蓮宝燈", "Pure nine gates, 9-sided wait"),
    "Suuankou": ("suuankou", "사암각", "四暗刻", "Four concealed triplets"),
    "SuuankouTanki": ("suuankou_tanki", "사암각 단기", "四暗刻単騎", "Four concealed triplets, pair wait"),
    "Daisangen": ("daisangen", "대삼원", "大三元", "Big three dragons"),
    "Shousuushii": ("shousuushii", "소사희", "小四喜", "Little four winds"),
    "DaiSuushii": ("daisuushii", "대사희", "大四喜", "Big four winds"),
    "Tsuuiisou": ("tsuuiisou", "자일색", "字一色", "All honours"),
    "Chinroutou": ("chinroutou", "청노두", "清老頭", "All terminals"),
    "Ryuuiisou": ("ryuuiisou", "녹일색", "緑一色", "All green"),
    "Suukantsu": ("suukantsu", "사공자", "四槓子", "Four kans"),
    "Tenhou": ("tenhou", "천화", "天和", "Blessing of heaven"),
    "Chiihou": ("chiihou", "지화", "地和", "Blessing of earth"),
    "OpenRiichi": ("open_riichi", "오픈 리치", "オープン立直", "Open riichi"),
    "DaburuOpenRiichi": ("double_open_riichi", "더블 오픈 리치", "ダブルオープン立直", "Double open riichi"),
    "Sashikomi": ("sashikomi", "오픈 리치 방총", "差し込み", "Dealing into an open riichi"),
    "Paarenchan": ("paarenchan", "팔연장", "八連荘", "Eight consecutive dealer wins"),
    "RenhouYakuman": ("renhou_yakuman", "인화 (역만)", "人和 (役満)", "Blessing of man (yakuman)"),
    "Daichisei": ("daichisei", "대칠성", "大七星", "Big seven stars (seven honour pairs)"),
    # Daisharin is one library class renamed by suit (``Yaku.name``): pin, man, sou
    "Daisharin": ("daisharin", "대차륜", "大車輪", "Big wheels (2-8 pairs in circles)"),
    "Daisuurin": ("daisuurin", "대수린", "大数隣", "Big neighbours (2-8 pairs in characters)"),
    "Daichikurin": ("daichikurin", "대죽림", "大竹林", "Big bamboo forest (2-8 pairs in bamboo)"),
    "Dora": ("dora", "도라", "ドラ", "Dora"),
    "AkaDora": ("aka_dora", "적도라", "赤ドラ", "Red five"),
    "UraDora": ("ura_dora", "우라도라", "裏ドラ", "Ura-dora"),
}

# The casino's list (seed page 000, "파라다이스에서 사용하는 족보"): key → (Korean name, han closed, han open or
# None when the yaku needs a closed hand / does not apply open). Yakuman are 13 han, double yakuman 26;
# renhou and nagashi mangan are the page's "만관" (mangan = 5 han).
CASINO_YAKU: dict[str, tuple[str, int, int | None]] = {
    "riichi": ("리치", 1, None), "ippatsu": ("일발", 1, None), "menzen_tsumo": ("멘젠쯔모", 1, None),
    "pinfu": ("핑후", 1, None), "iipeikou": ("이페코", 1, None),
    "double_riichi": ("더블 리치", 2, None), "chiitoitsu": ("치또이쯔", 2, None),
    "sanshoku_doujun": ("삼색동순", 2, 1), "ittsu": ("일기통관", 2, 1), "chanta": ("찬타", 2, 1),
    "ryanpeikou": ("량페코", 3, None), "honitsu": ("혼일색", 3, 2), "junchan": ("준짱", 3, 2),
    "renhou": ("인화", 5, None), "nagashi_mangan": ("유국만관", 5, 5),
    "chinitsu": ("청일색", 6, 5),
    "suuankou": ("사암각", 13, None), "suuankou_tanki": ("사암각 단기", 26, None),
    "kokushi": ("국사무쌍", 13, None), "kokushi_13_wait": ("국사무쌍 13면 대기", 26, None),
    "chuuren": ("구련보등", 13, None), "chuuren_9_wait": ("구련보등 9면 대기", 26, None),
    "tenhou": ("천화", 13, None), "chiihou": ("지화", 13, None), "daisangen": ("대삼원", 13, 13),
    "shousuushii": ("소사희", 13, 13), "daisuushii": ("대사희", 26, 26), "tsuuiisou": ("자일색", 13, 13),
    "chinroutou": ("청노두", 13, 13), "ryuuiisou": ("녹일색", 13, 13), "suukantsu": ("사공자", 13, 13),
    # 역패: dragons, seat wind, round wind (a double wind counts both: 2 han)
    "yakuhai_haku": ("역패 (백)", 1, 1), "yakuhai_hatsu": ("역패 (발)", 1, 1), "yakuhai_chun": ("역패 (중)", 1, 1),
    "yakuhai_seat_east": ("역패 (자풍 동)", 1, 1), "yakuhai_seat_south": ("역패 (자풍 남)", 1, 1),
    "yakuhai_seat_west": ("역패 (자풍 서)", 1, 1), "yakuhai_seat_north": ("역패 (자풍 북)", 1, 1),
    "yakuhai_round_east": ("역패 (장풍 동)", 1, 1), "yakuhai_round_south": ("역패 (장풍 남)", 1, 1),
    "tanyao": ("탕야오", 1, 1), "haitei": ("해저로월", 1, 1), "houtei": ("하저로어", 1, 1),
    "rinshan": ("영상개화", 1, 1), "chankan": ("창깡", 1, 1),
    "toitoi": ("또이또이", 2, 2), "sanankou": ("삼암각", 2, 2), "shousangen": ("소삼원", 2, 2),
    "honroutou": ("혼노두", 2, 2), "sanshoku_doukou": ("삼색동각", 2, 2), "sankantsu": ("삼공자", 2, 2),
}

# library yaku_level → (key, Korean, Japanese, English)
LIMITS: dict[str, tuple[str, str, str, str]] = {
    "mangan": ("mangan", "만관", "満貫", "Mangan"),
    "nagashi mangan": ("mangan", "만관", "満貫", "Mangan"),
    "kiriage mangan": ("mangan", "만관", "満貫", "Mangan"),
    "haneman": ("haneman", "하네만", "跳満", "Haneman"),
    "baiman": ("baiman", "배만", "倍満", "Baiman"),
    "sanbaiman": ("sanbaiman", "삼배만", "三倍満", "Sanbaiman"),
    "kazoe sanbaiman": ("sanbaiman", "삼배만", "三倍満", "Sanbaiman"),
    "kazoe yakuman": ("kazoe_yakuman", "헤아림 역만", "数え役満", "Counted yakuman"),
    "yakuman": ("yakuman", "역만", "役満", "Yakuman"),
    "2x yakuman": ("double_yakuman", "더블 역만", "ダブル役満", "Double yakuman"),
    "3x yakuman": ("triple_yakuman", "트리플 역만", "トリプル役満", "Triple yakuman"),
    "4x yakuman": ("quadruple_yakuman", "4배 역만", "四倍役満", "Quadruple yakuman"),
    "5x yakuman": ("quintuple_yakuman", "5배 역만", "五倍役満", "Quintuple yakuman"),
    "6x yakuman": ("sextuple_yakuman", "6배 역만", "六倍役満", "Sextuple yakuman"),
}

KAZOE = {"yakuman": HandConstants.KAZOE_LIMITED, "sanbaiman": HandConstants.KAZOE_SANBAIMAN,
         "none": HandConstants.KAZOE_NO_LIMIT}
NAGASHI_PAYMENTS = ("tsumo", "draw")

# the library's OptionalRules names accepted as aliases of our option names (stored under ours)
RULE_ALIASES = {"has_open_tanyao": "open_tanyao", "has_aka_dora": "aka_dora", "has_double_yakuman": "double_yakuman",
                "kazoe_limit": "kazoe", "renhou_as_yakuman": "renhou_yakuman", "has_daisharin": "daisharin",
                "has_daisharin_other_suits": "daisharin_other_suits", "has_daichisei": "daichisei",
                "has_sashikomi_yakuman": "sashikomi_yakuman"}
_NOT_OFFERED = {"is_three_player": "three-player rules are not offered: a table has four seats",
                "num_nuki_dora": "nuki dora is a three-player rule: a table has four seats"}


# --------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class RiichiRules:
    """The casino's riichi rules: every scoring option of the ``mahjong`` library's ``OptionalRules`` (and its
    aotenjou scorer) plus the table switches for the situational yaku a casino may or may not play.

    Defaults = the casino's rule set (seed page; see the module docstring). Option → library field:
    ``open_tanyao`` → has_open_tanyao; ``aka_dora`` → has_aka_dora; ``double_yakuman`` → has_double_yakuman;
    ``kazoe`` (yakuman | sanbaiman | none) → kazoe_limit; ``kiriage``; ``fu_for_open_pinfu``;
    ``fu_for_pinfu_tsumo``; ``renhou_yakuman`` → renhou_as_yakuman; ``daisharin`` → has_daisharin;
    ``daisharin_other_suits`` → has_daisharin_other_suits (daisuurin, daichikurin; implies daisharin);
    ``daichisei`` → has_daichisei; ``sashikomi_yakuman`` → has_sashikomi_yakuman (needs open riichi);
    ``limit_to_sextuple_yakuman``; ``paarenchan_needs_yaku``; ``aotenjou`` → the ``Aotenjou`` scorer (no limits,
    no honba or riichi-stick bonus). Table switches (no library field): ``nagashi_mangan`` (the draw is scored),
    ``nagashi_payment`` (``tsumo``: a tsumo mangan with the honba and the riichi sticks on the table, as the
    library pays it; ``draw``: the same mangan but the hand stays a draw — no honba paid, the riichi sticks stay
    in the pot), ``open_riichi`` (open riichi is played), ``paarenchan`` (the dealer's eighth consecutive win
    is counted). Three-player rules (``is_three_player``, nuki dora) are not offered: tables have four seats."""

    open_tanyao: bool = True
    aka_dora: bool = False
    double_yakuman: bool = True  # page: suuankou tanki, kokushi 13-wait, chuuren 9-wait, daisuushii
    kazoe: str = "yakuman"  # 13+ han without a yakuman: yakuman | sanbaiman | none (no cap)
    kiriage: bool = False
    fu_for_open_pinfu: bool = True  # an open pinfu-shape ron is 30 fu (else 1 han 20 fu is possible)
    fu_for_pinfu_tsumo: bool = False  # pinfu tsumo is 20 fu (True: +2 tsumo fu)
    renhou_yakuman: bool = False  # page: 인화 = mangan
    daisharin: bool = False
    daisharin_other_suits: bool = False
    daichisei: bool = False
    sashikomi_yakuman: bool = False
    limit_to_sextuple_yakuman: bool = True
    paarenchan_needs_yaku: bool = True
    nagashi_mangan: bool = True  # page: 유국만관 on
    nagashi_payment: str = "tsumo"
    open_riichi: bool = False
    paarenchan: bool = False
    aotenjou: bool = False

    rule_set = "riichi"

    def options(self) -> OptionalRules:
        return OptionalRules(has_open_tanyao=self.open_tanyao, has_aka_dora=self.aka_dora,
                             has_double_yakuman=self.double_yakuman, kazoe_limit=KAZOE[self.kazoe],
                             kiriage=self.kiriage, fu_for_open_pinfu=self.fu_for_open_pinfu,
                             fu_for_pinfu_tsumo=self.fu_for_pinfu_tsumo, renhou_as_yakuman=self.renhou_yakuman,
                             has_daisharin=self.daisharin, has_daisharin_other_suits=self.daisharin_other_suits,
                             has_daichisei=self.daichisei, has_sashikomi_yakuman=self.sashikomi_yakuman,
                             limit_to_sextuple_yakuman=self.limit_to_sextuple_yakuman,
                             paarenchan_needs_yaku=self.paarenchan_needs_yaku)

    def scorer(self) -> type[ScoresCalculator]:
        return Aotenjou if self.aotenjou else ScoresCalculator

    def to_dict(self) -> dict:
        return {"rule_set": "riichi", **{f.name: getattr(self, f.name) for f in fields(self)}}


@dataclass(frozen=True)
class KoreanRules:
    """Korean mahjong's point schedule (page: +2 after riichi; the rest is our configurable choice)."""

    win_points: int = 1
    riichi_points: int = 2
    dora_points: int = 0
    aka_dora: bool = False

    rule_set = "korean"

    def to_dict(self) -> dict:
        return {"rule_set": "korean", "win_points": self.win_points, "riichi_points": self.riichi_points,
                "dora_points": self.dora_points, "aka_dora": self.aka_dora}


def _riichi_rules(d: dict) -> RiichiRules:
    for alias, name in RULE_ALIASES.items():
        if alias in d:
            if name in d:
                raise TableRuleError(f"rules.{alias}", f"{alias} and {name} are the same option: send one")
            d[name] = d.pop(alias)
    if "kazoe" in d and type(d["kazoe"]) is int and d["kazoe"] in KAZOE.values():
        d["kazoe"] = next(k for k, v in KAZOE.items() if v == d["kazoe"])  # the library's 0 / 1 / 2
    for f in fields(RiichiRules):
        if f.name not in d:
            continue
        v = d[f.name]
        if f.name == "kazoe":
            if not isinstance(v, str) or v not in KAZOE:
                raise TableRuleError("rules.kazoe", f"kazoe is one of {', '.join(KAZOE)} (or the library's 0, 1, 2)")
        elif f.name == "nagashi_payment":
            if not isinstance(v, str) or v not in NAGASHI_PAYMENTS:
                raise TableRuleError("rules.nagashi_payment", "nagashi_payment is tsumo or draw")
        elif not isinstance(v, bool):
            raise TableRuleError(f"rules.{f.name}", f"{f.name} is true or false")
    if d.get("daisharin_other_suits"):
        if d.get("daisharin") is False:
            raise TableRuleError("rules.daisharin_other_suits", "daisharin_other_suits needs daisharin on")
        d["daisharin"] = True
    if d.get("sashikomi_yakuman") and not d.get("open_riichi"):
        raise TableRuleError("rules.sashikomi_yakuman", "sashikomi yakuman needs open riichi on (open_riichi)")
    return RiichiRules(**d)


def rules_from_dict(d: dict | None) -> RiichiRules | KoreanRules:
    """``{"rule_set": "riichi" | "korean", ...options}`` → rules. 422 naming ``rules.<option>`` for an unknown
    option or a bad value (``rules`` for an unknown rule set); the library's option names are accepted too."""
    if d is not None and not isinstance(d, dict):
        raise TableRuleError("rules", "rules is an object: {\"rule_set\": \"riichi\" | \"korean\", ...options}")
    d = dict(d or {})
    kind = d.pop("rule_set", "riichi")
    cls = {"riichi": RiichiRules, "korean": KoreanRules}.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise TableRuleError("rules.rule_set", "rule_set must be riichi or korean")
    known = {f.name for f in fields(cls)} | (set(RULE_ALIASES) if cls is RiichiRules else set())
    for name in sorted(map(str, d)):
        if name in _NOT_OFFERED:
            raise TableRuleError(f"rules.{name}", _NOT_OFFERED[name])
        if name not in known:
            raise TableRuleError(f"rules.{name}", f"unknown {kind} rule option {name!r} "
                                                  f"(known: {', '.join(f.name for f in fields(cls))})")
    if cls is RiichiRules:
        return _riichi_rules(d)
    k = KoreanRules(**d)
    for name in ("win_points", "riichi_points", "dora_points"):
        v = getattr(k, name)
        if isinstance(v, bool) or not isinstance(v, int) or not (1 if name == "win_points" else 0) <= v <= 1_000:
            raise TableRuleError(f"rules.{name}", "points are integers 0-1000 (win_points at least 1)")
    if not isinstance(k.aka_dora, bool):
        raise TableRuleError("rules.aka_dora", "aka_dora is true or false")
    return k


# --------------------------------------------------------------------------------------------- tiles
@dataclass(frozen=True)
class Tile:
    """One physical tile: ``kind`` is the 34-index (0-8 man, 9-17 pin, 18-26 sou, 27-33 honours)."""

    kind: int
    red: bool = False

    def __str__(self) -> str:
        return tile_name(self.kind, self.red)


def tile_name(kind: int, red: bool = False) -> str:
    if kind >= 27:
        return f"{kind - 26}z"
    return f"{0 if red else kind % 9 + 1}{'mps'[kind // 9]}"


def parse_tiles(text: object, fld: str, *, aka: bool) -> list[Tile]:
    """Standard notation → tiles, in the order written. 422 naming ``fld`` when malformed."""
    if not isinstance(text, str):
        raise TableRuleError(fld, "tiles are a notation string such as 123m456p789s11z")
    s = text.replace(" ", "")
    if not s:
        return []
    if len(s) > 80 or not _NOTATION.match(s):
        raise TableRuleError(fld, f"{text!r} is not tile notation: digits then m, p, s (1-9, 0 = red five) "
                                  "or z (1-7 = E S W N, white, green, red), e.g. 123m456p789s11z")
    out = []
    for digits, suit in _GROUP.findall(s):
        for ch in digits:
            n = int(ch)
            if n == 0:
                if not aka:
                    raise TableRuleError(fld, f"red five 0{suit}: aka dora is off at this table")
                out.append(Tile(_SUIT_BASE[suit] + 4, True))
            else:
                out.append(Tile(_SUIT_BASE[suit] + n - 1))
    return out


def tiles_str(tiles: list[Tile]) -> str:
    """Tiles → compact notation grouped by suit (m, p, s, z), sorted."""
    out = []
    for suit, lo in (("m", 0), ("p", 9), ("s", 18), ("z", 27)):
        ks = sorted((t for t in tiles if lo <= t.kind < lo + (9 if suit != "z" else 7)), key=lambda t: (t.kind, not t.red))
        if ks:
            out.append("".join(str(t)[0] for t in ks) + suit)
    return "".join(out)


def dora_of(indicator: int) -> int:
    """The dora shown by an indicator (34-index): the next tile, wrapping 9 → 1 within a suit, N → E among
    the winds and red → white among the dragons."""
    if indicator < 27:
        base = indicator // 9 * 9
        return base + (indicator - base + 1) % 9
    if indicator <= 30:
        return 27 + (indicator - 27 + 1) % 4
    return 31 + (indicator - 31 + 1) % 3


# --------------------------------------------------------------------------------------------- declaration
@dataclass(frozen=True)
class MeldIn:
    type: str
    tiles: str


@dataclass(frozen=True)
class Declaration:
    """A declared win (see the module docstring for every field)."""

    hand: str = ""
    win_tile: str = ""
    melds: tuple[MeldIn, ...] = ()
    tsumo: bool = False
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    open_riichi: bool = False
    seat_wind: str | None = None  # None: from the seating (winner, dealer), else from the conditions, else E
    round_wind: str = "E"
    dora_indicators: str = ""
    ura_dora_indicators: str = ""
    honba: int = 0
    riichi_sticks: int = 0
    paarenchan: int = 0
    conditions: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, d: dict) -> "Declaration":
        melds = []
        for i, m in enumerate(d.get("melds") or []):
            if not isinstance(m, dict) or set(m) - {"type", "tiles"}:
                raise TableRuleError(f"melds[{i}]", "a meld is {\"type\", \"tiles\"}")
            melds.append(MeldIn(m.get("type", ""), m.get("tiles", "")))
        known = {f for f in cls.__dataclass_fields__}
        extra = set(d) - known
        if extra:
            raise TableRuleError(sorted(extra)[0], "unknown field")
        kw = {k: v for k, v in d.items() if k not in ("melds", "conditions") and v is not None}
        return cls(melds=tuple(melds), conditions=tuple(d.get("conditions") or ()), **kw)

    def to_dict(self) -> dict:
        return {"hand": self.hand, "win_tile": self.win_tile,
                "melds": [{"type": m.type, "tiles": m.tiles} for m in self.melds], "tsumo": self.tsumo,
                "riichi": self.riichi, "double_riichi": self.double_riichi, "ippatsu": self.ippatsu,
                "open_riichi": self.open_riichi, "paarenchan": self.paarenchan, "seat_wind": self.seat_wind,
                "round_wind": self.round_wind, "dora_indicators": self.dora_indicators,
                "ura_dora_indicators": self.ura_dora_indicators, "honba": self.honba,
                "riichi_sticks": self.riichi_sticks, "conditions": list(self.conditions)}


@dataclass
class _Parsed:
    concealed: list[Tile]
    melds: list[tuple[str, list[Tile]]]
    win: Tile
    dora: list[Tile]
    ura: list[Tile]


def _check_flag(name: str, v: object) -> None:
    if not isinstance(v, bool):
        raise TableRuleError(name, f"{name} is true or false")


def _check_counter(name: str, v: object) -> None:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_COUNTER:
        raise TableRuleError(name, f"{name} is an integer from 0 to {MAX_COUNTER}")


def _meld_ok(kind: str, tiles: list[Tile]) -> str | None:
    ks = sorted(t.kind for t in tiles)
    if kind == "chi":
        if len(ks) != 3 or ks[0] >= 27 or ks[0] // 9 != ks[2] // 9 or ks != [ks[0], ks[0] + 1, ks[0] + 2]:
            return "a chi is three consecutive tiles of one suit (e.g. 345p)"
    elif kind == "pon":
        if len(ks) != 3 or len(set(ks)) != 1:
            return "a pon is three identical tiles (e.g. 555z)"
    elif len(ks) != 4 or len(set(ks)) != 1:
        return "a kan is four identical tiles (e.g. 1111m)"
    return None


def _parse(d: Declaration, aka: bool, *, need_tiles: bool = True) -> _Parsed | None:
    for name in ("tsumo", "riichi", "double_riichi", "ippatsu", "open_riichi"):
        _check_flag(name, getattr(d, name))
    for name in ("honba", "riichi_sticks"):
        _check_counter(name, getattr(d, name))
    p = d.paarenchan
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= MAX_PAARENCHAN:
        raise TableRuleError("paarenchan", f"paarenchan is an integer from 0 to {MAX_PAARENCHAN} (yakuman counted)")
    for name in ("seat_wind", "round_wind"):
        if name == "seat_wind" and d.seat_wind is None:
            continue
        if getattr(d, name) not in WIND_TILE:
            raise TableRuleError(name, f"{name} is one of E, S, W, N")
    for c in d.conditions:
        if c not in CONDITIONS:
            raise TableRuleError("conditions", f"unknown condition {c!r} (one of {', '.join(CONDITIONS)})")
    if len(set(d.conditions)) != len(d.conditions):
        raise TableRuleError("conditions", "a condition is listed twice")
    if not need_tiles:
        return None
    concealed = parse_tiles(d.hand, "hand", aka=aka)
    melds = []
    for i, m in enumerate(d.melds):
        if m.type not in MELD_TYPES:
            raise TableRuleError(f"melds[{i}]", f"meld type must be one of {', '.join(MELD_TYPES)}")
        ts = parse_tiles(m.tiles, f"melds[{i}]", aka=aka)
        why = _meld_ok(m.type, ts)
        if why:
            raise TableRuleError(f"melds[{i}]", f"{m.tiles!r} is not a {m.type}: {why}")
        melds.append((m.type, ts))
    if len(melds) > 4:
        raise TableRuleError("melds", "a hand has at most four melds")
    n = len(concealed) + 3 * len(melds)
    if n != 14:
        kans = sum(t != "chi" and t != "pon" for t, _ in melds)
        raise TableRuleError("hand", f"a winning hand has 14 tiles (13 + the win tile) counting each meld as 3: "
                                     f"{len(concealed)} concealed + {len(melds)} meld(s) ({kans} kan) = {n}")
    # physical copies: at most 4 of a tile (1 red five) across the hand, the melds and the indicators
    counts: dict[int, int] = {}
    reds: dict[int, int] = {}

    def count(fld: str, ts: list[Tile]) -> None:
        for t in ts:
            counts[t.kind] = counts.get(t.kind, 0) + 1
            if t.red:
                reds[t.kind] = reds.get(t.kind, 0) + 1
            if counts[t.kind] > 4:
                raise TableRuleError(fld, f"five {tile_name(t.kind)}: a set has only four of each tile "
                                          "(counting the hand, the melds and the indicators)")
            if reds.get(t.kind, 0) > 1:
                raise TableRuleError(fld, f"two red fives {t}: a set has one")

    count("hand", concealed)
    for i, (_, ts) in enumerate(melds):
        count(f"melds[{i}]", ts)
    # the shape before the win tile: a hand that is not complete is refused as such, whatever its win tile
    if not Agari.is_agari(_counts34(concealed)):
        raise TableRuleError("hand", f"not a winning hand: {tiles_str(concealed)}"
                                     f"{' with ' + str(len(melds)) + ' meld(s)' if melds else ''} is not four sets "
                                     "and a pair, seven pairs or thirteen orphans")
    dora = parse_tiles(d.dora_indicators, "dora_indicators", aka=aka)
    ura = parse_tiles(d.ura_dora_indicators, "ura_dora_indicators", aka=aka)
    kans = sum(t in ("kan", "added_kan", "closed_kan") for t, _ in melds)
    most = min(1 + kans, MAX_INDICATORS)
    if len(dora) > most:
        raise TableRuleError("dora_indicators", f"{len(dora)} dora indicators with {kans} kan(s) declared: at most "
                                                f"{most} (1 + one per kan, up to {MAX_INDICATORS})")
    if ura and not (d.riichi or d.double_riichi):
        raise TableRuleError("ura_dora_indicators", "ura-dora are turned over only for a riichi (or double riichi) win")
    if len(ura) > (len(dora) if dora else most):
        raise TableRuleError("ura_dora_indicators", f"{len(ura)} ura-dora indicators: one under each dora indicator "
                                                    f"(at most {len(dora) if dora else most} here)")
    count("dora_indicators", dora)
    count("ura_dora_indicators", ura)
    win = parse_tiles(d.win_tile, "win_tile", aka=aka)
    if len(win) != 1:
        raise TableRuleError("win_tile", "win_tile is exactly one tile, e.g. 5p")
    if win[0] not in concealed:
        raise TableRuleError("win_tile", f"the win tile {win[0]} is not in the concealed hand {tiles_str(concealed)}")
    return _Parsed(concealed, melds, win[0], dora, ura)


def _counts34(tiles: list[Tile]) -> list[int]:
    out = [0] * 34
    for t in tiles:
        out[t.kind] += 1
    return out


class _Ids:
    """Hands out the library's 136-format ids: copy 0 of a five is the red one, others take copies 1-3 first."""

    def __init__(self) -> None:
        self.used: dict[int, list[int]] = {}

    def take(self, t: Tile) -> int:
        order = [0] if t.red else ([1, 2, 3, 0] if t.kind < 27 and t.kind % 9 == 4 else [0, 1, 2, 3])
        used = self.used.setdefault(t.kind, [])
        for c in order:
            if c not in used:
                used.append(c)
                return t.kind * 4 + c
        raise TableRuleError("hand", f"five {t}")  # unreachable after _parse's count check


# --------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Score:
    """The value of a declared win.

    ``payments`` (points, honba included, riichi sticks not): ron ``{"discarder": p}``; dealer tsumo
    ``{"each": p}`` (each of the three); non-dealer tsumo ``{"dealer": p, "non_dealer": p}``.
    ``sticks`` = riichi-stick points to the winner; ``total`` = everything the winner receives."""

    rule_set: str
    han: int | None
    fu: int | None
    limit: dict | None
    yaku: list[dict]
    fu_details: list[dict]
    dora: list[str]
    ura_dora: list[str]
    tsumo: bool
    dealer: bool
    payments: dict[str, int]
    honba_points: int
    sticks: int
    total: int
    points: int | None = None  # Korean: the hand's points
    yakuman: int = 0
    declaration: dict = field(default_factory=dict)
    payment_form: str = "ron"  # ron | tsumo | nagashi_tsumo | nagashi_draw (see PAYMENT_FORMS)

    def to_dict(self) -> dict:
        out = {"rule_set": self.rule_set, "han": self.han, "fu": self.fu, "limit": self.limit, "yaku": self.yaku,
               "fu_details": self.fu_details, "dora": self.dora, "ura_dora": self.ura_dora, "tsumo": self.tsumo,
               "dealer": self.dealer, "payments": self.payments, "honba_points": self.honba_points,
               "riichi_stick_points": self.sticks, "total": self.total, "yakuman": self.yakuman,
               "payment_form": self.payment_form, "seat_wind": self.declaration.get("seat_wind")}
        if self.points is not None:
            out["points"] = self.points
        return out


def yaku_names(y) -> tuple[str, str, str, str]:
    """(key, Korean, Japanese, English) of a library yaku instance; Daisharin is looked up by its suit name."""
    cls = type(y).__name__
    return YAKU_NAMES.get(y.name if cls == "Daisharin" else cls, (cls.lower(), y.name, y.name, y.name))


def _yaku_view(y, is_open: bool) -> dict:
    key, ko, ja, en = yaku_names(y)
    han = y.han_open if (is_open and y.han_open) else y.han_closed
    return {"key": key, "ko": ko, "ja": ja, "en": en, "han": han, "yakuman": bool(y.is_yakuman)}


_LIB_FIELD = {
    HandCalculator.ERR_NO_WINNING_TILE: "win_tile", HandCalculator.ERR_HAND_NOT_WINNING: "hand",
    HandCalculator.ERR_NO_YAKU: "hand", HandCalculator.ERR_OPEN_HAND_RIICHI: "riichi",
    HandCalculator.ERR_OPEN_HAND_DABURI: "double_riichi", HandCalculator.ERR_IPPATSU_WITHOUT_RIICHI: "ippatsu",
}
_LIB_TEXT = {
    HandCalculator.ERR_HAND_NOT_WINNING: "not a winning hand: four sets and a pair, seven pairs or thirteen orphans",
    HandCalculator.ERR_NO_YAKU: "a complete hand without yaku: riichi rules need at least one yaku (dora is not one)",
    HandCalculator.ERR_OPEN_HAND_RIICHI: "riichi needs a closed hand (only closed kans allowed)",
    HandCalculator.ERR_OPEN_HAND_DABURI: "double riichi needs a closed hand (only closed kans allowed)",
    HandCalculator.ERR_IPPATSU_WITHOUT_RIICHI: "ippatsu needs riichi or double riichi",
}


def _check_conditions(d: Declaration, rules: RiichiRules, dealer: bool, is_open: bool) -> None:
    c = set(d.conditions)
    checks = [("haitei", d.tsumo, "haitei is a tsumo on the last tile"),
              ("rinshan", d.tsumo, "rinshan is a tsumo on a kan's replacement tile"),
              ("houtei", not d.tsumo, "houtei is a ron on the last discard"),
              ("chankan", not d.tsumo, "chankan is a ron on a tile added to a kan"),
              ("tenhou", d.tsumo, "tenhou is the dealer's tsumo on the first draw"),
              ("tenhou", dealer, "tenhou is the dealer's (East's) win: this winner is not the dealer"),
              ("chiihou", d.tsumo, "chiihou is a non-dealer's tsumo on the first draw"),
              ("chiihou", not dealer, "chiihou is a non-dealer's win: the dealer's first-draw win is tenhou"),
              ("renhou", not d.tsumo, "renhou is a non-dealer's ron before their first draw"),
              ("renhou", not dealer, "renhou is a non-dealer's win: this winner is the dealer")]
    for name, ok, why in checks:
        if name in c and not ok:
            raise TableRuleError("conditions", why)
    if {"haitei", "rinshan"} <= c or {"houtei", "chankan"} <= c:
        raise TableRuleError("conditions", "haitei/houtei cannot combine with rinshan/chankan")
    if c & {"tenhou", "chiihou", "renhou"}:
        if len(c & {"tenhou", "chiihou", "renhou"}) > 1:
            raise TableRuleError("conditions", "tenhou, chiihou and renhou exclude each other")
        if d.melds:
            raise TableRuleError("conditions", "tenhou, chiihou and renhou need a hand without melds")
        if d.riichi or d.double_riichi:
            raise TableRuleError("conditions", "tenhou, chiihou and renhou come before the winner's first discard: "
                                               "no riichi can have been declared")
    if d.double_riichi and d.riichi:
        raise TableRuleError("double_riichi", "send riichi or double_riichi, not both")
    if d.ippatsu and not (d.riichi or d.double_riichi):
        raise TableRuleError("ippatsu", "ippatsu needs riichi or double riichi")
    if (d.riichi or d.double_riichi) and is_open:
        raise TableRuleError("riichi" if d.riichi else "double_riichi", "riichi needs a closed hand (closed kans allowed)")
    if d.open_riichi:
        if not rules.open_riichi:
            raise TableRuleError("open_riichi", "open riichi is not played at this table (rules.open_riichi)")
        if not (d.riichi or d.double_riichi):
            raise TableRuleError("open_riichi", "open_riichi is a riichi (or double riichi) declared face up")
    if d.paarenchan:
        if not rules.paarenchan:
            raise TableRuleError("paarenchan", "paarenchan is not counted at this table (rules.paarenchan)")
        if not dealer:
            raise TableRuleError("paarenchan", "paarenchan is the dealer's eighth consecutive win: not the dealer")


def _payments(cost: dict, tsumo: bool, dealer: bool) -> dict[str, int]:
    if not tsumo:
        return {"discarder": cost["main"] + cost["main_bonus"]}
    if dealer:
        return {"each": cost["main"] + cost["main_bonus"]}
    return {"dealer": cost["main"] + cost["main_bonus"], "non_dealer": cost["additional"] + cost["additional_bonus"]}


def score_hand(d: Declaration | dict, rules: RiichiRules | KoreanRules | None = None, *, winner: str | None = None,
               dealer: str | None = None) -> Score:
    """Score a declared win under the table's rules (riichi by default). ``winner`` / ``dealer`` (seats E S W N,
    both or neither): the table's seating, from which the winner's seat wind follows (a ``seat_wind`` that
    contradicts it is refused). Raises TableRuleError (see module)."""
    rules = rules or RiichiRules()
    if isinstance(d, dict):
        d = Declaration.from_dict(d)
    seating = None
    if winner is not None or dealer is not None:
        seating = seat_wind(_seat("winner", winner), _seat("dealer", dealer))
    if d.seat_wind is not None and seating is not None and d.seat_wind != seating:
        raise TableRuleError("seat_wind", f"seat_wind {d.seat_wind} contradicts the seating: {winner} with {dealer} "
                                          f"dealing sits {seating}")
    if seating is not None:
        d = replace(d, seat_wind=seating)
    if isinstance(rules, KoreanRules):
        return _score_korean(d, rules)
    return _score_riichi(d, rules)


def _score_riichi(d: Declaration, rules: RiichiRules) -> Score:
    """The seat wind when neither the request nor the seating gives it: tenhou and paarenchan are the dealer's
    (E); chiihou and renhou a non-dealer's — scored for S, W and N, and refused (``seat_wind``) only when the
    three differ (a seat-wind triplet); anything else: E (the documented default)."""
    if d.seat_wind is not None:
        return _score_seat(d, rules)
    c = set(d.conditions)
    if not c & {"chiihou", "renhou"} or c & {"tenhou"}:
        return _score_seat(replace(d, seat_wind="E"), rules)
    scores = [_score_seat(replace(d, seat_wind=w), rules) for w in ("S", "W", "N")]
    if len({(s.han, s.fu, tuple(sorted(s.payments.items()))) for s in scores}) > 1:
        raise TableRuleError("seat_wind", "the score depends on the winner's seat wind (a wind triplet): send "
                                          "seat_wind, or winner and dealer")
    return replace(scores[0], declaration={**scores[0].declaration, "seat_wind": None})


def _score_seat(d: Declaration, rules: RiichiRules) -> Score:
    seat = d.seat_wind
    assert seat is not None, "score_hand resolves the seat wind before scoring"
    dealer = seat == "E"
    nagashi = "nagashi_mangan" in d.conditions
    p = _parse(d, rules.aka_dora, need_tiles=not nagashi)
    if nagashi:
        if not rules.nagashi_mangan:
            raise TableRuleError("conditions", "nagashi mangan is off at this table")
        if len(d.conditions) > 1 or d.riichi or d.double_riichi or d.ippatsu or d.open_riichi or d.paarenchan \
                or d.hand or d.melds or d.win_tile or d.dora_indicators or d.ura_dora_indicators:
            raise TableRuleError("conditions", "nagashi mangan is a draw: no tiles, riichi or other conditions")
        d = replace(d, tsumo=True)  # paid as a tsumo mangan
        as_draw = rules.nagashi_payment == "draw"
        cfg = HandConfig(is_tsumo=True, is_nagashi_mangan=True, player_wind=WIND_TILE[seat],
                         round_wind=WIND_TILE[d.round_wind], tsumi_number=0 if as_draw else d.honba,
                         kyoutaku_number=0 if as_draw else d.riichi_sticks, options=rules.options())
        r = HandCalculator.estimate_hand_value([], 0, config=cfg)  # a mangan whatever the scorer (aotenjou too)
        return _score_from(r, d, dealer, False, [], [], form="nagashi_draw" if as_draw else "nagashi_tsumo")
    assert p is not None
    is_open = any(t != "closed_kan" for t, _ in p.melds)
    _check_conditions(d, rules, dealer, is_open)
    ids = _Ids()
    melds, tiles = [], []
    for kind, ts in p.melds:
        mids = [ids.take(t) for t in ts]
        tiles += mids
        mtype = {"chi": Meld.CHI, "pon": Meld.PON, "added_kan": Meld.SHOUMINKAN}.get(kind, Meld.KAN)
        melds.append(Meld(meld_type=mtype, tiles=mids, opened=kind != "closed_kan"))
    cids = [ids.take(t) for t in p.concealed]
    tiles += cids
    win_id = next(i for i, t in zip(cids, p.concealed) if t == p.win)
    c = set(d.conditions)
    cfg = HandConfig(is_tsumo=d.tsumo, is_riichi=d.riichi, is_daburu_riichi=d.double_riichi, is_ippatsu=d.ippatsu,
                     is_open_riichi=d.open_riichi, is_rinshan="rinshan" in c, is_chankan="chankan" in c,
                     is_haitei="haitei" in c, is_houtei="houtei" in c, is_tenhou="tenhou" in c,
                     is_chiihou="chiihou" in c, is_renhou="renhou" in c, player_wind=WIND_TILE[seat],
                     round_wind=WIND_TILE[d.round_wind], tsumi_number=d.honba, kyoutaku_number=d.riichi_sticks,
                     paarenchan=d.paarenchan, options=rules.options())
    dora_ids = [ids.take(t) for t in p.dora]
    ura_ids = [ids.take(t) for t in p.ura]
    r = HandCalculator.estimate_hand_value(tiles, win_id, melds=melds, dora_indicators=dora_ids, config=cfg,
                                           ura_dora_indicators=ura_ids, scores_calculator_factory=rules.scorer())
    if r.error:
        raise TableRuleError(_LIB_FIELD.get(r.error, "conditions"), _LIB_TEXT.get(r.error, r.error.replace("_", " ")))
    return _score_from(r, d, dealer, is_open, [tile_name(dora_of(t.kind)) for t in p.dora],
                       [tile_name(dora_of(t.kind)) for t in p.ura] if (d.riichi or d.double_riichi) else [],
                       form="tsumo" if d.tsumo else "ron")


def _score_from(r, d: Declaration, dealer: bool, is_open: bool, dora: list[str], ura: list[str], *,
                form: str) -> Score:
    cost = r.cost
    yaku = [_yaku_view(y, is_open) for y in r.yaku]
    lim = LIMITS.get(cost.get("yaku_level") or "")
    pays = _payments(cost, d.tsumo, dealer)
    honba_pts = cost["main_bonus"] * (3 if d.tsumo else 1)  # ron: 300 a honba; tsumo: 100 a honba from each of 3
    yakuman = sum(y["han"] // 13 for y in yaku if y["yakuman"])
    if lim and lim[0] == "yakuman" and not yakuman:  # 13+ han without a yakuman: the library labels it yakuman
        lim = LIMITS["kazoe yakuman"]
    return Score(rule_set="riichi", han=r.han, fu=r.fu,
                 limit={"key": lim[0], "ko": lim[1], "ja": lim[2], "en": lim[3]} if lim else None,
                 yaku=yaku, fu_details=[{"fu": f["fu"], "reason": f["reason"]} for f in (r.fu_details or [])],
                 dora=dora, ura_dora=ura, tsumo=d.tsumo, dealer=dealer, payments=pays, honba_points=honba_pts,
                 sticks=cost["kyoutaku_bonus"], total=cost["total"], yakuman=yakuman, declaration=d.to_dict(),
                 payment_form=form)


def _score_korean(d: Declaration, rules: KoreanRules) -> Score:
    p = _parse(d, rules.aka_dora)
    assert p is not None
    for name, why in (("conditions", "the Korean rule set has no special conditions"),
                      ("honba", "the Korean rule set has no honba"),
                      ("riichi_sticks", "the Korean rule set has no riichi sticks (riichi adds points instead)"),
                      ("ippatsu", "the Korean rule set has no ippatsu"),
                      ("open_riichi", "the Korean rule set has no open riichi"),
                      ("paarenchan", "the Korean rule set has no paarenchan")):
        if getattr(d, name):
            raise TableRuleError(name, why)
    is_open = any(t != "closed_kan" for t, _ in p.melds)
    if (d.riichi or d.double_riichi) and is_open:
        raise TableRuleError("riichi", "riichi needs a closed hand (closed kans allowed)")
    ids = _Ids()
    melds, tiles34 = [], [0] * 34
    for kind, ts in p.melds:
        mids = [ids.take(t) for t in ts]
        melds.append(Meld(meld_type=Meld.CHI if kind == "chi" else Meld.PON if kind == "pon" else Meld.KAN,
                          tiles=mids, opened=kind != "closed_kan"))
        for t in ts:
            tiles34[t.kind] += 1
    for t in p.concealed:
        tiles34[t.kind] += 1
    if not any(len(div) == 5 for div in HandDivider.divide_hand(tiles34, melds)):
        raise TableRuleError("hand", "not a winning hand: Korean mahjong needs one pair and four sets")
    dora_kinds = [dora_of(t.kind) for t in p.dora]
    hand_kinds = [t.kind for t in p.concealed] + [t.kind for _, ts in p.melds for t in ts]
    n_dora = sum(hand_kinds.count(k) for k in dora_kinds) + sum(t.red for t in p.concealed) + \
        sum(t.red for _, ts in p.melds for t in ts)
    items: list[dict] = [{"key": "win", "ko": "화료", "ja": "和了", "en": "Win", "points": rules.win_points}]
    if d.riichi or d.double_riichi:
        items.append({"key": "riichi", "ko": "리치", "ja": "立直", "en": "Riichi", "points": rules.riichi_points})
    if n_dora and rules.dora_points:
        items.append({"key": "dora", "ko": "도라", "ja": "ドラ", "en": "Dora", "count": n_dora,
                      "points": n_dora * rules.dora_points})
    pts = sum(i["points"] for i in items)
    dealer = d.seat_wind == "E"
    pays = {"each": pts} if d.tsumo else {"discarder": pts}
    return Score(rule_set="korean", han=None, fu=None, limit=None, yaku=items, fu_details=[],
                 dora=[tile_name(k) for k in dora_kinds], ura_dora=[], tsumo=d.tsumo, dealer=dealer, payments=pays,
                 honba_points=0, sticks=0, total=pts * 3 if d.tsumo else pts, points=pts, declaration=d.to_dict(),
                 payment_form="tsumo" if d.tsumo else "ron")


# --------------------------------------------------------------------------------------------- seats
def _seat(name: str, s: str | None) -> str:
    if s is None or s not in SEATS:
        raise TableRuleError(name, f"{name} is a seat: E, S, W or N (send winner and dealer together)")
    return s


def seat_wind(seat: str, dealer_seat: str) -> str:
    """The seat wind of a table seat when ``dealer_seat`` deals (the dealer is East, then counter-clockwise)."""
    return SEATS[(SEATS.index(seat) - SEATS.index(dealer_seat)) % 4]


def next_dealer(kind: str, dealer: str, winner: str | None, dealer_tenpai: bool = False) -> str:
    """The dealer of the next hand (renchan, the standard rule): the dealer deals again after winning
    (``kind == "win"`` and ``winner == dealer``) or after a drawn hand in which the dealer was tenpai; otherwise
    the deal passes to the next seat counter-clockwise (E → S → W → N → E)."""
    stays = winner == dealer if kind == "win" else dealer_tenpai
    return dealer if stays else SEATS[(SEATS.index(dealer) + 1) % 4]


def seat_points(score: Score, winner: str, dealer_seat: str, discarder: str | None) -> dict[str, int]:
    """Points per table seat for the hand's payments (riichi sticks excluded): losers negative, the winner
    positive, summing to zero. ``discarder`` is required on a ron and must be another seat; refused on a tsumo."""
    for name, s in (("winner", winner), ("dealer", dealer_seat)):
        if s not in SEATS:
            raise TableRuleError(name, f"{name} is a seat: E, S, W or N")
    out = {s: 0 for s in SEATS}
    if not score.tsumo:
        if discarder not in SEATS or discarder == winner:
            raise TableRuleError("discarder", "a ron needs the discarder's seat (another seat than the winner's)")
        out[discarder] = -score.payments["discarder"]
    else:
        if discarder is not None:
            raise TableRuleError("discarder", "a tsumo has no discarder")
        for s in SEATS:
            if s == winner:
                continue
            if "each" in score.payments:
                out[s] = -score.payments["each"]
            else:
                out[s] = -(score.payments["dealer"] if s == dealer_seat else score.payments["non_dealer"])
    out[winner] = -sum(out.values())
    return out


@dataclass(frozen=True)
class HandSettlement:
    """A scored hand in points and won per seat. ``points``/``won``: every seat's change (payments, honba, riichi
    sticks; losers negative); ``won`` of the winner is net of ``fee``. ``take`` = won the other players pay for
    the hand (honba included, sticks not): the fee's base. ``pot_won`` = the carried sticks taken from the pot;
    ``to_pot_won`` = this hand's sticks put into the pot instead (a nagashi mangan paid as a draw, when the
    sticks stay on the table). Balance: sum(won) + fee = pot_won - to_pot_won."""

    points: dict[str, int]
    won: dict[str, int]
    take: int
    fee: int
    sticks_paid: dict[str, int]
    pot_sticks: int
    pot_won: int
    sticks_to_pot: int = 0
    to_pot_won: int = 0

    def to_dict(self) -> dict:
        return {"points": self.points, "won": self.won, "take": self.take, "fee": self.fee,
                "sticks_paid": self.sticks_paid, "pot_sticks": self.pot_sticks, "pot_won": self.pot_won,
                "sticks_to_pot": self.sticks_to_pot, "to_pot_won": self.to_pot_won}


def settle_hand(score: Score, *, winner: str, dealer: str, discarder: str | None, riichi_seats: tuple[str, ...] = (),
                pot_sticks: int = 0, point_value: int, fee_ppm: int = 0, fee_unit: int = 100) -> HandSettlement:
    """Points → won for a table: each point is ``point_value`` won; every seat in ``riichi_seats`` puts a
    1,000-point stick in; the winner takes this hand's sticks and the ``pot_sticks`` carried from drawn hands
    (both already counted in ``score.sticks`` when scored with ``riichi_sticks = pot + declarers``) — except a
    nagashi mangan paid as a draw (``payment_form == "nagashi_draw"``): the pot stays and this hand's sticks
    join it. House fee = ``fee_ppm`` of the winner's take, rounded UP to ``fee_unit``
    (``money.commission_ceil``), never above the take."""
    pts = seat_points(score, winner, dealer, discarder)
    take_pts = pts[winner]
    for s in riichi_seats:
        if s not in SEATS:
            raise TableRuleError("riichi_seats", "riichi_seats are seats: E, S, W, N")
    if len(set(riichi_seats)) != len(riichi_seats):
        raise TableRuleError("riichi_seats", "a seat is listed twice")
    sticks = {s: STICK_POINTS for s in riichi_seats}
    for s, p in sticks.items():
        pts[s] -= p
    to_pot = score.payment_form == "nagashi_draw"
    if not to_pot:
        pts[winner] += STICK_POINTS * (len(riichi_seats) + pot_sticks)
    take = take_pts * point_value
    fee = min(take, commission_ceil(take, fee_ppm, fee_unit)) if fee_ppm else 0
    won = {s: p * point_value for s, p in pts.items()}
    won[winner] -= fee
    into = len(riichi_seats) if to_pot else 0
    return HandSettlement(points=pts, won=won, take=take, fee=fee, sticks_paid=sticks,
                          pot_sticks=0 if to_pot else pot_sticks,
                          pot_won=0 if to_pot else pot_sticks * STICK_POINTS * point_value,
                          sticks_to_pot=into, to_pot_won=into * STICK_POINTS * point_value)
