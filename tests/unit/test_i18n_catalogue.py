"""The message catalogue (slotsys/locale/<lang>/LC_MESSAGES/slotsys.po): every message the code uses has a
translation in every shipped language (none missing, empty or fuzzy), the placeholders agree, and the catalogue
a fresh checkout holds (the tracked .po, no compiled .mo) loads."""

from __future__ import annotations

import ast
import fnmatch
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from slotsys.app.web.messages import REFUSALS, SCREEN
from slotsys.app.web.pages import PAGES
from slotsys.kernel.api import i18n

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("slotsys", "jackpot_controller", "tito", "table_games")


def _titles_in_code() -> set[str]:
    """Every literal problem title the code can answer with: each DomainError subclass's ``title = "…"`` and the
    literal title (and literal detail) of every ``problem(status, title, detail, …)`` call."""
    found: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.bases:
                    for stmt in node.body:
                        if (isinstance(stmt, ast.Assign) and [getattr(t, "id", None) for t in stmt.targets] == ["title"]
                                and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                            found.add(stmt.value.value)
                elif isinstance(node, ast.Call) and path.parts[-3:-1] != ("server", "streams"):
                    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                    if name == "problem":  # problem(status, title, detail, …): a literal, or a literal fallback (x or "…")
                        for arg in node.args[1:3]:
                            values = arg.values if isinstance(arg, ast.BoolOp) else [arg]
                            found.update(v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def _http_names() -> set[str]:
    import werkzeug.exceptions as w

    return {exc().name for exc in w.default_exceptions.values()}


def used_messages() -> set[tuple[str | None, str]]:
    """(msgctxt, msgid) of every message the code looks up."""
    ids: set[tuple[str | None, str]] = {(None, t) for t in _titles_in_code() | _http_names()}
    for english in [*SCREEN.values(), *REFUSALS.values()]:
        ids.add(english if isinstance(english, tuple) else (None, english))
    ids.update((None, title) for _, title, _ in PAGES)
    return ids


def _catalog(lang: str):
    with i18n.catalogue_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain=i18n.DOMAIN)


TRANSLATED = [lang for lang in i18n.languages() if lang != i18n.DEFAULT]


def test_korean_is_shipped():
    assert "ko" in TRANSLATED


def test_the_code_scan_finds_the_messages_it_must():
    ids = {m for _, m in used_messages()}
    # a domain error's class title, a title given to problem() in the app factory, a werkzeug name, a screen word
    assert {"Ticket already redeemed", "Internal error", "Method Not Allowed", "Bills in", "Error"} <= ids
    assert len(_titles_in_code()) >= 50


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_the_code_uses_has_a_translation(lang):
    catalog = _catalog(lang)
    missing, fuzzy = [], []
    for context, msgid in sorted(used_messages(), key=lambda m: (m[0] or "", m[1])):
        entry = catalog.get(msgid, context)
        if entry is None or not entry.string:
            missing.append((context, msgid))
        elif entry.fuzzy:
            fuzzy.append((context, msgid))
    assert not missing, f"{len(missing)} messages without a {lang} translation (add them to {i18n.catalogue_path(lang)}):\n" + \
        "\n".join(f"  msgctxt {c!r} msgid {m!r}" if c else f"  msgid {m!r}" for c, m in missing)
    assert not fuzzy, f"fuzzy {lang} entries (review them, then drop the fuzzy flag): {fuzzy}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogue_has_no_fuzzy_empty_or_broken_entry(lang):
    catalog = _catalog(lang)
    entries = [m for m in catalog if m.id]
    assert len(entries) >= 300
    assert [m.id for m in entries if m.fuzzy or not m.string] == []
    assert not catalog.fuzzy, "the catalogue header is marked fuzzy"
    assert list(catalog.check()) == []  # placeholders (%s, %(name)s) agree between msgid and msgstr


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_are_in_the_language_not_the_english_copied(lang):
    catalog = _catalog(lang)
    copied = [m.id for m in catalog if m.id and m.string == m.id and any(c.isalpha() for c in m.id)]
    assert copied == [] or set(copied) <= {"ID"}, copied


def test_the_compiled_catalogue_answers_in_korean_and_english_is_the_identity():
    assert i18n.translate("Ticket already redeemed", "ko") == "이미 지급된 티켓입니다"
    assert i18n.translate("issued", "ko", "ticket status") == "발행됨"
    assert i18n.translate("Ticket already redeemed", "en") == "Ticket already redeemed"
    assert i18n.translate("Ticket already redeemed", "xx") == "Ticket already redeemed"
    assert i18n.translate("", "ko") == ""  # not the catalogue's header, which gettext files under the empty msgid


@pytest.mark.parametrize("header, lang", [
    (None, "en"), ("", "en"), ("ko", "ko"), ("ko-KR,ko;q=0.9,en-US;q=0.8", "ko"), ("en-US,en;q=0.9", "en"),
    ("fr-FR, ko;q=0.5", "ko"), ("fr", "en"), ("en;q=0.9, ko;q=0.8", "en"), ("*", "en"), ("KO", "ko"),
    ("ko;q=0", "en"), ("ko;q=abc", "en"), (";;,,", "en"), ("ko" * 5000, "en"),  # refused or unreadable: English
])
def test_accept_language_picks_a_shipped_language(header, lang):
    assert i18n.negotiate(header) == lang


def test_a_fresh_checkout_holds_the_catalogue_source_and_it_loads(tmp_path, monkeypatch):
    """Only the files git tracks under slotsys/locale (the .po sources; a compiled .mo is never committed: it is
    built in memory when first asked for) make a working catalogue."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(["git", "ls-files", "slotsys/locale"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    assert "slotsys/locale/ko/LC_MESSAGES/slotsys.po" in tracked
    assert not [p for p in tracked if p.endswith(".mo")]
    for rel in tracked:
        dest = tmp_path / Path(rel).relative_to("slotsys/locale")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((ROOT / rel).read_bytes())
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.languages.cache_clear()
    i18n.translations.cache_clear()
    try:
        assert i18n.languages() == ("en", "ko")
        assert i18n.translate("Bills in", "ko") == "지폐 투입"
    finally:
        monkeypatch.undo()
        i18n.languages.cache_clear()
        i18n.translations.cache_clear()


def test_an_installed_package_carries_the_catalogue():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["slotsys"]
    po = i18n.catalogue_path("ko").relative_to(ROOT / "slotsys").as_posix()
    assert any(fnmatch.fnmatch(po, p) for p in patterns), (po, patterns)
    assert any(d.split(">")[0].split("<")[0].strip().lower() == "babel" for d in data["project"]["dependencies"])
