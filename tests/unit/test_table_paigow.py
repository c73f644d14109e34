"""Pai gow poker: joker ranking, fouls, the three house ways of the casino's page clause by clause (at least
three hands per clause, expectations read from the page, not from the engine), the dice deal, dead hands,
player banking, settlement with the 5% commission rounded up, and the setting helpers."""

from __future__ import annotations

import random

import pytest
from phevaluator import _pheval

from table_games.domain import paigow as P
from table_games.domain import poker_eval as E
from table_games.domain.cards import deck
from table_games.domain.errors import TableRuleError
from table_games.domain.rng import SeededRng
from table_games.domain.settlement import Bet, Void
from table_games.domain.shoe import Shoe

# --------------------------------------------------------------------------------------- house-way cases
# (clause, seven cards, expected low hand ranks (W = the joker), expected category of the high hand)
COMMON_NO_PAIR = [("no pair", "AS KH 9D 7C 5S 3H 2D", "K9", "high_card"),
                  ("no pair", "KS QH 8D 6C 4S 3H 2C", "Q8", "high_card"),
                  ("no pair", "JK QS TH 8D 6C 4S 2H", "QT", "high_card")]
COMMON_ONE_PAIR = [("one pair", "8S 8H AD KC 6S 4H 2D", "AK", "one_pair"),
                   ("one pair", "2S 2H QD JC 9S 6H 4D", "QJ", "one_pair"),
                   ("one pair", "JK AS TH 8D 6C 4S 2H", "T8", "one_pair")]
COMMON_THREE_PAIR = [("three pair", "KS KH 8D 8C 4S 4H AD", "KK", "two_pair"),
                     ("three pair", "QS QH JD JC 2S 2H 9D", "QQ", "two_pair"),
                     ("three pair", "AS AH 6D 6C 3S 3H KD", "AA", "two_pair")]
COMMON_TRIPS = [("trips (1)", "7S 7H 7D KC QS 4H 2D", "KQ", "three_kind"),
                ("trips (1)", "2S 2H 2D AC 9S 6H 4D", "A9", "three_kind"),
                ("trips (1)", "9S 9H 9D QC 7S 4H 2D", "Q7", "three_kind"),
                ("trips (2) aces", "AS AH AD QC 8S 6H 3D", "AQ", "one_pair"),
                ("trips (2) aces", "JK AS AH 9C 7S 5H 2D", "A9", "one_pair"),
                ("trips (2) aces", "AS AH AD 3C 7S 9H JD", "AJ", "one_pair")]
COMMON_TWO_TRIPS = [("two trips", "KS KH KD 5C 5S 5H 9D", "KK", "three_kind"),
                    ("two trips", "9S 9H 9D 2C 2S 2H AD", "99", "three_kind"),
                    ("two trips", "AS AH AD 4C 4S 4H 8D", "AA", "three_kind")]
COMMON_FULL_HOUSE = [("full house (1)", "8S 8H 8D 4C 4S KH 2D", "44", "three_kind"),
                     ("full house (1)", "QS QH QD 9C 9S 3H 2D", "99", "three_kind"),
                     ("full house (1)", "3S 3H 3D AC AS 7H 5D", "AA", "three_kind"),
                     ("full house (1)", "9S 9H 9D 2C 2S AH QD", "22", "three_kind"),
                     ("full house (2) 2s with A-K", "9S 9H 9D 2C 2S AH KD", "AK", "full_house"),
                     ("full house (2) 2s with A-K", "JS JH JD 2C 2S AH KD", "AK", "full_house"),
                     ("full house (2) 2s with A-K", "5S 5H 5D 2C 2S JK KD", "WK", "full_house")]
COMMON_ROYAL = [("royal (1)", "AS KS QS JS TS 4H 2D", "42", "royal_flush"),
                ("royal (1)", "AH KH QH JH TH 9C 3D", "93", "royal_flush"),
                ("royal (1)", "AD KD QD JD JK 7S 5C", "75", "royal_flush"),
                ("royal (2) two pair of 10-A", "AS KS QS JS TS KH QD", "QQ", "one_pair"),
                ("royal (2) two pair of 10-A", "AH KH QH JH TH AD TC", "TT", "one_pair"),
                ("royal (2) two pair of 10-A", "AD KD QD JD TD JS TC", "TT", "one_pair")]
COMMON_FIVE_ACES = [("five aces (1) split", "JK AS AH AD AC 9S 4H", "AA", "three_kind"),
                    ("five aces (1) split", "JK AS AH AD AC KS 2H", "AA", "three_kind"),
                    ("five aces (1) split", "JK AS AH AD AC 7S 7H", "AA", "full_house"),
                    ("five aces (2) kings", "JK AS AH AD AC KS KH", "KK", "five_aces"),
                    ("five aces (2) kings", "JK AS AH AD AC KD KC", "KK", "five_aces"),
                    ("five aces (2) kings", "JK AS AH AD AC KH KC", "KK", "five_aces")]
STRAIGHT_1 = [("straight (1)", "9S 8H 7D 6C 5S KH 2D", "K2", "straight"),
              ("straight (1)", "AS KH QD JC TS 4H 2D", "42", "straight"),
              ("straight (1)", "AS 2H 3D 4C 5S QH 9D", "Q9", "straight")]
STRAIGHT_SIX = [("straight six/seven", "4S 5H 6D 7C 8S 9H 2D", "92", "straight"),
                ("straight six/seven", "9S TH JD QC KS AH 3D", "A3", "straight"),
                ("straight six/seven", "JK 5H 6D 7C 8S 9H QD", "WQ", "straight"),
                ("straight six/seven", "3S 4H 5D 6C 7S 8H 9D", "98", "straight")]
STRAIGHT_PAIR_LOW = [("straight, low pair", "4S 4H 5D 6C 7S 8H 9D", "44", "straight"),
                     ("straight, low pair", "2S 2H 3D 4C 5S 6H 7D", "22", "straight"),
                     ("straight, low pair", "8S 8H 9D TC JS QH KD", "88", "straight")]
FLUSH_1 = [("flush (1)", "AS 9S 7S 4S 2S KH QD", "KQ", "flush"),
           ("flush (1)", "KH JH 8H 5H 3H AD 2C", "A2", "flush"),
           ("flush (1)", "JK QD 9D 6D 3D KS 8C", "K8", "flush")]
FLUSH_SIX = [("flush six", "AS KS 9S 7S 4S 2S QH", "AQ", "flush"),
             ("flush six", "QH JH 9H 6H 4H 2H 3C", "Q3", "flush"),
             ("flush six", "KD TD 8D 6D 3D 2D 5S", "K5", "flush"),
             ("flush six", "KD TD 8D 6D 3D 2D AD", "AK", "flush")]
FLUSH_PAIR_LOW = [("flush, low pair", "AS KS 9S 7S 4S 2S 9H", "99", "flush"),
                  ("flush, low pair", "QH JH 9H 6H 4H 2H 2C", "22", "flush"),
                  ("flush, low pair", "KD TD 8D 6D 3D 2D KC", "KK", "flush")]
