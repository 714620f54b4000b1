"""The what-if page end to end: ``houseedge serve`` in a process of its own, driven by a real
headless Chromium through Selenium and the system's chromedriver. Each step is photographed
and the screenshot checked not blank (``HOUSEEDGE_SHOTS=folder`` keeps them)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from sim.engine import experiment as experiment_module
from sim.outputs.exact_report import values

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
READY_SECONDS = 180


def _browser() -> tuple[str, str] | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if (chromium is None or driver is None) and os.environ.get("CI"):
        pytest.fail("chromium and chromedriver must be installed: CI runs the page's browser "
                    "tests (.ci/run installs them)")
    return (chromium, driver) if chromium and driver else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = READY_SECONDS) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if _browser() is None:
        pytest.skip("chromium and chromedriver not installed (apt-get install chromium "
                    "chromium-driver)")
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "sim", "serve", "--port", str(port), "--experiments",
             str(ROOT / "experiments")], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + READY_SECONDS
    while True:  # ready once a worker answers (it warms the exact code first)
        try:
            if _get(f"{base}/api/exact?game=faro")[0] == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            pytest.fail(f"houseedge serve did not start: {log.read_text()[-2000:]}")
        time.sleep(0.3)
    yield base
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    found = _browser()
    if found is None:
        pytest.skip("chromium and chromedriver not installed")
    chromium, driver_path = found
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1400,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    yield driver
    driver.quit()


def _shot(driver, name: str, tmp_path: Path) -> Path:
    """A screenshot of the page, checked not blank (many colours, light and dark)."""
    from PIL import Image

    path = tmp_path / f"{name}.png"
    driver.save_screenshot(str(path))
    with Image.open(path) as image:
        grey = image.convert("L")
        low, high = grey.getextrema()
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert high - low > 150 and len(colours) > 200, f"{name}: the screenshot looks blank"
    keep = os.environ.get("HOUSEEDGE_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
    return path


def _wait(driver, condition, seconds=60):
    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda d: condition(d))


def _text(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def _exact_fraction(overrides: list[str], column: str) -> str:
    """What ``houseedge exact`` gives for flat king on faro with these overrides."""
    exp = experiment_module.load(ROOT / "experiments" / "faro.toml",
                                 [*overrides, "strategies.0.name=flat king"])
    frame = values(exp)
    row = frame[frame["strategy"] == "flat king"].iloc[0]
    return row[f"{column}_fraction"]


def _faro_soda_off_shows_the_exact_edge_houseedge_exact_gives(server, browser, tmp_path):
    browser.get(f"{server}/?game=faro")
    _wait(browser, lambda d: _text(d, "edge-main") == "1/66")
    assert _text(browser, "edge-other") == _exact_fraction([], "edge_per_initial_bet")
    browser.find_element(By.ID, "in-r.soda").click()
    expected = _exact_fraction(["variants.faro.soda=false"], "edge_per_initial_bet")
    assert expected == "1/17"
    _wait(browser, lambda d: _text(d, "edge-other") == expected, 10)
    assert _text(browser, "edge-main") == "1/66"
    assert "r.soda=false" in browser.current_url
    assert "1/442" in _text(browser, "diff-other")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#charts svg"), 30)
    _shot(browser, "faro-soda-off", tmp_path)


def _a_shared_url_opens_the_same_state(server, browser, tmp_path):
    browser.get(f"{server}/?game=faro&r.soda=false&r.split_take=1&view=edge")
    _wait(browser, lambda d: _text(d, "edge-other") not in ("…", ""))
    shared = browser.current_url
    shown = (_text(browser, "edge-main"), _text(browser, "edge-other"))
    state = browser.execute_script("return window.houseedge.state")
    browser.get("about:blank")
    browser.get(shared)
    _wait(browser, lambda d: _text(d, "edge-other") not in ("…", ""))
    assert (_text(browser, "edge-main"), _text(browser, "edge-other")) == shown
    assert browser.execute_script("return window.houseedge.state") == state
    assert not browser.find_element(By.ID, "in-r.soda").is_selected()
    assert browser.find_element(By.ID, "in-r.split_take").get_attribute("value") == "1"
    _shot(browser, "shared-url", tmp_path)


def _a_bad_value_shows_the_command_lines_message_beside_its_control(server, browser,
                                                                        tmp_path):
    browser.get(f"{server}/?game=faro")
    _wait(browser, lambda d: _text(d, "edge-main") == "1/66")
    packs = browser.find_element(By.ID, "in-r.packs")
    packs.clear()
    packs.send_keys("9")
    browser.execute_script("arguments[0].dispatchEvent(new Event('change'))", packs)
    slot = '[data-error-for="r.packs"]'
    _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, slot).text, 10)
    assert browser.find_element(By.CSS_SELECTOR, slot).text == (
        "variants.what-if.packs: expected an integer 1..8, got 9")
    wrap = browser.find_element(By.CSS_SELECTOR, '[data-wrap="r.packs"]')
    assert "invalid" in wrap.get_attribute("class")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", wrap)
    _shot(browser, "bad-value", tmp_path)


def _a_pontoon_rule_change_simulates_an_estimate_converging_within_its_interval(server, browser,
                                                                               tmp_path):
    browser.get(f"{server}/?game=pontoon&target_ci=0.01&chunk_rounds=5000")
    # The preset's own simulation starts; the change cancels it and starts the pair's.
    _wait(browser, lambda d: d.execute_script("return window.houseedge.sim"), 90)
    browser.find_element(By.ID, "in-r.banker_wins_ties").click()  # ties push
    _wait(browser, lambda d: d.execute_script(
        "return window.houseedge.sim && window.houseedge.sim.finished && "
        "window.houseedge.sim.rows.length == 2 && "
        "location.search.includes('banker_wins_ties=false')"), 90)
    trace = browser.execute_script("return window.houseedge.simTrace['what-if']")
    final = next(r for r in browser.execute_script("return window.houseedge.sim.rows")
                 if r["variant"] == "what-if")
    assert final["target_met"] and final["rounds"] < 1_000_000
    first = trace[0]
    # Converging: the estimate ends within the first chunk's interval, and its last moves
    # stay within the final interval (the target met: its width is the run's target rule's).
    assert len(trace) >= 5 and trace[-1]["x"] == final["rounds"]
    assert first["lo"] <= 100 * final["edge"] <= first["hi"]
    assert all(100 * final["edge_ci95_low"] <= p["y"] <= 100 * final["edge_ci95_high"]
               for p in trace[-3:])
    shown = browser.find_element(By.CSS_SELECTOR, '.est[data-variant="what-if"] .estimate').text
    assert shown == f"{100 * final['edge']:.3f}%"
    _shot(browser, "pontoon-ties-push", tmp_path)


def test_the_page_in_headless_chromium(server, browser, tmp_path):
    """The steps in one test: one server and one browser for them all, whichever worker of
    the suite runs it."""
    _faro_soda_off_shows_the_exact_edge_houseedge_exact_gives(server, browser, tmp_path)
    _a_shared_url_opens_the_same_state(server, browser, tmp_path)
    _a_bad_value_shows_the_command_lines_message_beside_its_control(server, browser, tmp_path)
    _a_pontoon_rule_change_simulates_an_estimate_converging_within_its_interval(
        server, browser, tmp_path)


@pytest.mark.slow
def test_the_servers_memory_stays_flat_over_a_hundred_changes(server, browser):
    browser.get(f"{server}/?game=faro")
    _wait(browser, lambda d: _text(d, "edge-main") == "1/66")
    soda = browser.find_element(By.ID, "in-r.soda")
    sizes = []
    for i in range(100):
        soda.click()
        expected = "1/17" if i % 2 == 0 else "25/442"
        _wait(browser, lambda d, e=expected: _text(d, "edge-other") == e, 20)
        if i in (19, 99):
            sizes.append(json.loads(_get(f"{server}/api/status")[1])["server_mb"])
    assert sizes[1] - sizes[0] < 20, sizes
