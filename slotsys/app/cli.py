"""The ``slotsys`` command: run the floor, migrate, seed, emulate machines."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from slotsys.kernel.settings import get_settings


@click.group()
def main() -> None:
    """Casino slot floor & jackpot system."""


@main.command()
def migrate() -> None:
    """Apply database migrations (Alembic) to DATABASE_URL."""
    from slotsys.app.migrate import upgrade

    upgrade(get_settings().database_url)
    click.echo("migrations applied")


def _seed(reissue: bool) -> dict | None:
    from slotsys.app.bootstrap import build_services
    from slotsys.app.seed import reissue_credentials, seed_demo

    settings = get_settings()
    svc = build_services(settings)
    creds = seed_demo(svc)
    if creds is None and (reissue or not settings.credentials_file.exists()):
        creds = reissue_credentials(svc)
    if creds is not None:
        creds["url"] = f"http://{settings.host}:{settings.port}"
        settings.credentials_file.parent.mkdir(parents=True, exist_ok=True)
        settings.credentials_file.write_text(json.dumps(creds, indent=2))
        os.chmod(settings.credentials_file, 0o600)
    return json.loads(settings.credentials_file.read_text())


@main.command()
@click.option("--reissue", is_flag=True, help="issue new demo keys and passwords")
def seed(reissue: bool) -> None:
    """Seed the demo floor (once) and write its credentials file."""
    _seed(reissue)
    click.echo(f"credentials: {get_settings().credentials_file}")


def _print_credentials(creds: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(width=max(Console().width, 120))
    t = Table(title="Demo staff (POST /api/v1/auth/login)")
    for col in ("username", "password", "role"):
        t.add_column(col)
    for s in creds["staff"]:
        t.add_row(s["username"], s["password"], s["role"])
    con.print(t)
    m = Table(title="Demo machines (Authorization: Bearer <key>)")
    for col in ("asset", "zone", "game", "denom"):
        m.add_column(col)
    m.add_column("key", overflow="fold")
    for x in creds["machines"]:
        m.add_row(x["asset"], x["zone"], x["game"], f"₩{x['denomination']:,}", x["key"])
    con.print(m)
    con.print(f"Credentials file: {get_settings().credentials_file}")


class _Gunicorn:
    @staticmethod
    def serve(app, options: dict) -> None:
        from gunicorn.app.base import BaseApplication

        class App(BaseApplication):
            def load_config(self):
                for k, v in options.items():
                    self.cfg.set(k, v)

            def load(self):
                return app

        App().run()


@main.command()
@click.option("--threads", default=8, show_default=True)
def run(threads: int) -> None:
    """Migrate, seed the demo floor, print credentials and serve (embedded default: SQLite,
    Celery tasks in-process) on SLOTSYS_HOST:SLOTSYS_PORT (127.0.0.1:8000)."""
    from slotsys.app.migrate import upgrade

    settings = get_settings()
    upgrade(settings.database_url)
    creds = _seed(False)
    _print_credentials(creds)
    from slotsys.app.factory import create_app

    app = create_app(settings)
    _start_embedded_purge(settings)  # no beat in the embedded default: purge old idempotency records here
    app.extensions["slotsys"].events.embedded_sweep = settings.eager  # and the machines' offline sweep
    click.echo(f"serving on http://{settings.host}:{settings.port}  (database: {settings.database_url.split('@')[-1]}, "
               f"tasks: {'in-process' if settings.eager else 'Celery via ' + str(settings.redis_url)})")
    _Gunicorn.serve(app, {"bind": f"{settings.host}:{settings.port}", "workers": 1, "threads": threads,
                          "worker_class": "slotsys.server.gunicorn_worker.AdmissionWorker", "accesslog": None, "timeout": 60})


def _start_embedded_purge(settings) -> None:
    """The embedded default has no beat: a daemon thread in this (the gunicorn master) process purges expired
    idempotency records at start and every SLOTSYS_IDEMPOTENCY_PURGE_INTERVAL_S, on its own engine (never a
    connection the forked worker inherited). With a broker, beat's slotsys.purge_idempotency does it."""
    if not settings.eager:
        return
    import threading

    def loop() -> None:
        import structlog

        from slotsys.kernel.adapters.db import make_engine
        from slotsys.app.bootstrap import make_uow
        from slotsys.kernel.ports import SystemClock
        from slotsys.kernel.retention import purge_idempotency

        log = structlog.get_logger("slotsys.retention")
        uow = make_uow(make_engine(settings.database_url))
        while True:
            try:
                report = purge_idempotency(uow, SystemClock.now(), retention_days=settings.idempotency_retention_days,
                                           batch_size=settings.idempotency_purge_batch)
                log.info("idempotency.purged", **report.as_dict())
            except Exception:  # the next round retries; serving never depends on the purge
                log.warning("idempotency.purge_failed", exc_info=True)
            threading.Event().wait(settings.idempotency_purge_interval_s)

    threading.Thread(target=loop, name="idempotency-purge", daemon=True).start()