FLUSH_TO_STRAIGHT_AK = [("flush→straight for A/K low", "KS 9S 8S 7S 2S 6H 5D", "K2", "straight"),
                        ("flush→straight for A/K low", "AH TH 9H 8H 3H 7C 6D", "A3", "straight"),
                        ("flush→straight for A/K low", "AD JD 6D 5D 4D 3C 2C", "AJ", "straight")]
FLUSH_TO_STRAIGHT_PAIR = [("flush→straight for a low pair", "9S 8S 7S 6S 2S 5H 2D", "22", "straight"),
                          ("flush→straight for a low pair", "JD TD 9D 8D 3D 7C 3S", "33", "straight"),
                          ("flush→straight for a low pair", "QC JC TC 9C 4C KH 4S", "44", "straight")]
SF_HIGH = [("straight flush (1)", "9S 8S 7S 6S 5S QH 2D", "Q2", "straight_flush"),
           ("straight flush (1)", "TS 9S 8S 7S 6S 5S 2D", "T2", "straight_flush"),
           ("straight flush (1)", "9S 8S 7S 6S 5S 4H 4D", "44", "straight_flush"),
           ("straight flush (1)", "JK 8D 7D 6D 5D KS 2C", "K2", "straight_flush")]
SF_TO_STRAIGHT_AK = [("SF→straight/flush for A/K low", "KS QS JS TS 9S 8H 3D", "K3", "straight"),
                     ("SF→straight/flush for A/K low", "KS QS JS TS 9S 4S 3D", "K3", "flush"),
                     ("SF→straight/flush for A/K low", "AS 2S 3S 4S 5S 6H 9D", "A9", "straight")]
SF_TO_STRAIGHT_PAIR = [("SF→straight for a low pair", "9S 8S 7S 6S 5S 4H 9D", "99", "straight"),
                       ("SF→straight for a low pair", "QH JH TH 9H 8H 7C QD", "QQ", "straight"),
                       ("SF→straight for a low pair", "7D 6D 5D 4D 3D 2C 7S", "77", "straight")]

POLICY_91 = [
    *COMMON_NO_PAIR, *COMMON_ONE_PAIR,
    ("two pair (1) aces split", "AS AH 4D 4C KS 9H 7D", "44", "one_pair"),
    ("two pair (1) aces split", "AS AH QD QC 8S 6H 3D", "QQ", "one_pair"),
    ("two pair (1) aces split", "JK AS 7D 7C KS 9H 3D", "77", "one_pair"),
    ("two pair (2) J/Q/K split", "KS KH 8D 8C 5S 4H 2D", "88", "one_pair"),
    ("two pair (2) J/Q/K split", "JS JH 3D 3C 9S 7H 5D", "33", "one_pair"),
    ("two pair (2) J/Q/K split", "QS QH 9D 9C AS 5H 2D", "99", "one_pair"),
    ("two pair (3) J/Q/K + ≤5 + A keep", "KS KH 4D 4C AS 9H 7D", "A9", "two_pair"),
    ("two pair (3) J/Q/K + ≤5 + A keep", "JS JH 2D 2C AH 8S 6D", "A8", "two_pair"),
    ("two pair (3) J/Q/K + ≤5 + A keep", "QS QH 5D 5C JK 9H 7D", "W9", "two_pair"),
    ("two pair (4) 7-10 split", "TS TH 4D 4C KS 8H 6D", "44", "one_pair"),
    ("two pair (4) 7-10 split", "7S 7H 2D 2C QS 9H 5D", "22", "one_pair"),
    ("two pair (4) 7-10 split", "9S 9H 8D 8C KS 5H 3D", "88", "one_pair"),
    ("two pair (5) 7-10 + A keep", "TS TH 4D 4C AS 8H 6D", "A8", "two_pair"),
    ("two pair (5) 7-10 + A keep", "8S 8H 3D 3C AH QS 6D", "AQ", "two_pair"),
    ("two pair (5) 7-10 + A keep", "9S 9H 6D 6C JK KS 2D", "WK", "two_pair"),
    ("two pair (6) ≤6 keep", "6S 6H 4D 4C AS KH 9D", "AK", "two_pair"),
    ("two pair (6) ≤6 keep", "5S 5H 2D 2C QS 9H 7D", "Q9", "two_pair"),
    ("two pair (6) ≤6 keep", "3S 3H 2D 2C KS JH 8D", "KJ", "two_pair"),
    *COMMON_THREE_PAIR, *COMMON_TRIPS, *COMMON_TWO_TRIPS,
    *STRAIGHT_1, *STRAIGHT_SIX, *STRAIGHT_PAIR_LOW,
    ("straight (4) J/Q/K + 7+ pair: two pair", "KS KH 9D 9C QS JH TD", "99", "one_pair"),
    ("straight (4) J/Q/K + 7+ pair: two pair", "JS JH 8D 8C 9S TH 7D", "88", "one_pair"),
    ("straight (4) J/Q/K + 7+ pair: two pair", "QS QH TD TC JS KH 9D", "TT", "one_pair"),
    ("straight (5) aces + pair: two pair", "AS AH 3D 3C 2S 4H 5D", "33", "one_pair"),
    ("straight (5) aces + pair: two pair", "AS AH KD KC QS JH TD", "KK", "one_pair"),
    ("straight (5) aces + pair: two pair", "JK AS 4D 4C 2S 3H 5D", "44", "straight"),
    *FLUSH_1, *FLUSH_SIX, *FLUSH_PAIR_LOW,
    ("flush (4) two pair instead", "KS KH 9S 9D 7S 4S 2S", "99", "one_pair"),
    ("flush (4) two pair instead", "AS AH 5S 5D JS 8S 3S", "55", "one_pair"),
    ("flush (4) two pair instead", "QD QC TD TH 8D 5D 3D", "TT", "one_pair"),
    *FLUSH_TO_STRAIGHT_AK, *FLUSH_TO_STRAIGHT_PAIR,
    *COMMON_FULL_HOUSE,
    ("four (1) ≤6 keep", "6S 6H 6D 6C AS KH 2D", "AK", "four_kind"),
    ("four (1) ≤6 keep", "2S 2H 2D 2C QS 9H 7D", "Q9", "four_kind"),
    ("four (1) ≤6 keep", "4S 4H 4D 4C JK 8H 3D", "W8", "four_kind"),
    ("four (2) 7+ split", "9S 9H 9D 9C KS 5H 2D", "99", "one_pair"),
    ("four (2) 7+ split", "KS KH KD KC QS 8H 3D", "KK", "one_pair"),
    ("four (2) 7+ split", "AS AH AD AC QS 8H 3D", "AA", "one_pair"),
    ("four (3) 7-10 with A or pair keep", "8S 8H 8D 8C AS 5H 2D", "A5", "four_kind"),
    ("four (3) 7-10 with A or pair keep", "TS TH TD TC 4S 4H 2D", "44", "four_kind"),
    ("four (3) 7-10 with A or pair keep", "7S 7H 7D 7C JK QH 3D", "WQ", "four_kind"),
    ("four (4) J/Q/K with ≤6 pair split", "JS JH JD JC 6S 6H 2D", "JJ", "two_pair"),
    ("four (4) J/Q/K with ≤6 pair split", "QS QH QD QC 3S 3H 9D", "QQ", "two_pair"),
    ("four (4) J/Q/K with ≤6 pair split", "KS KH KD KC 2S 2H AD", "KK", "two_pair"),
    ("four (5) with 7+ pair keep", "KS KH KD KC 9S 9H 2D", "99", "four_kind"),
    ("four (5) with 7+ pair keep", "5S 5H 5D 5C 8S 8H AD", "88", "four_kind"),
    ("four (5) with 7+ pair keep", "AS AH AD AC 7S 7H 2D", "77", "four_kind"),
    *SF_HIGH, *SF_TO_STRAIGHT_AK,
    *COMMON_ROYAL, *COMMON_FIVE_ACES,
]
POLICY_91.append(("SF (2) only A or K break it, not a pair", "9S 8S 7S 6S 5S 4H 9D", "94", "straight_flush"))

