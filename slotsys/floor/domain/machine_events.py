"""The machine event vocabulary: SAS general exception codes (SAS 6.02/6.03, Appendix A, table A-1) and the
few events the system itself notices, each with its English and Korean label, severity, and whether it needs
a person on the floor (an attendant alert) and whether that alert is a security alert.

Pure: standard library only. Events arrive over the REST API (``kind`` or ``sas_code``) or SAS; both are
resolved here with :func:`resolve`. The SAS code list was checked against public SAS exception tables
(0x40–0x46 are the reel tilts; 0x47 is "$1.00 bill accepted" in SAS, so it is not a tilt here).

Also here: the drop window rule (:func:`parse_drop_windows`, :func:`in_drop_window`): a cashbox (stacker) removed
outside a scheduled drop window is a security alert.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import time

INFO, WARNING, CRITICAL = "info", "warning", "critical"
SEVERITIES = (INFO, WARNING, CRITICAL)


@dataclass(frozen=True)
class EventKind:
    """One kind of machine event.

    ``kind``: snake_case name; ``sas_code``: SAS general exception code (None for system events);
    ``en`` / ``ko``: labels; ``severity``: info | warning | critical; ``alert``: an attendant must attend
    (an alert is opened); ``security``: that alert is a security alert (surveillance is told);
    ``clears``: the kind of the condition this event ends (a door closed clears its door opened), or None."""

    kind: str
    sas_code: int | None
    en: str
    ko: str
    severity: str = INFO
    alert: bool = False
    security: bool = False
    clears: str | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["sas_hex"] = None if self.sas_code is None else f"0x{self.sas_code:02X}"
        return d


def _k(kind, code, en, ko, severity=INFO, alert=False, security=False, clears=None) -> EventKind:
    return EventKind(kind, code, en, ko, severity, alert, security, clears)


VOCABULARY: tuple[EventKind, ...] = (
    # doors (SAS 0x11–0x1E)
    _k("main_door_opened", 0x11, "Slot (main) door opened", "메인 도어 열림", WARNING, alert=True, security=True),
    _k("main_door_closed", 0x12, "Slot (main) door closed", "메인 도어 닫힘", clears="main_door_opened"),
    _k("drop_door_opened", 0x13, "Drop door opened", "드롭 도어 열림", WARNING, alert=True, security=True),
    _k("drop_door_closed", 0x14, "Drop door closed", "드롭 도어 닫힘", clears="drop_door_opened"),
    _k("logic_door_opened", 0x15, "Card cage (logic door) opened", "로직 도어(카드 케이지) 열림", CRITICAL,
       alert=True, security=True),
    _k("logic_door_closed", 0x16, "Card cage (logic door) closed", "로직 도어(카드 케이지) 닫힘",
       clears="logic_door_opened"),
    _k("power_on", 0x17, "AC power applied", "전원 인가", clears="power_off"),
    _k("power_off", 0x18, "AC power lost", "전원 차단", WARNING, alert=True),
    _k("cashbox_door_opened", 0x19, "Cashbox door opened", "캐시박스 도어 열림", WARNING, alert=True, security=True),
    _k("cashbox_door_closed", 0x1A, "Cashbox door closed", "캐시박스 도어 닫힘", clears="cashbox_door_opened"),
    _k("stacker_removed", 0x1B, "Cashbox (stacker) removed", "스태커(캐시박스) 분리"),
    _k("stacker_installed", 0x1C, "Cashbox (stacker) installed", "스태커(캐시박스) 장착", clears="stacker_removed"),
    _k("belly_door_opened", 0x1D, "Belly door opened", "벨리 도어 열림", WARNING, alert=True, security=True),
    _k("belly_door_closed", 0x1E, "Belly door closed", "벨리 도어 닫힘", clears="belly_door_opened"),
    # tilts and bill validator (0x20–0x2E)
    _k("general_tilt", 0x20, "General tilt", "일반 틸트", WARNING, alert=True),
    _k("cashbox_full", 0x27, "Cashbox full", "캐시박스 가득 참", WARNING, alert=True),
    _k("bill_jam", 0x28, "Bill jam", "지폐 걸림", WARNING, alert=True),
    _k("bill_acceptor_failure", 0x29, "Bill acceptor hardware failure", "지폐 인식기 고장", WARNING, alert=True),
    _k("counterfeit_bill", 0x2C, "Counterfeit bill detected", "위조지폐 감지", CRITICAL, alert=True, security=True),
    _k("cashbox_near_full", 0x2E, "Cashbox near full", "캐시박스 거의 가득 참"),
    # memory (0x31–0x3A)
    _k("cmos_ram_error_recovered", 0x31, "CMOS RAM error (data recovered from EEPROM)",
       "CMOS RAM 오류 (EEPROM에서 복구)", CRITICAL, alert=True),
    _k("cmos_ram_error_not_recovered", 0x32, "CMOS RAM error (no data recovered)", "CMOS RAM 오류 (복구 안 됨)",
       CRITICAL, alert=True),
    _k("cmos_ram_bad_device", 0x33, "CMOS RAM error (bad device)", "CMOS RAM 오류 (장치 불량)", CRITICAL, alert=True),
    _k("eeprom_data_error", 0x34, "EEPROM error (data error)", "EEPROM 오류 (데이터)", CRITICAL, alert=True),
    _k("eeprom_bad_device", 0x35, "EEPROM error (bad device)", "EEPROM 오류 (장치 불량)", CRITICAL, alert=True),
    _k("eprom_version_changed", 0x36, "EPROM error (checksum changed: version changed)",
       "EPROM 오류 (체크섬 변경: 버전 변경)", CRITICAL, alert=True, security=True),
    _k("eprom_bad_checksum", 0x37, "EPROM error (bad checksum compare)", "EPROM 오류 (체크섬 불일치)", CRITICAL,
       alert=True, security=True),
    _k("partitioned_eprom_version_changed", 0x38, "Partitioned EPROM error (version changed)",
       "분할 EPROM 오류 (버전 변경)", CRITICAL, alert=True, security=True),
    _k("partitioned_eprom_bad_checksum", 0x39, "Partitioned EPROM error (bad checksum compare)",
       "분할 EPROM 오류 (체크섬 불일치)", CRITICAL, alert=True, security=True),
    _k("memory_reset", 0x3A, "Memory error reset (operator used self-test switch)", "메모리 오류 리셋 (셀프 테스트 스위치)",
       CRITICAL, alert=True, security=True),
    _k("low_backup_battery", 0x3B, "Low backup battery", "백업 배터리 부족", WARNING, alert=True),
    _k("options_changed", 0x3C, "Operator changed options", "운영 옵션 변경", WARNING, alert=True, security=True),
    # reels (0x40–0x46)
    _k("reel_tilt", 0x40, "Reel tilt (reel not specified)", "릴 틸트 (릴 미지정)", WARNING, alert=True),
    *(_k(f"reel_{n}_tilt", 0x40 + n, f"Reel {n} tilt", f"{n}번 릴 틸트", WARNING, alert=True) for n in range(1, 6)),
    _k("reel_disconnected", 0x46, "Reel mechanism disconnected", "릴 기구 분리", WARNING, alert=True),
    # handpays (0x51–0x52)
    _k("handpay_pending", 0x51, "Handpay pending", "핸드페이 대기", WARNING, alert=True),
    _k("handpay_reset", 0x52, "Handpay reset (jackpot reset switch)", "핸드페이 리셋 (잭팟 리셋 스위치)",
       clears="handpay_pending"),
    # printer (0x60–0x78)
    _k("printer_comm_error", 0x60, "Printer communication error", "프린터 통신 오류", WARNING, alert=True),
    _k("printer_paper_out", 0x61, "Printer paper out", "프린터 용지 없음", WARNING, alert=True),
    _k("game_locked", 0x6F, "Game locked", "게임 잠김", WARNING),
    _k("printer_paper_low", 0x74, "Printer paper low", "프린터 용지 부족"),
    _k("printer_power_off", 0x75, "Printer power off", "프린터 전원 꺼짐", WARNING, alert=True),
    _k("printer_power_on", 0x76, "Printer power on", "프린터 전원 켜짐", clears="printer_power_off"),
    _k("printer_carriage_jammed", 0x78, "Printer carriage jammed", "프린터 캐리지 걸림", WARNING, alert=True),
    _k("soft_meters_reset", 0x7A, "Soft (lifetime) meters reset to zero", "소프트 미터 0으로 리셋", CRITICAL,
       alert=True, security=True),
    # attendant / operator menus and service (0x82–0x86)
    _k("attendant_menu_entered", 0x82, "Meters / attendant menu entered", "미터·어텐던트 메뉴 진입"),
    _k("attendant_menu_exited", 0x83, "Meters / attendant menu exited", "미터·어텐던트 메뉴 종료"),
    _k("operator_menu_entered", 0x84, "Self-test / operator menu entered", "셀프 테스트·운영자 메뉴 진입", WARNING),
    _k("operator_menu_exited", 0x85, "Self-test / operator menu exited", "셀프 테스트·운영자 메뉴 종료"),
    _k("out_of_service", 0x86, "Out of service (by attendant)", "운영 중지 (어텐던트)"),
    # power-off door access (0x98–0x9B): a door opened while the machine had no power
    _k("power_off_logic_door_access", 0x98, "Card cage accessed while power was off", "전원 차단 중 로직 도어 접근",
       CRITICAL, alert=True, security=True),
    _k("power_off_main_door_access", 0x99, "Slot door accessed while power was off", "전원 차단 중 메인 도어 접근",
       CRITICAL, alert=True, security=True),
    _k("power_off_cashbox_door_access", 0x9A, "Cashbox door accessed while power was off",
       "전원 차단 중 캐시박스 도어 접근", CRITICAL, alert=True, security=True),
    _k("power_off_drop_door_access", 0x9B, "Drop door accessed while power was off", "전원 차단 중 드롭 도어 접근",
       CRITICAL, alert=True, security=True),
    # noticed by the system (no SAS code)
    _k("comms_lost", None, "Communication lost (machine silent)", "통신 끊김 (머신 응답 없음)", CRITICAL, alert=True),
    _k("comms_restored", None, "Communication restored", "통신 복구", clears="comms_lost"),
    _k("stacker_removed_outside_drop", None, "Cashbox removed outside a scheduled drop", "정기 드롭 외 캐시박스 분리",
       CRITICAL, alert=True, security=True),
    _k("game_report_refused", None, "Game report refused", "게임 보고 거부", WARNING),
    _k("game_number_skipped", None, "Game number skipped (games missing between two reports)",
       "게임 번호 누락 (보고 사이 게임 누락)", WARNING),
    _k("meter_mismatch", None, "Meter mismatch", "미터 불일치", WARNING, alert=True),
    # noticed by a SAS host (slotsys.sas): the machine's own exception queue or answers
    _k("exception_buffer_overflow", None, "SAS exception queue overflowed (meters reconciled)",
       "SAS 예외 버퍼 넘침 (미터 대사)", WARNING),
    _k("meter_decreased", None, "A machine meter went backwards (nothing accounted from it)",
       "머신 미터 감소 (정산 제외)", CRITICAL, alert=True),
    _k("software_signature_mismatch", None, "ROM signature does not match the approved program (disabled)",
       "ROM 서명 불일치 (승인 프로그램 아님, 정지)", CRITICAL, alert=True, security=True),
    _k("enrolment_refused", None, "SAS enrolment refused (disabled)", "SAS 등록 거부 (정지)", WARNING, alert=True),
    _k("validation_number_unexpected", None, "Ticket number not the one expected from the validation ID",
       "예상 밖의 티켓 검증 번호", CRITICAL, alert=True, security=True),
)

BY_KIND: dict[str, EventKind] = {k.kind: k for k in VOCABULARY}
BY_CODE: dict[int, EventKind] = {k.sas_code: k for k in VOCABULARY if k.sas_code is not None}
SYSTEM_ONLY = frozenset({"comms_lost", "comms_restored", "stacker_removed_outside_drop", "game_report_refused",
                         "game_number_skipped", "meter_mismatch", "exception_buffer_overflow", "meter_decreased",
                         "software_signature_mismatch", "enrolment_refused", "validation_number_unexpected"})
"""Kinds only the system records: a machine may not report them itself (422 naming ``kind``)."""

assert len(BY_KIND) == len(VOCABULARY) and len(BY_CODE) == sum(k.sas_code is not None for k in VOCABULARY)


class UnknownEvent(ValueError):
    """An event that is not in the vocabulary; ``field`` names the offending request field."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def resolve(kind: str | None = None, sas_code: int | None = None, *, machine_reported: bool = True) -> EventKind:
    """The :class:`EventKind` for a reported ``kind`` name and/or SAS ``sas_code`` (0–255).

    Both given: they must name the same event. Raises :class:`UnknownEvent` (``field`` = ``kind`` or
    ``sas_code``) for an unknown name or code, a mismatch, neither given, or (``machine_reported``) a
    system-only kind."""
    if kind is None and sas_code is None:
        raise UnknownEvent("give the event's kind or its SAS exception code", "kind")
    by_code = None
    if sas_code is not None:
        by_code = BY_CODE.get(sas_code)
        if by_code is None:
            raise UnknownEvent(f"SAS exception code 0x{sas_code:02X} is not in the event vocabulary", "sas_code")
    if kind is not None:
        found = BY_KIND.get(kind)
        if found is None:
            raise UnknownEvent(f"unknown event kind {kind!r}", "kind")
        if by_code is not None and by_code is not found:
            raise UnknownEvent(f"SAS code 0x{sas_code:02X} is {by_code.kind!r}, not {kind!r}", "sas_code")
    else:
        # neither-given raised above, so the code was given and found
        assert by_code is not None
        found = by_code
    if machine_reported and found.kind in SYSTEM_ONLY:
        raise UnknownEvent(f"{found.kind!r} is recorded by the system, a machine cannot report it", "kind")
    return found


