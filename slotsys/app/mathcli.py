"""Game-math commands: ``slotsys par`` (exact par sheet) and ``slotsys simulate`` (Monte Carlo proof)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import click


def is_path(game: str) -> bool:
    """A GAME argument names a file when it ends in .yaml/.yml or contains a slash."""
    return game.endswith((".yaml", ".yml")) or "/" in game or "\\" in game


def _game(game_id: str):
    """The definition named by GAME: a catalogue id, or a YAML file (``is_path``) loaded with
    :func:`slotsys.floor.domain.game.load_definition` (its id must equal the file's stem). A file's
    definition errors print as ``<file name>:<item path>: <problem>`` and exit 1."""
    from slotsys.floor.domain.game import GameDefinitionError, load_definition
    from slotsys.floor.games import catalogue, load_game

    if is_path(game_id):
        path = Path(game_id)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise click.BadParameter(f"cannot read {game_id}: {e}", param_hint="GAME") from None
        try:
            return load_definition(text, path.name)
        except GameDefinitionError as e:
            raise click.ClickException(str(e)) from None
    if game_id not in catalogue():
        raise click.BadParameter(f"unknown game {game_id!r}; known: {', '.join(sorted(catalogue()))}", param_hint="GAME_ID")
    return load_game(game_id)


def _label(b) -> str:
    return f"{b.lines} lines × {b.multiplier}" if b.lines else f"reels 1-{b.reels} × {b.multiplier}"


def _pct(x) -> str:
    return f"{float(x):.4%}"


def render_par_sheet(game, sheet) -> str:
    """The par sheet as plain text (what ``slotsys par`` prints and docs/par-sheets/ keeps)."""
    from rich.console import Console
    from rich.table import Table

    from slotsys.floor.domain.parsheet import HIT_FREQUENCY_LABELS

    con = Console(width=200, record=True, file=io.StringIO(), force_terminal=False, color_system=None)
    con.print(f"{game.name} ({game.id}) — variation {sheet.variation} — exact par sheet")
    con.print(f"RTP at full bet {_pct(sheet.rtp_full_bet)} (exact {sheet.rtp_full_bet.numerator}/"
              f"{sheet.rtp_full_bet.denominator}); lowest RTP over every option and choice {_pct(sheet.min_rtp)}")
    t = Table(title="Per bet option (default free-games choice)" if sheet.choices else "Per bet option")
    unit = "way" if game.kind == "reel_cost" else "line"
    cols = ["bet option", "credits"] + (["ways"] if game.kind == "reel_cost" else []) + [
        "RTP", "parts", "hit freq (1)", f"{unit} hit freq (2)"] + (["trigger freq (3)"] if sheet.free_games else []) + [
        "SD (× bet)", "VI 90%", "VI 95%"]
    for c in cols:
        t.add_column(c, justify="right")
    seen = set()
    for o in sheet.options:
        b = o.bet
        key = (b.lines, b.reels)
        if key in seen:
            continue  # multipliers scale bet and wins alike: one row per lines / reels bought
        seen.add(key)
        parts = ", ".join(f"{k} {float(v):.2%}" for k, v in o.rtp_parts.items())
        label = f"{b.lines} lines" if b.lines else f"reels 1-{b.reels}"
        row = [label + " × any", f"{b.credits // b.multiplier} × mult"] + ([str(o.ways)] if game.kind == "reel_cost" else [])
        row += [_pct(o.rtp), parts, f"{float(o.hit_frequency):.4f}", f"{float(o.line_hit_frequency):.4f}"]
        row += [f"{float(o.trigger_frequency):.6f}"] if sheet.free_games else []
        row += [f"{o.sd:.3f}", f"{o.vi_90:.3f}", f"{o.vi_95:.3f}"]
        t.add_row(*row)
    con.print(t)
    con.print("(1) " + HIT_FREQUENCY_LABELS["hit_frequency"] + "; (2) "
              + HIT_FREQUENCY_LABELS["line_hit_frequency"].replace("line/way", unit).replace("line or way", unit)
              + ("; (3) " + HIT_FREQUENCY_LABELS["trigger_frequency"] if sheet.free_games else "")
              + "; each per paid game")
    if sheet.choices:
        t = Table(title="RTP per free-games choice")
        t.add_column("bet option", justify="right")
        for i, name in enumerate(sheet.choices):
            t.add_column(f"{i}: {name}" + (" (default)" if i == sheet.default_choice else ""), justify="right")
        seen = set()
        for o in sheet.options:
            key = (o.bet.lines, o.bet.reels)
            if key in seen:
                continue
            seen.add(key)
            t.add_row(f"{o.bet.lines} lines" if o.bet.lines else f"reels 1-{o.bet.reels}",
                      *[f"{_pct(c.rtp)} (SD {c.sd:.2f})" for c in o.by_choice])
        con.print(t)
    fg = sheet.free_games
    if fg is not None:
        con.print(f"Free games: trigger 1 in {float(1 / fg.trigger_probability):,.1f} paid games "
                  f"(p = {float(fg.trigger_probability):.6f}); retrigger p = {float(fg.retrigger_probability):.6f} per "
                  f"free game; expected free games per trigger: "
                  + ", ".join(f"{float(x):.3f}" for x in fg.games_per_trigger))
    if sheet.top_award is not None:
        a = sheet.top_award
        con.print(f"Top award: {a.key} = {a.pay_credits:,} credits at full bet; probability {float(a.probability):.3e} "
                  f"per game, cycle 1 in {a.cycle:,.0f}")
    for lvl, p in sheet.progressive.items():
        con.print(f"Progressive {lvl} (not in RTP): probability {float(p):.3e} per qualifying game, cycle 1 in {float(1 / p):,.0f}")
    if sheet.max_award_credits:
        con.print(f"Maximum award (award guard): {sheet.max_award_credits:,} credits")
    t = Table(title="Awards (probability per game at full bet; line awards on one given line)")
    for c in ("award", "pay (credits, full bet)", "probability", "cycle"):
        t.add_column(c, justify="right")
    for a in sheet.awards:
        t.add_row(a.key, f"{a.pay_credits:,}" if a.pay_credits else "-", f"{float(a.probability):.3e}", f"{a.cycle:,.0f}")
    con.print(t)
    bad = sheet.unreachable_awards()
    con.print("GLI-11 §4.8.2 reachability (each advertised award at least once in 100,000,000 games): "
              + ("PASS, all awards reachable" if not bad else "FAIL, unreachable: " + ", ".join(bad)))
    return con.export_text()


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--variation", default=None, help="RTP variation (default: the game's default)")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def par(game_id: str, variation: str | None, as_json: bool) -> None:
    """Print the exact par sheet of GAME for every bet option (and free-games choice).

    GAME is a catalogue game id or a definition file (PATH.yaml, or any path with a slash)."""
    from slotsys.floor.domain.game import UnknownVariation
    from slotsys.floor.domain.parsheet import par_sheet

    game = _game(game_id)
    try:
        sheet = par_sheet(game, variation)
    except UnknownVariation as e:
        raise click.BadParameter(e.message, param_hint="--variation") from None
    if as_json:
        click.echo(json.dumps(sheet.to_dict(), indent=2))
        return
    click.echo(render_par_sheet(game, sheet))


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--spins", type=click.IntRange(min=1), default=1_000_000, show_default=True, help="paid games to simulate")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="seed of the chunks' PCG64 streams (same seed and chunking, same result on any number of workers)")
@click.option("--variation", default=None, help="RTP variation (default: the game's default)")
@click.option("--bet", "bet_spec", default=None,
              help="bet option: LINES×MULT / rREELS×MULT, e.g. 50x10, r3x2 (default: the full bet)")
@click.option("--choice", type=int, default=None, help="free-games choice index (default: the game's default)")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write PNG charts (RTP convergence with the ±4 SE band, win distribution) here")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="processes on this machine (default: every core this process may use; 1: this process)")
@click.option("--chunk-spins", type=click.IntRange(min=1), default=None,
              help="paid games per chunk (default: spins / 64 within 250,000 … 10,000,000); part of the result's identity")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="keep completed chunks in this file; the same command again resumes from it")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="play the chunks on a Dask distributed cluster (e.g. tcp://10.0.0.5:8786) instead of local processes")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def simulate(game_id, spins, seed, variation, bet_spec, choice, plot_dir, workers, chunk_spins, checkpoint, scheduler,
             as_json) -> None:
    """Simulate GAME (vectorised, seeded) and compare its RTP with the exact par sheet.

    GAME is a catalogue game id or a definition file (PATH.yaml, or any path with a slash).
    The run is cut into chunks with streams of their own (docs/simulation.md): the same seed,
    spins and chunk size give the same result on 1 or N workers, on a cluster and after a resume.

    Exits 1 when |RTP_sim − RTP_exact| ≥ 4 × SD / √spins (the exact SD); 130 when interrupted
    (completed chunks stay in --checkpoint).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from slotsys.floor.domain.game import InvalidBet, UnknownVariation
    from slotsys.floor.domain.parsheet import par_sheet
    from slotsys.floor.domain.sim import agreement
    from slotsys.floor.domain.simplan import ChunkPlan, CheckpointMismatch, SimSpec
    from slotsys.floor.simrun import CheckpointError, run_simulation

    game = _game(game_id)
    try:
        bet = _parse_bet(game, bet_spec)
        spec = SimSpec(game, bet, variation, choice)
        sim = spec.build()
        sheet = par_sheet(game, variation)
    except InvalidBet as e:
        raise click.BadParameter(e.message, param_hint="--choice" if e.field == "choice" else "--bet") from None
    except UnknownVariation as e:
        raise click.BadParameter(e.message, param_hint="--variation") from None
    fig = sheet.option(lines=sim.bet.lines, reels=sim.bet.reels, multiplier=sim.bet.multiplier)
    exact = fig
    if fig.by_choice and sim.choice is not None:
        exact = fig.by_choice[sim.choice]
    plan = ChunkPlan.for_spins(spins, seed, chunk_spins)
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), TimeRemainingColumn(), disable=as_json, transient=True) as prog:
        task = prog.add_task("", total=spins)
        last = [0]

        def show(p) -> None:
            last[0] = p.chunks_done
            prog.update(task, completed=p.spins_done, description=f"chunk {p.chunks_done}/{p.chunks}")

        try:
            run = run_simulation(spec, plan, workers=workers, scheduler=scheduler, checkpoint=checkpoint,
                                 progress=show, sim=sim)
        except (CheckpointMismatch, CheckpointError) as e:
            raise click.BadParameter(str(e), param_hint="--checkpoint") from None
        except OSError as e:
            if scheduler is None:
                raise
            raise click.ClickException(f"Dask scheduler {scheduler}: {e}") from None
        except KeyboardInterrupt:
            click.echo(f"interrupted with {last[0]:,} of {plan.chunks:,} chunks complete"
                       + (f"; they are in {checkpoint}: the same command resumes" if checkpoint and last[0]
                          else "; rerun with --checkpoint PATH to keep completed chunks" if not checkpoint else ""),
                       err=True)
            sys.exit(130)
    res = run.result
    ok, z = agreement(res.rtp, float(exact.rtp), exact.sd, res.spins)
    se = exact.sd / res.spins ** 0.5
    out = {**res.to_dict(), "rtp_exact": float(exact.rtp), "sd_exact": exact.sd, "standard_error": se,
           "ci95": [res.rtp - 1.96 * se, res.rtp + 1.96 * se], "z": z, "agrees_within_4_se": ok,
           "hit_frequency_exact": float(fig.hit_frequency), "line_hit_frequency_exact": float(fig.line_hit_frequency),
           "trigger_frequency_exact": float(fig.trigger_frequency),
           "run": {**plan.to_dict(), "executor": run.executor, "workers": run.workers, "resumed_chunks": run.resumed,
                   "seconds": run.seconds}}
    if plot_dir is not None:
        out["plots"] = [str(p) for p in _plots(res, float(exact.rtp), exact.sd, plot_dir)]
    if as_json:
        click.echo(json.dumps(out, indent=2))
    else:
        b = sim.bet
        click.echo(f"{game.name} ({game.id}) variation {res.variation}, bet {_label(b)} = {b.credits} credits"
                   + (f", free-games choice {res.choice}" if res.choice is not None else "")
                   + f", {res.spins:,} paid games, seed {seed}")
        where = {"in-process": " in this process", "processes": f" on {run.workers} worker processes",
                 "dask": f" on {run.workers} Dask worker threads at {scheduler}", "checkpoint": ""}[run.executor]
        click.echo(f"  {plan.chunks:,} chunk{'s' if plan.chunks != 1 else ''} of {plan.chunk_spins:,}{where}"
                   + (f", {'all' if not run.played else f'{run.resumed:,}'} resumed from {checkpoint}" if run.resumed else "")
                   + (f"; {run.seconds:,.1f} s ({run.spins_per_second:,.0f} paid games/s)" if run.played else ""))
        click.echo(f"  RTP simulated {res.rtp:.4%} ± {1.96 * se:.4%} (95% CI {out['ci95'][0]:.4%} … {out['ci95'][1]:.4%})")
        click.echo(f"  RTP exact     {float(exact.rtp):.4%}   z = {z:+.2f} standard errors (SD {exact.sd:.3f} × bet)")
        click.echo(f"  hit frequency (any win incl. scatter pays and feature triggers) {res.hit_frequency:.4f} simulated, "
                   f"{float(fig.hit_frequency):.4f} exact")
        click.echo(f"  {'way' if game.kind == 'reel_cost' else 'line'} hit frequency (base-game wins only) "
                   f"{res.line_hit_frequency:.4f} simulated, {float(fig.line_hit_frequency):.4f} exact")
        if game.free_games is not None:
            click.echo(f"  feature trigger frequency {res.trigger_frequency:.6f} simulated, "
                       f"{float(fig.trigger_frequency):.6f} exact")
        if res.triggers:
            click.echo(f"  free games: {res.triggers:,} triggers, {res.free_games:,} played "
                       f"({res.free_games / res.triggers:.3f} per trigger)")
        for lvl, n in res.progressive.items():
            click.echo(f"  progressive {lvl}: {n:,} hits")
        click.echo(f"  largest win {res.max_win:,} credits" + (f" (max award {game.max_award_credits:,})" if game.max_award_credits else ""))
        for p in out.get("plots", []):
            click.echo(f"  wrote {p}")
        click.echo("  AGREE: within 4 standard errors" if ok else "  DISAGREE: 4 standard errors or more")
    if not ok:
        sys.exit(1)