POLICY_92 = [
    *COMMON_NO_PAIR, *COMMON_ONE_PAIR,
    ("two pair (1) no A: split with 7+", "7S 7H 3D 3C KS 9H 5D", "33", "one_pair"),
    ("two pair (1) no A: split with 7+", "KS KH QD QC 9S 5H 2D", "QQ", "one_pair"),
    ("two pair (1) no A: split with 7+", "9S 9H 8D 8C QS 4H 2D", "88", "one_pair"),
    ("two pair (1) no A: keep ≤6", "6S 6H 5D 5C KS 9H 2D", "K9", "two_pair"),
    ("two pair (2) with A: split J/Q/K + 6+", "KS KH 6D 6C AS 9H 2D", "66", "one_pair"),
    ("two pair (2) with A: split J/Q/K + 6+", "JS JH TD TC JK 4H 2D", "TT", "one_pair"),
    ("two pair (2) with A: split J/Q/K + 6+", "QS QH 9D 9C AH 5S 3D", "99", "one_pair"),
    ("two pair (2) with A: otherwise keep", "KS KH 5D 5C AS 9H 2D", "A9", "two_pair"),
    ("two pair (2) with A: otherwise keep", "TS TH 8D 8C AS 5H 2D", "A5", "two_pair"),
    ("two pair (2) with A: otherwise keep", "9S 9H 7D 7C AH QS 3D", "AQ", "two_pair"),
    ("two pair (3) aces split", "AS AH 2D 2C KS 9H 7D", "22", "one_pair"),
    ("two pair (3) aces split", "AS AH JD JC 8S 5H 3D", "JJ", "one_pair"),
    ("two pair (3) aces split", "JK AS 6D 6C QS 9H 4D", "66", "one_pair"),
    *COMMON_THREE_PAIR, *COMMON_TRIPS, *COMMON_TWO_TRIPS,
    *STRAIGHT_1, *STRAIGHT_SIX, *STRAIGHT_PAIR_LOW,
    ("straight (3) J/Q/K + 6+ pair: two pair", "KS KH 9D 9C QS JH TD", "99", "one_pair"),
    ("straight (3) J/Q/K + 6+ pair: two pair", "QS QH 8D 8C 9S TH JD", "88", "one_pair"),
    ("straight (3) J/Q/K + 6+ pair: two pair", "JS JH 7D 7C 8S 9H TD", "77", "one_pair"),
    ("straight (4) two pair + A: two pair", "AS 2H 2D 3C 3S 4H 5D", "A5", "two_pair"),
    ("straight (4) two pair + A: two pair", "AS KH KD QC QS JH TD", "QQ", "one_pair"),
    ("straight (4) two pair + A: two pair", "AS TH TD JC JS QH KD", "TT", "one_pair"),
    ("straight (5) aces + pair: two pair", "AS AH 3D 3C 2S 4H 5D", "33", "one_pair"),
    ("straight (5) aces + pair: two pair", "AS AH KD KC QS JH TD", "KK", "one_pair"),
    ("straight (5) aces + pair: two pair", "JK AS 4D 4C 2S 3H 5D", "44", "straight"),
    *FLUSH_1, *FLUSH_SIX, *FLUSH_PAIR_LOW,
    ("flush (3) J/Q/K + 6+ pair: two pair", "KS KH 9S 9D 7S 4S 2S", "99", "one_pair"),
    ("flush (3) J/Q/K + 6+ pair: two pair", "QD QC 6D 6H 8D 5D 3D", "66", "one_pair"),
    ("flush (3) J/Q/K + 6+ pair: two pair", "JH JC 7H 7S 9H 4H 2H", "77", "one_pair"),
    ("flush (4) two pair + A: two pair", "AS 5S 5H 3S 3D 9S 7S", "A9", "two_pair"),
    ("flush (4) two pair + A: two pair", "AD KD KH 8D 8C 4D 2D", "88", "one_pair"),
    ("flush (4) two pair + A: two pair", "AH TH TC 4H 4S 7H 2H", "A7", "two_pair"),
    ("flush (5) aces + pair: two pair", "AS AH 5S 5D JS 8S 3S", "55", "one_pair"),
    ("flush (5) aces + pair: two pair", "AD AC KD KH 9D 6D 3D", "KK", "one_pair"),
    ("flush (5) aces + pair: two pair", "AH AC 2H 2S 9H 7H 4H", "22", "one_pair"),
    *FLUSH_TO_STRAIGHT_AK, *FLUSH_TO_STRAIGHT_PAIR,
    *COMMON_FULL_HOUSE,
    ("four (1) ≤6 keep", "6S 6H 6D 6C AS KH 2D", "AK", "four_kind"),
    ("four (1) ≤6 keep", "2S 2H 2D 2C QS 9H 7D", "Q9", "four_kind"),
    ("four (1) ≤6 keep", "3S 3H 3D 3C 9S 9H KD", "99", "four_kind"),
    ("four (2) 7+ split", "9S 9H 9D 9C KS 5H 2D", "99", "one_pair"),
    ("four (2) 7+ split", "KS KH KD KC QS 8H 3D", "KK", "one_pair"),
    ("four (2) 7+ split", "JS JH JD JC 6S 6H 2D", "JJ", "two_pair"),
    ("four (3) 7-10 with A or pair keep", "8S 8H 8D 8C AS 5H 2D", "A5", "four_kind"),
    ("four (3) 7-10 with A or pair keep", "TS TH TD TC 4S 4H 2D", "44", "four_kind"),
    ("four (3) 7-10 with A or pair keep", "7S 7H 7D 7C JK QH 3D", "WQ", "four_kind"),
    ("four (4) J/Q/K/A with 7+ pair keep", "KS KH KD KC 9S 9H 2D", "99", "four_kind"),
    ("four (4) J/Q/K/A with 7+ pair keep", "AS AH AD AC 7S 7H 2D", "77", "four_kind"),
    ("four (4) J/Q/K/A with 7+ pair keep", "QS QH QD QC 8S 8H 3D", "88", "four_kind"),
    *SF_HIGH,
    ("straight flush (2) six/seven: lowest five", "9H 8H 7H 6H 5H 4H 3H", "98", "straight_flush"),
    ("straight flush (2) six/seven: lowest five", "QD JD TD 9D 8D 7D 2C", "Q2", "straight_flush"),
    ("straight flush (2) six/seven: lowest five", "8C 7C 6C 5C 4C 3C 2H", "82", "straight_flush"),
    ("straight flush (3) J/Q/K + 6+ pair: two pair", "KS QS JS TS 9S KH 9D", "99", "one_pair"),
    ("straight flush (3) J/Q/K + 6+ pair: two pair", "QH JH TH 9H 8H QC 8D", "88", "one_pair"),
    ("straight flush (3) J/Q/K + 6+ pair: two pair", "JD TD 9D 8D 7D JC 7S", "77", "one_pair"),
    ("straight flush (4) two pair + A: two pair", "AS 2S 3S 4S 5S 2H 3D", "A5", "two_pair"),
    ("straight flush (4) two pair + A: two pair", "AH 2H 3H 4H 5H 4C 5D", "A3", "two_pair"),
    ("straight flush (4) two pair + A: two pair", "AD 2D 3D 4D 5D 2C 5S", "A4", "two_pair"),
    ("straight flush (5) aces + pair: two pair", "AS 2S 3S 4S 5S AH 3D", "33", "one_pair"),
    ("straight flush (5) aces + pair: two pair", "AH 2H 3H 4H 5H AC 5D", "55", "one_pair"),
    ("straight flush (5) aces + pair: two pair", "AD 2D 3D 4D 5D AS 2C", "22", "one_pair"),
    *SF_TO_STRAIGHT_AK, *SF_TO_STRAIGHT_PAIR,
    *COMMON_ROYAL, *COMMON_FIVE_ACES,
]