@main.command("purge-idempotency")
@click.option("--dry-run", is_flag=True, help="count the records past the retention window, delete nothing")
def purge_idempotency_cmd(dry_run: bool) -> None:
    """Delete idempotency records older than SLOTSYS_IDEMPOTENCY_RETENTION_DAYS (default 7) in batches of
    SLOTSYS_IDEMPOTENCY_PURGE_BATCH rows, each its own transaction; prints the report as JSON."""
    from slotsys.app.bootstrap import build_services
    from slotsys.kernel.retention import purge_from_settings

    report = purge_from_settings(build_services(get_settings()).ctx, dry_run=dry_run)
    click.echo(json.dumps(report.as_dict()))


@main.command("staff-unlock")
@click.argument("username")
def staff_unlock(username: str) -> None:
    """Lift USERNAME's sign-in lock-out from the server's console (as the admin API does): for the day the only
    admin is the account locked out. Recorded in the sign-in audit trail as an unlock by ``console``."""
    from slotsys.app.bootstrap import build_services
    from slotsys.kernel.context import Principal

    svc = build_services(get_settings())
    click.echo(json.dumps(svc.auth.unlock(Principal("staff", "console", "admin"), username, "console").model_dump()))


@main.command()
@click.option("--host", default=None, help="default: SLOTSYS_HOST")
@click.option("--port", type=int, default=None, help="default: SLOTSYS_STREAM_PORT (8001)")
def streams(host, port) -> None:
    """Serve the jackpot streams on an event loop (behind nginx; needs REDIS_URL): docs/streams.md."""
    from slotsys.app.bootstrap import build_services
    from slotsys.server.streams.server import run as serve_streams

    settings = get_settings()
    if not settings.redis_url:
        raise SystemExit("slotsys streams needs REDIS_URL (the web nodes publish the signage channel there); "
                         "the embedded default (make run) serves streams inside its gunicorn worker instead")
    serve_streams(build_services(settings), settings, host or settings.host, port or settings.stream_port)