# ------------------------------------------------------------------ drop windows
_WINDOW = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


def parse_drop_windows(text: str) -> tuple[tuple[time, time], ...]:
    """``"05:00-06:30,14:00-14:15"`` → ((05:00, 06:30), (14:00, 14:15)); an empty text → () (no scheduled
    drop: every cashbox removal is outside one). A window whose end is before its start spans midnight.
    Raises ValueError naming the bad part."""
    out = []
    for part in (p for p in (text or "").split(",") if p.strip()):
        m = _WINDOW.match(part)
        if not m:
            raise ValueError(f"drop window {part.strip()!r} is not HH:MM-HH:MM")
        h1, m1, h2, m2 = map(int, m.groups())
        if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
            raise ValueError(f"drop window {part.strip()!r} is not a time of day")
        out.append((time(h1, m1), time(h2, m2)))
    return tuple(out)


def in_drop_window(windows: tuple[tuple[time, time], ...], local: time) -> bool:
    """Whether the casino-local time of day ``local`` falls in one of ``windows`` (start inclusive, end
    exclusive; a window with end < start spans midnight)."""
    t = local.replace(tzinfo=None, microsecond=0)
    for start, end in windows:
        if start <= end:
            if start <= t < end:
                return True
        elif t >= start or t < end:
            return True
    return False