POLICY_93 = [
    *COMMON_NO_PAIR, *COMMON_ONE_PAIR,
    ("two pair (1) two low pairs keep", "5S 5H 2D 2C KS 9H 7D", "K9", "two_pair"),
    ("two pair (1) two low pairs keep", "4S 4H 3D 3C AS 9H 7D", "A9", "two_pair"),
    ("two pair (1) two low pairs keep", "5S 5H 4D 4C QS JH 8D", "QJ", "two_pair"),
    ("two pair (2) middle + low: keep with K or A", "7S 7H 3D 3C KS 9H 5D", "K9", "two_pair"),
    ("two pair (2) middle + low: keep with K or A", "TS TH 2D 2C AS 8H 6D", "A8", "two_pair"),
    ("two pair (2) middle + low: split otherwise", "7S 7H 3D 3C QS 9H 5D", "33", "one_pair"),
    ("two pair (2) middle + low: split otherwise", "9S 9H 5D 5C JS 8H 2D", "55", "one_pair"),
    ("two pair (3) two middle: keep with A", "9S 9H 7D 7C AS 5H 2D", "A5", "two_pair"),
    ("two pair (3) two middle: keep with A", "TS TH 6D 6C JK 8H 3D", "W8", "two_pair"),
    ("two pair (3) two middle: split otherwise", "9S 9H 7D 7C KS 5H 2D", "77", "one_pair"),
    ("two pair (3) two middle: split otherwise", "TS TH 6D 6C QS 8H 3D", "66", "one_pair"),
    ("two pair (4) middle + face: split", "JS JH 7D 7C AS KH 2D", "77", "one_pair"),
    ("two pair (4) middle + face: split", "KS KH TD TC AS 5H 2D", "TT", "one_pair"),
    ("two pair (4) middle + face: split", "QS QH 6D 6C 9S 5H 2D", "66", "one_pair"),
    ("two pair (5) face + low: keep with A", "JS JH 4D 4C AS 9H 7D", "A9", "two_pair"),
    ("two pair (5) face + low: keep with A", "KS KH 2D 2C JK 9H 7D", "W9", "two_pair"),
    ("two pair (5) face + low: split otherwise", "JS JH 4D 4C KS 9H 7D", "44", "one_pair"),
    ("two pair (5) face + low: split otherwise", "KS KH 2D 2C QS 8H 6D", "22", "one_pair"),
    ("two pair (6) two face pairs: split", "JS JH QD QC AS KH 2D", "JJ", "one_pair"),
    ("two pair (6) two face pairs: split", "KS KH QD QC 9S 5H 2D", "QQ", "one_pair"),
    ("two pair (6) two face pairs: split", "KS KH JD JC AS 7H 2D", "JJ", "one_pair"),
    ("two pair (7) aces + any: split", "AS AH 4D 4C KS 9H 7D", "44", "one_pair"),
    ("two pair (7) aces + any: split", "AS AH 8D 8C QS 5H 2D", "88", "one_pair"),
    ("two pair (7) aces + any: split", "JK AS KD KC 9S 6H 3D", "KK", "one_pair"),
    *COMMON_THREE_PAIR, *COMMON_TRIPS,
    ("trips (3) aces with the joker and a straight / flush", "JK AS AH 2D 3C 4S 9H", "A9", "straight"),
    ("trips (3) aces with the joker and a straight / flush", "JK AD AC 9D 7D 4D 2S", "A2", "flush"),
    ("trips (3) aces with the joker and a straight / flush", "JK AS AH KD QC JS 3H", "A3", "straight"),
    *COMMON_TWO_TRIPS,
    *STRAIGHT_1,
    ("straight (2) a pair goes low", "4S 5H 6D 7C 8S KH KD", "KK", "straight"),
    ("straight (2) a pair goes low", "9S 8S 7S 4S 2S 3H 3D", "33", "flush"),
    ("straight (2) a pair goes low", "4S 4H 5D 6C 7S 8H 9D", "44", "straight"),
    ("straight (3) two pair of 6+: two pair", "9S 9H 8D 8C 7S 6H TD", "88", "one_pair"),
    ("straight (3) two pair of 6+: two pair", "KS KH 9D 9C QS JH TD", "99", "one_pair"),
    ("straight (3) two pair of 6+: two pair", "JS 7S 7H JD 5S 3S 2S", "77", "one_pair"),
    ("straight (4) low pairs but A and 10-K: two pair", "AS TS 4S 4H 3S 3D 7S", "AT", "two_pair"),
    ("straight (4) low pairs but A and 10-K: two pair", "AH KH 6H 6D 2H 2C 9H", "AK", "two_pair"),
    ("straight (4) low pairs but A and 10-K: two pair", "AD JD 5D 5C 4D 4S 8D", "AJ", "two_pair"),
    ("straight (5) aces + pair: two pair", "AS AH 3D 3C 2S 4H 5D", "33", "one_pair"),
    ("straight (5) aces + pair: two pair", "AS AH KD KC QS JH TD", "KK", "one_pair"),
    ("straight (5) aces + pair: two pair", "AS AH 7S 7D KS 9S 2S", "77", "one_pair"),
    ("straight (6) six/seven: highest low", "4S 5H 6D 7C 8S 9H 2D", "92", "straight"),
    ("straight (6) six/seven: highest low", "AS KS 9S 7S 4S 2S QH", "AQ", "flush"),
    ("straight (6) six/seven: highest low", "3S 4H 5D 6C 7S 8H 9D", "98", "straight"),
    ("straight (7) straight or flush: the higher low", "KS 9S 8S 7S 2S 6H 5D", "K2", "straight"),
    ("straight (7) straight or flush: the higher low", "9S 8S 7S 6S 2S 5H 2D", "22", "straight"),
    ("straight (7) straight or flush: the higher low", "AS KS QS 7S 2S JH TD", "JT", "flush"),
    ("straight (8) two low pairs: keep the straight", "2S 2H 3D 3C 4S 5H 6D", "32", "straight"),
    ("straight (8) two low pairs: keep the straight", "5S 5H 4D 4C 3S 2H 6D", "54", "straight"),
    ("straight (8) two low pairs: keep the flush", "JS 9S 6S 4S 2S 4H 2D", "42", "flush"),
    ("straight flush: as 9-3-7, the best low", "9S 8S 7S 6S 5S QH 2D", "Q2", "straight_flush"),
    ("straight flush: as 9-3-7, the best low", "KS QS JS TS 9S 8H 3D", "K3", "straight"),
    ("straight flush: as 9-3-7, the best low", "9S 8S 7S 6S 5S 4H 9D", "99", "straight"),
    ("royal: as 9-3-7", "AS KS QS JS TS 4H 2D", "42", "royal_flush"),
    ("royal: as 9-3-7", "AD KD QD JD JK 7S 5C", "75", "royal_flush"),
    ("royal: as 9-3-7", "AH KH QH JH TH 9C 3D", "A3", "straight"),
    ("royal: as 9-3-7 (3) two pair of 6+", "AS KS QS JS TS KH QD", "QQ", "one_pair"),
    *COMMON_FULL_HOUSE,
    ("four (1) ≤6 keep", "6S 6H 6D 6C AS KH 2D", "AK", "four_kind"),
    ("four (1) ≤6 keep", "2S 2H 2D 2C QS 9H 7D", "Q9", "four_kind"),
    ("four (1) ≤6 keep", "4S 4H 4D 4C JK 8H 3D", "W8", "four_kind"),
    ("four (2) 7+ split", "9S 9H 9D 9C KS 5H 2D", "99", "one_pair"),
    ("four (2) 7+ split", "TS TH TD TC AS 5H 2D", "TT", "one_pair"),
    ("four (2) 7+ split", "AS AH AD AC QS 8H 3D", "AA", "one_pair"),
    ("four (3) 7-10 with A and J/Q/K, or a pair: keep", "8S 8H 8D 8C AS KH 2D", "AK", "four_kind"),
    ("four (3) 7-10 with A and J/Q/K, or a pair: keep", "TS TH TD TC 4S 4H 2D", "44", "four_kind"),
    ("four (3) 7-10 with A and J/Q/K, or a pair: keep", "7S 7H 7D 7C JK JH 3D", "WJ", "four_kind"),
    ("four (4) J/Q/K with a pair: keep", "JS JH JD JC 6S 6H 2D", "66", "four_kind"),
    ("four (4) J/Q/K with a pair: keep", "QS QH QD QC 3S 3H 9D", "33", "four_kind"),
    ("four (4) J/Q/K with a pair: keep", "KS KH KD KC 9S 9H 2D", "99", "four_kind"),
    ("four (5) four aces and kings", "AS AH AD AC KS KH 2D", "KK", "four_kind"),
    ("four (5) four aces and kings", "AS AH AD AC KD KC 9H", "KK", "four_kind"),
    ("four (5) four aces and kings", "AS AH AD AC KH KC QD", "KK", "four_kind"),
    ("four (6) four aces and another pair: three pair", "AS AH AD AC 7S 7H 2D", "AA", "two_pair"),
    ("four (6) four aces and another pair: three pair", "AS AH AD AC 3S 3H KD", "AA", "two_pair"),
    ("four (6) four aces and another pair: three pair", "AS AH AD AC QS QH 2D", "AA", "two_pair"),
    ("five aces (1) split", "JK AS AH AD AC 9S 4H", "AA", "three_kind"),
    ("five aces (1) split", "JK AS AH AD AC KS 2H", "AA", "three_kind"),
    ("five aces (1) split", "JK AS AH AD AC QS 3D", "AA", "three_kind"),
    ("five aces (2) with a pair: aces low", "JK AS AH AD AC 7S 7H", "AA", "full_house"),
    ("five aces (2) with a pair: aces low", "JK AS AH AD AC 2S 2H", "AA", "full_house"),
    ("five aces (2) with a pair: aces low", "JK AS AH AD AC QS QH", "AA", "full_house"),
    ("five aces (3) kings", "JK AS AH AD AC KS KH", "KK", "five_aces"),
    ("five aces (3) kings", "JK AS AH AD AC KD KC", "KK", "five_aces"),
    ("five aces (3) kings", "JK AS AH AD AC KH KC", "KK", "five_aces"),
]


