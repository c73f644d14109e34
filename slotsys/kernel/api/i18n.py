"""The message catalogue: human text of the API (problem titles, fixed details) and of the screens, per language.

The source of each language is a gettext catalogue, ``slotsys/locale/<lang>/LC_MESSAGES/slotsys.po``, whose msgids
are the English text (English needs no catalogue). It is compiled to the binary ``.mo`` form in memory, with Babel,
the first time a language is asked for (so a fresh checkout and an installed wheel work without a build step, and no
compiled file can go stale beside its source). Only human text is translated: ``type``, codes, field names and
every other machine-readable value stay as they are.

The language of an API request is its ``Accept-Language`` (``ko``, ``ko-KR``, …; English by default and for any
language without a catalogue); the screens send the language the user chose with their buttons as that header.
docs/i18n.md says how to add a message or a language.
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

DOMAIN = "slotsys"
DEFAULT = "en"
LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"


def catalogue_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """English and every language with a shipped catalogue (``en`` first)."""
    found = sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (DEFAULT, *[lang for lang in found if lang != DEFAULT])


@lru_cache(maxsize=8)
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (the identity for English and unknown languages). Fuzzy entries are
    left out, as ``msgfmt`` leaves them out: a translation marked for review never reaches a user."""
    if lang == DEFAULT or lang not in languages():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with catalogue_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def translate(message: str, lang: str, context: str | None = None) -> str:
    """``message`` (its English text, the msgid) in ``lang``; the English text itself when there is none. The empty
    string stays empty (gettext would answer it with the catalogue's header)."""
    if not message:
        return message
    t = translations(lang)
    return t.pgettext(context, message) if context else t.gettext(message)


def negotiate(accept_language: str | None) -> str:
    """The best of :func:`languages` for an ``Accept-Language`` header value (RFC 9110 §12.5.4), English by default."""
    from werkzeug.datastructures import LanguageAccept
    from werkzeug.http import parse_accept_header

    if not accept_language:
        return DEFAULT
    return parse_accept_header(accept_language, LanguageAccept).best_match(languages(), default=DEFAULT) or DEFAULT


def request_language() -> str:
    """The language of the current Flask request (English outside one)."""
    from flask import has_request_context, request

    if not has_request_context():
        return DEFAULT
    return negotiate(request.headers.get("Accept-Language"))