def _parse_bet(game, spec: str | None):
    from slotsys.floor.domain.game import InvalidBet

    if spec is None:
        return game.full_bet()
    s = spec.lower().replace("×", "x").replace("*", "x")
    try:
        units, mult = s.split("x")
        n, m = int(units[1:] if units.startswith("r") else units), int(mult)
    except ValueError:
        raise InvalidBet("bet", f"--bet must look like 50x10 (lines × multiplier) or r5x10 (reels × multiplier); got {spec!r}") from None
    if units.startswith("r"):
        return game.resolve_bet(reels=n, multiplier=m)
    return game.resolve_bet(lines=n, multiplier=m)


def _plots(res, exact_rtp: float, exact_sd: float, out_dir: Path) -> list[Path]:
    """RTP convergence (with the exact value and its ±4 SE band) and the win distribution, as PNGs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{res.game_id}_{res.variation}_{res.bet.lines or 'r' + str(res.bet.reels)}x{res.bet.multiplier}_s{res.seed}"
    n = np.array([c[0] for c in res.checkpoints], dtype=float)
    r = np.array([c[1] for c in res.checkpoints])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    band = 4 * exact_sd / np.sqrt(n)
    ax.fill_between(n, exact_rtp - band, exact_rtp + band, alpha=0.25, label="exact ± 4 SE")
    ax.axhline(exact_rtp, color="k", lw=1, label=f"exact {exact_rtp:.4%}")
    ax.plot(n, r, lw=1.2, label="simulated")
    ax.set_xscale("log")
    ax.set_xlabel("paid games")
    ax.set_ylabel("RTP")
    ax.set_title(f"{res.game_id} v{res.variation}: RTP convergence")
    ax.legend()
    p1 = out_dir / f"{stem}_rtp.png"
    fig.tight_layout()
    fig.savefig(p1, dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    edges = res.win_bins
    counts = res.win_hist
    mids = np.where(edges[1:] > 1e-9, np.sqrt(np.maximum(edges[:-1], 1e-3) * edges[1:]), 0)
    ax.bar(range(len(counts)), counts / max(1, res.spins), color="tab:blue")
    ticks = list(range(0, len(counts), 5))
    ax.set_xticks(ticks, [f"{mids[i]:.2g}" for i in ticks], rotation=45)
    ax.set_yscale("log")
    ax.set_xlabel("win / total bet (0 = no win)")
    ax.set_ylabel("share of paid games")
    ax.set_title(f"{res.game_id} v{res.variation}: win distribution ({res.spins:,} games)")
    p2 = out_dir / f"{stem}_wins.png"
    fig.tight_layout()
    fig.savefig(p2, dpi=110)
    plt.close(fig)
    return [p1, p2]