def _rk(c) -> str:
    return "W" if isinstance(c, P.Joker) else "AKQJT98765432"[14 - P._r(c)]


def _sorted_ranks(text: str) -> str:
    return "".join(sorted(text, key="WAKQJT98765432".index))


def _ids(cases):
    return [f"{c[0]} | {c[1]}" for c in cases]


@pytest.mark.parametrize("policy, cases", [("9-1", POLICY_91), ("9-2", POLICY_92), ("9-3", POLICY_93)])
def test_every_clause_has_at_least_three_hands(policy, cases):
    by_clause: dict[str, int] = {}
    for clause, *_ in cases:
        key = clause.split(":")[0].split(" keep")[0].split(" split")[0]
        by_clause[key] = by_clause.get(key, 0) + 1
    assert len(cases) >= 100
    thin = {c: n for c, n in by_clause.items() if n < 3 and not c.startswith("SF (2) only")}
    assert not thin, thin


@pytest.mark.parametrize("policy, clause, hand, low, cat",
                         [("9-1", *c) for c in POLICY_91] + [("9-2", *c) for c in POLICY_92]
                         + [("9-3", *c) for c in POLICY_93],
                         ids=[f"9-1 {i}" for i in _ids(POLICY_91)] + [f"9-2 {i}" for i in _ids(POLICY_92)]
                         + [f"9-3 {i}" for i in _ids(POLICY_93)])
