"""Game-math commands: ``slotsys par`` (and, later, ``slotsys simulate``)."""

from __future__ import annotations

import json

import click


@click.command()
@click.argument("game_id")
@click.option("--variation", default=None, help="RTP variation (default: the game's default)")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def par(game_id: str, variation: str | None, as_json: bool) -> None:
    """Print the exact par sheet of GAME_ID for every bet option."""
    from rich.console import Console
    from rich.table import Table

    from slotsys.domain.parsheet import par_sheet
    from slotsys.games import catalogue, load_game

    if game_id not in catalogue():
        raise click.BadParameter(f"unknown game {game_id!r}; known: {', '.join(sorted(catalogue()))}", param_hint="GAME_ID")
    game = load_game(game_id)
    sheet = par_sheet(game, variation)
    if as_json:
        click.echo(json.dumps(sheet.to_dict(), indent=2))
        return
    t = Table(title=f"{game.name} ({game.id}), variation {sheet.variation}: exact par sheet")
    for col in ("bet option", "credits", "RTP", "parts", "hit frequency", "SD (× bet)", "VI 90%"):
        t.add_column(col, justify="right")
    for o in sheet.options:
        b = o.bet
        label = f"{b.lines} lines × {b.multiplier}" if b.lines else f"reels 1-{b.reels} × {b.multiplier}"
        parts = ", ".join(f"{k} {float(v):.2%}" for k, v in o.rtp_parts.items())
        t.add_row(label, str(b.credits), f"{float(o.rtp):.4%}", parts, f"{float(o.hit_frequency):.4f}", f"{o.sd:.3f}",
                  f"{o.volatility_index:.3f}")
    Console(width=160).print(t)
    bad = sheet.unreachable_awards()
    click.echo(f"GLI-11 reachability (1 in 100,000,000): {'all awards reachable' if not bad else 'UNREACHABLE: ' + ', '.join(bad)}")