@main.command()
@click.option("--heartbeat-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="touched at least every second while the loop runs (a health check reads its age)")
def sequencer(heartbeat_file: Path | None) -> None:
    """The jackpot sequencer as a process of its own (SLOTSYS_JACKPOT_SEQUENCER=process on every node):
    one active per floor by a PostgreSQL lease, any others wait as standbys and take over within a second
    of the active one's death. Stops on SIGTERM / SIGINT: docs/jackpots.md "The sequencer process"."""
    import signal
    import threading

    from jackpot_controller.services.sequencer import run_sequencer_process
    from slotsys.app.bootstrap import build_services
    from slotsys.kernel.logging import configure_logging

    settings = get_settings()
    configure_logging(settings.log_json, settings.log_level)
    svc = build_services(settings)
    if svc.uow.engine.dialect.name != "postgresql":
        raise click.ClickException("the sequencer process needs PostgreSQL (DATABASE_URL); the embedded "
                                   "SQLite default folds inside each spin")
    if svc.jackpots.settings.sequencer != "process":
        raise click.ClickException("set SLOTSYS_JACKPOT_SEQUENCER=process here and on every web and worker "
                                   "node, so that no web process folds beside it")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    run_sequencer_process(svc.jackpots, stop, heartbeat=heartbeat_file.touch if heartbeat_file else (lambda: None))


@main.command()
@click.option("--url", default=None, help="base URL (default: the demo credentials file's)")
@click.option("--machines", "n_machines", default=20, show_default=True)
@click.option("--spins", default=200, show_default=True, help="spins per machine")
@click.option("--credentials", "cred_path", type=click.Path(path_type=Path), default=None,
              help="credentials JSON (default: var/demo-credentials.json from make run)")
@click.option("--seed", "rng_seed", type=int, default=None, help="seed for the emulator's choices")
@click.option("--concurrency", default=8, show_default=True, help="machines playing at once")
@click.option("--event-rate", default=0.02, show_default=True, help="chance per spin of a machine event (doors, printer, power)")
@click.option("--offline-after", type=float, default=0.0, show_default=True,
              help="the server's SLOTSYS_MACHINE_OFFLINE_AFTER_S: one machine goes silent longer than that (0: never)")
@click.option("--machine-reported", "machine_reported", default=0, show_default=True,
              help="machines (the last N) that decide their own outcomes and report them (machine mode)")
@click.option("--sas", "sas_machines", default=0, show_default=True,
              help="instead: N emulated SAS machines on pseudo-terminals against a SAS host over the floor's services "
                   "(DATABASE_URL), the floor's first N never-SAS machines")
@click.option("--seconds", default=30.0, show_default=True, help="with --sas: how long the machines play")
@click.option("--drop", default=0.0, show_default=True, help="with --sas: probability a machine's response is lost")
@click.option("--corrupt", default=0.0, show_default=True, help="with --sas: probability a response's CRC is corrupted")
@click.option("--pause", default=1.0, show_default=True, help="with --sas: seconds between two actions of a machine")
def emulate(url, n_machines, spins, cred_path, rng_seed, concurrency, event_rate, offline_after, machine_reported,
            sas_machines, seconds, drop, corrupt, pause) -> None:
    """Play like real machines over HTTP (or over SAS with --sas N); exits non-zero on any error, a meter the floor
    does not agree with, or an unbalanced ledger."""
    if sas_machines:
        from slotsys.app.bootstrap import build_services
        from slotsys.app.emulator_sas import run_sas_floor
        from slotsys.kernel.logging import configure_logging

        settings = get_settings()
        configure_logging(settings.log_json, "WARNING")
        svc = build_services(settings)
        svc.game_library.warm()
        try:
            sys.exit(run_sas_floor(svc, sas_machines, seconds=seconds, drop=drop, corrupt=corrupt,
                                   seed=rng_seed or 1, pause_s=pause, echo=click.echo))
        finally:
            svc.jackpots.driver.stop()
    from slotsys.app.emulator import run_emulator

    sys.exit(run_emulator(url=url, n_machines=n_machines, spins=spins, cred_path=cred_path,
                          rng_seed=rng_seed, concurrency=concurrency, event_rate=event_rate,
                          offline_after=offline_after, machine_reported=machine_reported))


_PASS_THROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []}


@main.command("sas-host", context_settings=_PASS_THROUGH)
@click.option("--prepare", is_flag=True,
              help="first set the --machine assets to machine mode and SAS secure enhanced validation")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def sas_host(prepare: bool, args: tuple[str, ...]) -> None:
    """The SAS host on one channel over the floor's services (DATABASE_URL): every game, note, ticket and
    handpay of the polled machines on the ledger. ``slotsys sas-host --port /dev/ttyS0 --machine 1=M001``;
    ``--tcp HOST:PORT`` for an emulator over TCP; ``--memory`` for an in-memory floor; ``-h`` for every option
    (slotsys/sas/cli.py)."""
    from slotsys.sas.cli import sas_host_main

    if "-h" in args or "--help" in args:
        click.echo("slotsys sas-host [--prepare]: --prepare first sets the --machine assets to machine mode and SAS "
                   "secure enhanced validation (floor and TITO administration, audit-logged as the console)\n")

    built: dict = {}

    def make_floor(assets: list[str]):
        from slotsys.app.bootstrap import build_services
        from slotsys.app.wiring.sas import build_sas_floor, prepare_sas_machines
        from slotsys.kernel.logging import configure_logging

        settings = get_settings()
        configure_logging(settings.log_json, settings.log_level)
        svc = built["svc"] = build_services(settings)
        if prepare:
            prepare_sas_machines(svc, assets)
        return build_sas_floor(svc)

    def publish_links(channel: str, snapshots: list) -> None:  # the console's view of each link
        built["svc"].sas_links.publish(channel, snapshots)

    sys.exit(sas_host_main(list(args), make_floor=make_floor, publish_links=publish_links))


@main.command("sas-egm", context_settings=_PASS_THROUGH)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def sas_egm(args: tuple[str, ...]) -> None:
    """SAS machine emulators on a pseudo-terminal (``--pty``, prints its path) or TCP (``--tcp HOST:PORT``),
    played by random players: ``slotsys sas-egm --pty --address 1 --address 2``; ``-h`` for every option
    (faults: ``--drop``, ``--corrupt``, ``--power-cycle-every``)."""
    from slotsys.sas.cli import sas_egm_main

    sys.exit(sas_egm_main(list(args)))


from slotsys.app.mathcli import par, simulate  # noqa: E402  (game-math commands live in their own module)

main.add_command(par)
main.add_command(simulate)


if __name__ == "__main__":
    main()