def test_house_way(policy, clause, hand, low, cat):
    s = P.house_way(hand, policy)
    assert _sorted_ranks("".join(_rk(c) for c in s.low)) == _sorted_ranks(low), P.pg_strings(s.low)
    assert P.category_name(s.high_key) == cat, P.pg_strings(s.high)
    assert not s.foul
    assert sorted(map(str, (*s.high, *s.low))) == sorted(hand.split())


def test_the_three_policies_differ_where_the_page_does():
    # two pair 7s and 3s with a king: 9-1 splits (7-10 pair, no A), 9-3 keeps (K), 9-2 splits (7+, no A)
    h = "7S 7H 3D 3C KS 9H 5D"
    assert [_sorted_ranks("".join(_rk(c) for c in P.house_way(h, p).low)) for p in ("9-1", "9-2", "9-3")] == [
        "33", "33", "K9"]
    # four tens with an ace: 9-1 and 9-2 keep, 9-3 needs an A and a face card
    h = "TS TH TD TC AS 5H 2D"
    assert [P.category_name(P.house_way(h, p).high_key) for p in ("9-1", "9-2", "9-3")] == [
        "four_kind", "four_kind", "one_pair"]


def test_house_way_never_fouls_on_random_hands():
    r = random.Random(8)
    d = P.deck53()
    for policy in P.HOUSE_WAYS:
        for _ in range(600):
            hand = r.sample(d, 7)
            s = P.house_way(hand, policy)
            assert not s.foul and sorted(map(str, (*s.high, *s.low))) == sorted(map(str, hand))


def test_unknown_house_way_and_bad_hands():
    with pytest.raises(TableRuleError) as e:
        P.house_way("AS KS QS JS TS 2H 3D", "9-4")
    assert e.value.field == "house_way"
    with pytest.raises(TableRuleError):
        P.house_way("AS KS QS JS TS 2H", "9-1")
    with pytest.raises(ValueError):
        P.PaiGowRules(house_way="9-9")


# --------------------------------------------------------------------------------------- ranking
def k(text: str):
    return P.high_key(P.parse_pg_cards(text))


def test_joker_completes_straights():
    assert k("JK 2S 3H 4D 5C") == (P.STRAIGHT, P.WHEEL)  # the joker is the ace of the wheel
    assert k("JK KS QH JD TC") == (P.STRAIGHT, P.BROADWAY)
    assert k("9S JK 7H 6D 5C") == (P.STRAIGHT, 9)  # fills the gap
    assert k("JK 9S 8H 7D 6C") == (P.STRAIGHT, 10)  # the top end, not the 5
    assert k("JK 3S 4H 5D 6C") == (P.STRAIGHT, 7)


def test_joker_completes_flushes_and_straight_flushes():
    assert k("JK 9S 7S 4S 2S") == (P.FLUSH, 14, 9, 7, 4, 2)  # the joker is the flush's ace
    assert k("JK AS 9S 4S 2S") == (P.FLUSH, 14, 13, 9, 4, 2)  # ace present: the highest missing card
    assert k("JK 9S 8S 7S 6S") == (P.STRAIGHT_FLUSH, 10)
    assert k("JK KD QD JD TD") == (P.ROYAL_FLUSH, P.BROADWAY)
    assert k("JK 2H 3H 4H 5H") == (P.STRAIGHT_FLUSH, P.WHEEL)


def test_joker_is_otherwise_an_ace():
    assert k("JK KS KH 9D 4C") == (P.PAIR, 13, 14, 9, 4)  # kings with an ace kicker, not three kings
    assert k("JK AS KH 9D 4C") == (P.PAIR, 14, 13, 9, 4)
    assert k("JK AS AH 9D 4C") == (P.TRIPS, 14, 9, 4)
    assert k("JK QS 9H 6D 3C") == (P.HIGH, 14, 12, 9, 6, 3)
    assert P.low_key(P.parse_pg_cards("JK AS")) == (1, 14)
    assert P.low_key(P.parse_pg_cards("JK KS")) == (0, 14, 13)


def test_five_aces_is_the_top_hand():
    five = k("JK AS AH AD AC")
    assert five == (P.FIVE_ACES,)
    assert five > k("AS KS QS JS TS") > k("KH QH JH TH 9H")
    assert P.category_name(five) == "five_aces"


def test_wheel_is_the_second_highest_straight():
    wheel, broadway, king = k("AS 2H 3D 4C 5S"), k("AS KH QD JC TS"), k("KS QH JD TC 9S")
    assert broadway > wheel > king > k("6S 5H 4D 3C 2S")
    assert k("AH 2H 3H 4H 5H") > k("KS QS JS TS 9S") and k("AH 2H 3H 4H 5H") < k("AD KD QD JD TD")


def test_ranking_agrees_with_phevaluator_where_the_rules_agree():
    """Joker-free hands without an A-2-3-4-5 straight rank as in standard poker."""
    r = random.Random(5)
    cards = deck()

    def wheel(h):
        return {c.rank for c in h} == {1, 2, 3, 4, 5}

    n = 0
    while n < 4000:
        a, b = r.sample(cards, 5), r.sample(cards, 5)
        if wheel(a) or wheel(b):
            continue
        n += 1
        ka, kb = P.high_key(a), P.high_key(b)
        pa, pb = (_pheval.evaluate_5cards(*map(E.card_id, h)) for h in (a, b))
        assert (ka > kb) == (pa < pb) and (ka == kb) == (pa == pb)
        name = P.category_name(ka)
        assert name.replace("one_pair", "one_pair") == E.category(a)


def test_foul_detection():
    foul = P.is_foul
    c = P.parse_pg_cards
    assert foul(c("KS 8H 6D 4C 2S"), c("AH 3D"))  # A-high low over K-high high
    assert foul(c("AS 8H 6D 4C 2S"), c("7H 7D"))  # a pair low over no pair
    assert foul(c("5S 5H AD KC QS"), c("9H 9D"))  # a higher pair low
    assert not foul(c("9S 9H 6D 4C 2S"), c("9D 9C"))  # equal pairs: the high hand has kickers
    assert not foul(c("AH KD 7C 5S 3H"), c("AS KS"))  # equal top cards: the five cards are higher
    assert foul(c("2S 2H 3D 4C 6S"), c("AH AD"))
    assert not foul(c("3S 3H 2D 2C 6S"), c("AH AD"))  # two pair beats any pair
    assert not foul(c("JK 2H 3D 4C 5S"), c("AH AD"))  # a straight (made with the joker)
    s = P.Setting(tuple(c("KS 8H 6D 4C 2S")), tuple(c("AH 3D")))
    assert s.foul and s.to_dict()["foul"] is True


