"""The operator console shows each SAS machine's link as its host published it: polls, retries, timeouts, CRC
errors, the last exception and the program signature, a mismatch and an offline link marked, in English and
Korean (headless Chromium)."""

from __future__ import annotations

from slotsys.sas.services.host import MachineSnapshot
from tests.e2e.browser.conftest import login, shot


def test_console_shows_the_sas_links(page, live):
    server, api = live
    links = server.app.extensions["slotsys"].sas_links
    links.publish("/dev/ttyS4", [
        MachineSnapshot(1, "SAS-B1", "online", True, 1_234, 17, 3, 2, "0x51", "ok", 0, 40.0, 190.0),
        MachineSnapshot(2, "SAS-B2", "offline", True, 998, 41, 40, 0, "0x7E", "mismatch", 2, 41.0, 205.0),
    ])
    page.goto(server.url + "/console")
    login(page, api, "operator")
    page.wait_for_selector('#sas-links tr[data-asset="SAS-B1"]')
    assert page.is_visible("#sas-links")
    one = page.inner_text('#sas-links tr[data-asset="SAS-B1"]')
    assert "/dev/ttyS4" in one and "1,234" in one and "0x51" in one and "Matches" in one and "190 ms" in one
    assert page.get_attribute('#sas-links tr[data-asset="SAS-B1"]', "data-link") == "online"
    two = page.query_selector('#sas-links tr[data-asset="SAS-B2"]')
    assert two.get_attribute("data-link") == "offline" and "bad" in two.get_attribute("class")
    assert "MISMATCH" in two.inner_text() and "Offline" in two.inner_text()
    shot(page, "console-4-sas-links")
    page.click("button[data-lang=ko]")
    page.wait_for_function("() => document.querySelector('#sas-links h2').textContent === 'SAS 통신 링크'")
    assert "불일치" in page.inner_text('#sas-links tr[data-asset="SAS-B2"]')
    page.click("button[data-lang=en]")
