"""The explorer in a real browser: JupyterLab on 127.0.0.1 and headless Chromium driven by Selenium.

A temporary folder holds a small records-only demo corpus and a notebook that opens the explorer on
it. The test runs the notebook, types a query and sees the chart and the counts change, clicks a
period on the chart and sees the records pane show that period's records, then runs the "code"
view's Python on the same corpus file and gets the counts and records the panel shows.

Chromium and its driver come from the system's package manager (``.ci/run`` installs them when
missing). Without them the test tries ``apt-get install chromium chromium-driver`` (as root), and
skips, saying why, only when that fails too; under CI (``CI`` set) it fails instead.
"""
from __future__ import annotations

import contextlib
import io
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEADLINE = 90          # seconds for the whole browser session
WAIT = 45              # seconds for one thing to appear


def _binaries():
    return shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")


def _chromium() -> tuple[str, str]:
    browser, driver = _binaries()
    if not (browser and driver) and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "chromium", "chromium-driver"], capture_output=True,
                       timeout=900, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        browser, driver = _binaries()
    if not (browser and driver):
        reason = ("chromium and chromedriver are not on PATH and could not be installed "
                  "(apt-get install chromium chromium-driver, as root)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return browser, driver


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _demo(folder: Path) -> Path:
    """A records-only demo corpus and a notebook that opens the explorer on it."""
    import nbformat

    from corpuskit import open_corpus
    from corpuskit.demo import build_demo

    db = folder / "demo.db"
    corpus = open_corpus(db)
    build_demo(corpus, seed=7, records=800, days=28, run_stages=False, progress=False)
    corpus.close()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import corpuskit\ncorpus = corpuskit.open_corpus('demo.db')\n"
                                          "explorer = corpus.explore()\nexplorer")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "explore_demo.ipynb")
    return db


@contextlib.contextmanager
def _jupyterlab(folder: Path):
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "JUPYTER_CONFIG_DIR": str(folder / ".config"), "JUPYTERLAB_WORKSPACES_DIR": str(folder / ".ws"),
           "JUPYTER_RUNTIME_DIR": str(folder / ".runtime")}
    log = open(folder / "jupyterlab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}", "--allow-root",
         "--ServerApp.port_retries=0", "--LabApp.news_url=", "--ServerApp.open_browser=False",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        import urllib.request

        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("JupyterLab exited: " + (folder / "jupyterlab.log").read_text()[-2000:])
                time.sleep(0.2)
        else:
            raise RuntimeError("JupyterLab did not answer within 60 s")
        yield f"http://127.0.0.1:{port}/lab/tree/explore_demo.ipynb?reset&token={token}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        log.close()


@contextlib.contextmanager
def _browser(browser: str, driver: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,2200"):
        options.add_argument(arg)
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.set_page_load_timeout(WAIT)
    try:
        yield chrome
    finally:
        chrome.quit()


def _wait(chrome, what, timeout=WAIT):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # a pane's HTML is replaced when it redraws: an element read mid-redraw is stale, read it again
    return WebDriverWait(chrome, timeout, poll_frequency=0.2,
                         ignored_exceptions=(StaleElementReferenceException, IndexError)).until(lambda d: what(d))


def _css(chrome, selector):
    from selenium.webdriver.common.by import By

    return chrome.find_elements(By.CSS_SELECTOR, selector)


def _run_all(chrome) -> None:
    from selenium.webdriver.common.by import By

    _wait(chrome, lambda d: _css(d, ".jp-Notebook .jp-Cell") and _css(d, ".jp-Notebook-ExecutionIndicator,"
                                                                      ".jp-KernelStatus, .jp-Toolbar"))
    _wait(chrome, lambda d: d.find_elements(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel')][text()='Run']"))
    _wait(chrome, lambda d: "Idle" in d.find_element(By.CSS_SELECTOR, "body").text or _css(d, ".jp-Dialog"))
    for button in _css(chrome, ".jp-Dialog .jp-mod-accept"):    # "select kernel": the notebook's own
        button.click()
    chrome.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel')][text()='Run']").click()
    _wait(chrome, lambda d: d.find_elements(By.XPATH, "//div[contains(@class,'lm-Menu-itemLabel')]"
                                                      "[text()='Run All Cells']"))
    chrome.find_element(By.XPATH, "//div[contains(@class,'lm-Menu-itemLabel')][text()='Run All Cells']").click()


def _counts(chrome) -> dict:
    return {w: int(el[0].text) for w in ("a", "b") if (el := _css(chrome, f".ck-count-{w}"))}


def _record_rows(chrome) -> list[tuple[int, datetime]]:
    rows = []
    for tr in _css(chrome, ".ck-records tbody tr"):
        cells = [td.text for td in tr.find_elements("css selector", "td")]
        rows.append((int(cells[0]), datetime.strptime(cells[2], "%Y-%m-%d %H:%M")))
    return rows


def test_explorer_in_jupyterlab(tmp_path):
    pytest.importorskip("selenium")
    pytest.importorskip("bqplot")
    browser, driver = _chromium()
    db = _demo(tmp_path)
    started = time.monotonic()
    from selenium.webdriver.common.keys import Keys

    with _jupyterlab(tmp_path) as url, _browser(browser, driver) as chrome:
        chrome.get(url)
        _run_all(chrome)
        _wait(chrome, lambda d: _css(d, ".ck-explorer .ck-query-a input"))
        assert _counts(chrome) == {}
        # a query typed: the chart draws its dots and the status line counts the records
        box = _css(chrome, ".ck-query-a input")[0]
        box.send_keys('stablecoin OR "bond yields"', Keys.ENTER)
        _wait(chrome, lambda d: _counts(d).get("a"))
        dots = _wait(chrome, lambda d: _css(d, ".ck-chart .dot"))
        assert len(dots) >= 4, "one dot per week of the four-week demo"
        whole = _counts(chrome)["a"]
        # a click on a period: the records pane shows only that week's records
        dots[1].click()
        _wait(chrome, lambda d: "week of" in _css(d, ".ck-selection")[0].text)
        label = _wait(chrome, lambda d: _css(d, ".ck-selection")[0].text)
        week = datetime.strptime(label.split("week of ")[1], "%Y-%m-%d")
        _wait(chrome, lambda d: _counts(d)["a"] < whole)
        in_week = lambda rows: rows and all(0 <= (published - week).days < 7 for _, published in rows)  # noqa: E731
        rows = _wait(chrome, lambda d: in_week(rows := _record_rows(d)) and rows)
        # the code view's Python, run on the same file, gives the counts and records shown
        _css(chrome, "button.ck-code")[0].click()
        code = _wait(chrome, lambda d: _css(d, ".ck-code-out textarea")[0].get_attribute("value"))
        shown_counts, shown_ids = _wait(chrome, _counts), [i for i, _ in rows]
        elapsed = time.monotonic() - started
        assert elapsed < DEADLINE, f"the browser session took {elapsed:.0f} s"
    from corpuskit import open_corpus

    corpus = open_corpus(db)
    scope, out = {"corpus": corpus}, io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, scope)
    corpus.close()
    assert out.getvalue().strip() == str(shown_counts)
    assert scope["records"]["id"].tolist() == shown_ids
    assert scope["attention_a"]["count"].iloc[1] == shown_counts["a"]