def test_every_seven_card_hand_has_a_non_foul_setting_and_21_splits():
    hand = P.parse_pg_cards("AS KH 9D 7C 5S 3H JK")
    settings = P.all_settings(hand)
    assert len(settings) == 21
    assert sum(not s.foul for s in settings) >= 1


# --------------------------------------------------------------------------------------- the deal
R = P.HOUSE_WAY_91


def test_positions_count_counter_clockwise_from_the_banker():
    assert P.positions(R) == ["dealer", "6", "5", "4", "3", "2", "1"]
    for total, place in ((3, "5"), (8, "dealer"), (15, "dealer"), (1 + 1 + 1, "5"), (7, "1"), (14, "1"),
                         (9, "6"), (18, "4")):
        dice = {3: (1, 1, 1), 8: (2, 3, 3), 15: (5, 5, 5), 7: (1, 2, 4), 14: (4, 5, 5), 9: (3, 3, 3),
                18: (6, 6, 6)}[total]
        assert P.first_position(dice, R) == place
    # a banking player is position 1
    assert P.positions(R, "3") == ["3", "2", "1", "dealer", "6", "5", "4"]
    assert P.first_position((2, 3, 3), R, banker="3") == "3"
    assert P.first_position((1, 1, 1), R, banker="3") == "1"


def test_deal_seven_stacks_from_the_dice_position_counter_clockwise():
    cards = P.deck53()
    shoe = Shoe.stacked(cards)
    dealt = P.deal(shoe, (1, 2, 1), R)  # total 4: position 4 = seat "4"
    assert shoe.remaining == 4
    assert list(dealt.hands["4"]) == cards[0:7]
    assert list(dealt.hands["3"]) == cards[7:14]
    assert list(dealt.hands["5"]) == cards[42:49]
    assert all(len(h) == 7 for h in dealt.hands.values()) and len(dealt.hands) == 7
    left = P.deal(Shoe.stacked(cards), (1, 2, 1), R, start_from="left")
    assert list(left.hands["4"]) == cards[42:49]


def test_live_deal_uses_the_same_path_as_input():
    d1 = P.deal_live(SeededRng(3), R)
    rng = SeededRng(3)
    dice = P.roll_dice(rng)
    d2 = P.deal(P.new_deck(rng), dice, R)
    assert d1 == d2
    scripted = P.roll_dice(P.dealer_input(6, 6, 6))
    assert scripted == (6, 6, 6)
    with pytest.raises(TableRuleError) as e:
        P.roll_dice(P.dealer_input(7, 1, 1))
    assert e.value.field == "dice"
    assert P.PaiGowDeal.from_dict(d1.to_dict()) == d1


# --------------------------------------------------------------------------------------- rounds and settlement
HANDS = {
    "dealer": "KS KH 8D 8C 4S 3H 2D",  # 9-1: K pair + 8 pair → split: KK 4 3 2 / 88
    "1": "AS AH QD QC 9S 5H 6D",  # player: aces + queens (wins both with AA / QQ)
    "2": "7S 7H 5D 4C 3S 2H JC",  # straight 3-7 + 7 J low: vs dealer
    "3": "JH TH 9C 6H 5S TC 2C",
}


def _round(hands=HANDS, players=None, rules=R, banker="dealer", house_bet=0):
    dealt = P.deal_from_hands((2, 3, 3), hands, rules, banker=banker)
    return P.PaiGowRound(rules, dealt, players or {p: f"p{p}" for p in hands if p != "dealer"},
                         house_bet=house_bet)


def test_round_settles_with_commission_rounded_up():
    rnd = _round()
    rnd.set_hand("1", "AS AH 9S 6D 5H", "QD QC")
    rnd.set_house_way("2")
    rnd.set_hand("3", "TH TC 9C 6H 5S", "JH 2C")
    out = rnd.finish()
    assert out.hands["dealer"].setting.low_key == (1, 8)
    bets = [Bet("main", 15_700, "p1", "1"), Bet("main", 10_000, "p2", "2"), Bet("main", 10_000, "p3", "3")]
    s = P.settle(bets, out, R)
    assert s[0].result == "win" and s[0].win == 15_700 and s[0].commission == 800  # 5% of 15,700 = 785 → 800
    assert s[0].payout == 15_700 + 15_700 - 800
    assert s[2].result == "lose"  # tens vs kings, J-2 vs 88
    assert P.PaiGowOutcome.from_dict(out.to_dict()).to_dict() == out.to_dict()


def test_copies_go_to_the_banker():
    hands = {"dealer": "KS KH 8D 8C 4S 3H 2D", "1": "KD KC 8S 8H 4D 3C 2S"}
    rnd = _round(hands)
    rnd.set_hand("1", "KD KC 4D 3C 2S", "8S 8H")
    out = rnd.finish()
    assert out.player_result("1") == -1  # both hands copy the dealer's: the banker wins
    hands = {"dealer": "KS KH 8D 8C 4S 3H 2D", "1": "KD KC 9S 9H 5D 3C 2S"}
    rnd = _round(hands)
    rnd.set_hand("1", "KD KC 5D 3C 2S", "9S 9H")  # high beats KK432? KK532 > KK432; 99 > 88: win
    assert rnd.finish().player_result("1") == 1
    rnd = _round(hands)
    rnd.set_hand("1", "KD KC 9S 9H 5D", "3C 2S")
    assert rnd.finish().player_result("1") == 0  # wins high, loses low: push


def test_a_foul_is_refused_unless_confirmed_then_an_automatic_loser():
    rnd = _round()
    with pytest.raises(TableRuleError) as e:
        rnd.set_hand("1", "QD QC 9S 6D 5H", "AS AH")
    assert e.value.field == "low"
    rnd.set_hand("1", "QD QC 9S 6D 5H", "AS AH", confirm_foul=True)
    rnd.set_house_way("2")
    rnd.set_house_way("3")
    out = rnd.finish()
    assert out.hands["1"].foul and out.player_result("1") == -1
    s = P.settle([Bet("main", 10_000, "p1", "1")], out, R)[0]
    assert s.result == "lose" and s.payout == 0


@pytest.mark.parametrize("high, low, field", [
    ("AS AH 9S 6D", "QD QC 5H", "high"),  # four and three cards
    ("AS AH 9S 6D 5H QD", "QC", "high"),
    ("AS AH 9S 6D 5H", "QD KC", "cards"),  # a card not dealt to the hand
    ("AS AH 9S 6D 6D", "QD QC", "cards"),  # a card twice
    ("AS AH 9S 6D XX", "QD QC", "cards"),
])
def test_invalid_settings_are_refused(high, low, field):
    rnd = _round()
    with pytest.raises(TableRuleError) as e:
        rnd.set_hand("1", high.split(), low.split())
    assert e.value.field == field
    assert "1" in rnd.waiting()


