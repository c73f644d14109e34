"""`slotsys par` and `slotsys simulate`, and the worked example of docs/game-format.md."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from click.testing import CliRunner

from slotsys.floor.domain.game import parse_game
from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.domain.sim import agreement
from slotsys.app.mathcli import par, simulate

ROOT = Path(__file__).resolve().parents[2]


def test_par_prints_every_option_choice_and_the_gli_check():
    r = CliRunner().invoke(par, ["tiger_reels_243", "--variation", "88"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "variation 88" in out and "reels 1-1" in out and "reels 1-5" in out
    assert "RTP per free-games choice" in out and "5 free games" in out
    assert "VI 95%" in out and "Top award" in out and "PASS, all awards reachable" in out
    r = CliRunner().invoke(par, ["dragon_pearl_50", "--json"])
    d = json.loads(r.output)
    assert d["variation"] == "92" and len(d["options"]) == 35 and d["progressive"]["DRAGON_GRAND"]["cycle"] > 1e5
    assert d["gli11_unreachable"] == [] and d["max_award_credits"] == 2_500_000
    r = CliRunner().invoke(par, ["dragon_pearl_50", "--variation", "77"])
    assert r.exit_code == 2 and "no variation '77'" in r.output
    r = CliRunner().invoke(par, ["nope"])
    assert r.exit_code == 2 and "unknown game" in r.output


def test_simulate_agrees_with_the_exact_rtp_and_writes_charts(tmp_path):
    r = CliRunner().invoke(simulate, ["tiger_reels_243", "--spins", "100000", "--seed", "11", "--bet", "r3x2",
                                      "--choice", "1", "--plot", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    # CliRunner swaps sys.stdout for the whole process, so a log line of another test's background thread (structlog
    # prints to stdout) can land in r.output beside the JSON: read the one JSON object that starts a line
    start = 0 if r.output.startswith("{") else r.output.index("\n{") + 1
    d, _ = json.JSONDecoder().raw_decode(r.output[start:])
    assert d["spins"] == 100_000 and d["bet"]["reels"] == 3 and d["choice"] == 1 and d["agrees_within_4_se"]
    assert d["ci95"][0] < d["rtp"] < d["ci95"][1]
    assert abs(d["rtp"] - d["rtp_exact"]) < 4 * d["standard_error"]
    pngs = sorted(Path(p) for p in d["plots"])
    assert len(pngs) == 2 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    again = json.loads(CliRunner().invoke(simulate, ["tiger_reels_243", "--spins", "100000", "--seed", "11", "--bet",
                                                     "r3x2", "--choice", "1", "--json"]).output)
    assert again["rtp"] == d["rtp"], "same seed, same result"
    r = CliRunner().invoke(simulate, ["dragon_pearl_50", "--spins", "100000", "--bet", "7x1"])
    assert r.exit_code == 2 and "lines must be one of" in r.output
    r = CliRunner().invoke(simulate, ["dragon_pearl_50", "--spins", "100000", "--choice", "2"])
    assert r.exit_code == 2 and "choice" in r.output
    r = CliRunner().invoke(simulate, ["dragon_pearl_50", "--spins", "50000", "--seed", "3"])
    assert r.exit_code == 0 and "AGREE" in r.output and "RTP exact" in r.output


def test_agreement_rule_is_four_standard_errors():
    assert agreement(0.95, 0.95, 10.0, 10_000)[0]
    ok, z = agreement(0.95 + 3.9 * 10 / 100, 0.95, 10.0, 10_000)
    assert ok and round(z, 6) == 3.9
    ok, z = agreement(0.95 - 4.1 * 10 / 100, 0.95, 10.0, 10_000)
    assert not ok and round(z, 6) == -4.1


def test_the_worked_example_of_the_format_doc_is_valid_and_as_stated():
    text = (ROOT / "docs" / "game-format.md").read_text()
    block = text.split("## Worked example")[1].split("```yaml")[1].split("```")[0]
    game = parse_game(block)
    sheet = par_sheet(game)
    assert game.id == "lucky_koi_243" and game.free_games.has_choice and game.progressives
    assert abs(sheet.rtp_full_bet - Fraction(9515, 10000)) < Fraction(1, 10000)
    assert sheet.min_rtp >= Fraction(843, 1000) and sheet.unreachable_awards() == []