def test_acting_out_of_turn():
    hands = dict(HANDS)
    rnd = _round(hands, players={"1": "p1", "2": "p2", "3": "p3"}, banker="3", house_bet=10_000)
    with pytest.raises(TableRuleError) as e:
        rnd.set_house_way("3")  # the banking player sets after every player
    assert "out of turn" in str(e.value)
    with pytest.raises(TableRuleError):
        rnd.finish()  # players still to set
    rnd.set_house_way("1")
    rnd.set_house_way("2")
    rnd.set_house_way("3")
    with pytest.raises(TableRuleError):
        rnd.set_house_way("1")  # already set
    with pytest.raises(TableRuleError):
        rnd.set_house_way("5")  # nobody there
    rnd.finish()
    with pytest.raises(TableRuleError):
        rnd.set_house_way("2")


def test_dead_hands():
    hands = dict(HANDS, **{"2": "7S 7H 5D 4C 3S 2H"})  # six cards
    rnd = _round(hands)
    with pytest.raises(TableRuleError):
        rnd.set_house_way("2")
    rnd.set_house_way("1")
    rnd.set_house_way("3")
    out = rnd.finish()
    s = P.settle([Bet("main", 10_000, "p2", "2"), Bet("main", 10_000, "p1", "1")], out, R)
    assert s[0].result == "void" and s[0].payout == 10_000
    assert s[1].result in ("win", "push", "lose") and s[1].result != "void"
    # the banker's hand with eight cards: every hand is dead
    hands = dict(HANDS, dealer="KS KH 8D 8C 4S 3H 2D 9H")
    rnd = _round(hands)
    assert rnd.all_dead and rnd.waiting() == []
    out = rnd.finish()
    assert all(x.result == "void" for x in P.settle([Bet("main", 10_000, "p1", "1")], out, R))
    assert all(x.result == "void" for x in P.settle([Bet("main", 10_000, "p1", "1")], Void("misdeal"), R))


def test_player_banking_against_players_and_the_house():
    hands = {"dealer": "2S 3H 5D 7C 9S JH KD",  # no pair: the house's hand against the banker
             "1": "AS AH QD QC 9D 5H 6D",  # strong player
             "2": "4S 4H 6S 8H TC QS 3C",  # one pair: loses to the banker
             "3": "KS KH KC 8D 8C 4D 2H"}  # the banking player: full house
    rules = R
    bets = [Bet("main", 20_000, "p1", "1"), Bet("main", 10_000, "p2", "2")]
    cover = P.banker_cover(bets, "3", house_bet=10_000)
    assert cover == 40_000
    P.check_banker("3", 8, rules, played_previous=True, last_banked=1, bankroll=50_000, cover=cover)
    with pytest.raises(TableRuleError):
        P.check_banker("3", 7, rules, played_previous=True, last_banked=1, bankroll=50_000, cover=cover)
    with pytest.raises(TableRuleError):
        P.check_banker("3", 8, rules, played_previous=False, last_banked=None, bankroll=50_000, cover=cover)
    with pytest.raises(TableRuleError) as e:
        P.check_banker("3", 8, rules, played_previous=True, last_banked=None, bankroll=39_000, cover=cover)
    assert "cover" in str(e.value)
    assert [P.bank_offer(n, rules) for n in range(1, 9)] == ["dealer", "6", "5", "4", "3", "2", "1", "dealer"]

    rnd = _round(hands, players={"1": "p1", "2": "p2", "3": "p3"}, banker="3", house_bet=10_000)
    rnd.set_hand("1", "AS AH 9D 5H 6D", "QD QC")
    rnd.set_house_way("2")
    rnd.set_house_way("3")  # KKK 4 2 / 88 (full house split: trips high, pair low)
    out = rnd.finish()
    assert out.banker == "3" and out.player_result("1") == 0  # AA vs KKK high: banker; QQ vs 88: player
    assert out.player_result("2") == -1
    assert out.house_result == -1  # the house's no-pair hand loses to the bank
    bank = Bet("bank", cover, "p3", "3")
    s = P.settle([*bets, bank], out, rules)
    assert [x.result for x in s] == ["push", "lose", "win"]
    assert s[2].win == 10_000 + 10_000 and s[2].commission == 1_000
    # money: players + banker + house = 0
    assert sum(x.net for x in s) + P.house_net(out, s) == 0


def test_a_banker_who_fouls_pays_every_player():
    hands = {"dealer": "2S 3H 5D 7C 9S JH KD", "1": "4S 4H 6S 8H TC QS 3C", "3": "KS KH KC 8D 8C 4D 2H"}
    rnd = _round(hands, players={"1": "p1", "3": "p3"}, banker="3", house_bet=5_000)
    rnd.set_house_way("1")
    rnd.set_hand("3", "KS 4D 2H 8D 8C", "KH KC", confirm_foul=True)  # pair of 8s high, kings low: foul
    out = rnd.finish()
    assert out.banker_hand.foul
    assert out.player_result("1") == 1 and out.house_result == 1
    s = P.settle([Bet("main", 10_000, "p1", "1"), Bet("bank", 15_000, "p3", "3")], out, R)
    assert s[0].result == "win" and s[0].commission == 500
    assert s[1].result == "lose" and s[1].payout == 0
    assert sum(x.net for x in s) + P.house_net(out, s) == 0


def test_bets_and_limits():
    lim = P.default_limits()
    ok = P.check_bet(Bet("main", 10_000, "p1", "1"), lim)
    assert ok.spot == "main"
    with pytest.raises(TableRuleError) as e:
        P.check_bet(Bet("side", 10_000, "p1", "1"), lim)
    assert e.value.field == "spot"
    with pytest.raises(TableRuleError):
        P.check_bet(Bet("main", 10_000, "p1"), lim)
    assert P.PaiGowRules.from_dict(P.HOUSE_WAY_93.to_dict()) == P.HOUSE_WAY_93


# --------------------------------------------------------------------------------------- helpers
def test_house_way_for_me_is_the_tables_policy():
    rnd = _round(rules=P.HOUSE_WAY_93)
    s = rnd.set_house_way("2")
    assert s == P.house_way(HANDS["2"], "9-3")
    assert "2" in rnd.outcome().hands and rnd.outcome().hands["2"].house_way


def test_optimal_setting_ranks_settings_against_the_dealers_house_way():
    best = P.optimal_setting("JK AS AH AD AC KS KH", SeededRng(1), samples=150)
    assert best[0].setting.low_key == (1, 13) and best[0].ev > 0.6  # five aces high, kings low
    vals = P.optimal_setting("AS AH KD KC 9S 5H 2D", SeededRng(2), samples=300)
    assert all(not v.setting.foul for v in vals)
    assert vals == sorted(vals, key=lambda v: v.ev, reverse=True)
    hw = P.house_way("AS AH KD KC 9S 5H 2D", "9-1")
    hw_ev = next(v.ev for v in vals if (v.setting.high_key, v.setting.low_key) == (hw.high_key, hw.low_key))
    assert vals[0].ev >= hw_ev
    assert 0 < vals[0].se < 0.1
