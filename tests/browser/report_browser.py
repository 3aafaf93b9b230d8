#!/usr/bin/env python3
"""The HTML reports in a real browser: headless Chromium driven through
chromedriver's WebDriver HTTP interface (standard library only).

Usage: report_browser.py TRITONDX SOURCE_DIR OUT_DIR

Renders the canned optimize and bench runs of tests/data/runs/ and a run
whose texts carry markup, loads each page from file://, and checks: no
console messages at warning level or above, no network request but the
file itself, no script elements, the roofline SVG with its initial and
final points, the speedup bar chart with one bar per task that ran and the
1x line, and that markup from the run stays text. Screenshots go to
OUT_DIR/report-optimize.png and OUT_DIR/report-bench.png (docs/ holds
copies of them)."""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
SRC = None  # the checkout, set by run()


class Bad(Exception):
    """A check that did not hold."""


def fail(msg):
    raise Bad(msg)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    """A minimal WebDriver client for chromedriver."""

    def __init__(self, profile_dir):
        self.binary = next((shutil.which(c) for c in CHROMIUM_CANDIDATES if shutil.which(c)), None)
        driver = shutil.which("chromedriver")
        if not self.binary or not driver:
            fail("chromium and chromedriver are needed (scripts/setup.sh installs them)")
        self.port = free_port()
        self.proc = subprocess.Popen([driver, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.time() > deadline:
                self.proc.kill()
                fail("chromedriver did not start")
            time.sleep(0.1)
        # --no-sandbox: the sandbox cannot start as root or in most containers;
        # the pages are our own local files
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": self.binary, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--window-size=1200,900", f"--user-data-dir={profile_dir}",
                "--no-first-run", "--disable-background-networking", "--disable-component-update"]},
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            fail(f"webdriver {method} {path}: {e.read()[:400]!r}")

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.sid}{path}", body)

    def js(self, script):
        return self.s("POST", "/execute/sync", {"script": script, "args": []})

    def logs(self, kind):
        return self.s("POST", "/se/log", {"type": kind})

    def close(self):
        try:
            self.s("DELETE", "")
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def render(cli, run_dir, out_dir, *extra):
    # the run named relative to the checkout, as a user would: the page shows it
    rel = os.path.relpath(run_dir, SRC) if SRC and str(run_dir).startswith(str(SRC)) else str(run_dir)
    r = subprocess.run([str(Path(cli).resolve()), "report", rel, "--format", "html", "--out", str(out_dir), *extra],
                       capture_output=True, text=True, timeout=60, cwd=SRC or None)
    if r.returncode != 0:
        fail(f"tritondx report {run_dir}: {r.stderr}")
    return out_dir / "report.html"


def load(d, page):
    url = page.resolve().as_uri()
    d.s("POST", "/url", {"url": "about:blank"})
    time.sleep(0.3)
    d.logs("browser")  # drop what earlier pages (and the new-tab page) left
    d.logs("performance")
    d.s("POST", "/url", {"url": url})
    if d.js("return document.readyState") != "complete":
        time.sleep(0.5)
    bad = [e for e in d.logs("browser") if e.get("level") in ("SEVERE", "WARNING")]
    if bad:
        fail(f"{page.name}: console messages: {bad}")
    urls = set()
    for e in d.logs("performance"):
        msg = json.loads(e["message"])["message"]
        # every request the page (or anything it loads) makes names it as its document
        if msg.get("method") == "Network.requestWillBeSent" and msg["params"].get("documentURL") == url:
            urls.add(msg["params"]["request"]["url"])
    if urls - {url}:
        fail(f"{page.name}: requests other than the page: {sorted(urls - {url})}")
    if url not in urls:
        fail(f"{page.name}: the page's own request was not seen (is the performance log on?)")
    n = d.js("return document.scripts.length + document.querySelectorAll('link,iframe,object,embed').length")
    if n:
        fail(f"{page.name}: {n} script/link/iframe elements")
    return url


def screenshot(d, path, height=None):
    """The page from the top, height pixels of it (default: all of it)."""
    if height is None:
        height = min(4000, int(d.js("return Math.ceil(document.documentElement.getBoundingClientRect().height)")) + 24)
    # the window's own frame takes some of its height: ask for that much more
    d.s("POST", "/window/rect", {"width": 1200, "height": height})
    inner = int(d.js("return window.innerHeight"))
    d.s("POST", "/window/rect", {"width": 1200, "height": 2 * height - inner})
    png = base64.b64decode(d.s("GET", "/screenshot"))
    path.write_bytes(png)
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 10000:
        fail(f"{path}: not a PNG screenshot")


def check_controls(d, work):
    """The checks must be able to fail: a page that fetches, and one that logs
    an error, are both caught."""
    fetch = work / "fetch.html"
    fetch.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head>'
                     '<body><img src="http://127.0.0.1:9/x.png" alt=""></body></html>')
    err = work / "error.html"
    err.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head>'
                   '<body><script>console.error("boom")</script></body></html>')
    for page, what in ((fetch, "requests other than the page"), (err, "console messages")):
        try:
            load(d, page)
        except Bad:
            continue
        fail(f"negative control {page.name}: {what} went unnoticed")
    print("controls: a fetching page and a page logging an error are both caught")


def check_optimize(d, page, shots):
    load(d, page)
    pts = d.js("""
        const q = s => document.querySelector(s);
        const pt = id => { const c = q('#roofline #pt-' + id);
            return c && [c.tagName, c.getAttribute('data-point'), +c.getAttribute('data-intensity'),
                         +c.getAttribute('data-flops-per-s'), c.getBoundingClientRect().width > 0]; };
        return {svg: !!q('svg#roofline'), roof: !!q('#roofline polyline#roof'),
                initial: pt('initial'), final: pt('final'),
                labels: [...document.querySelectorAll('#roofline .pt-label')].map(t => t.textContent),
                rounds: document.querySelectorAll('section.round').length,
                adds: document.querySelectorAll('section.round > pre.diff .add').length,
                folded: document.querySelectorAll('details.cand-diff').length,
                dels: document.querySelectorAll('pre.diff .del').length,
                decided: document.querySelectorAll('.finding.decided').length,
                progress: [...document.querySelectorAll('#progress circle')].map(c => +c.getAttribute('data-fraction'))};
    """)
    if not (pts["svg"] and pts["roof"]):
        fail(f"optimize report: no roofline SVG with its roof: {pts}")
    for k in ("initial", "final"):
        p = pts[k]
        if not p or p[0] != "circle" or p[1] != k or not p[4]:
            fail(f"optimize report: the {k} point is missing or not drawn: {p}")
    # the canned run: 0.0833 FLOP/byte, 113 GFLOP/s -> 142 GFLOP/s
    if abs(pts["initial"][2] - 1 / 12) > 1e-3 or abs(pts["initial"][3] - 1.1333e11) > 1e9:
        fail(f"optimize report: initial point at the wrong place: {pts['initial']}")
    if not (pts["final"][3] > pts["initial"][3]):
        fail("optimize report: the final point is not above the initial one")
    if not any(t.startswith("initial") for t in pts["labels"]) or not any(t.startswith("final") for t in pts["labels"]):
        fail(f"optimize report: point labels missing: {pts['labels']}")
    if pts["folded"] != 6:
        fail(f"optimize report: {pts['folded']} folded diffs of the 6 candidates not kept")
    if pts["rounds"] != 2 or pts["adds"] < 1 or pts["dels"] < 1 or pts["decided"] != 2:
        fail(f"optimize report: rounds, coloured diff or decided findings missing: {pts}")
    if pts["progress"] != [0.32, 0.4, 0.4]:
        fail(f"optimize report: progress chart points {pts['progress']}")
    screenshot(d, shots / "report-optimize.png", 1500)
    print("optimize report: roofline points", pts["initial"][:4], pts["final"][:4])


def check_bench(d, page, shots):
    load(d, page)
    got = d.js("""
        const bars = [...document.querySelectorAll('#speedups rect.bar')];
        return {bars: bars.map(b => [b.getAttribute('data-task'), +b.getAttribute('data-speedup'),
                                     b.getBoundingClientRect().width]),
                one: !!document.querySelector('#speedups #one-x'),
                rows: document.querySelectorAll('#results tr').length - 1,
                ablation: document.querySelectorAll('#ablation tr').length - 1};
    """)
    if not got["one"]:
        fail("bench report: no 1x line")
    tasks = {b[0]: b[1] for b in got["bars"]}
    if set(tasks) != {"rowsum_loop.py", "scale.py"} or any(b[2] <= 0 for b in got["bars"]):
        fail(f"bench report: bars {got['bars']}")
    if not tasks["scale.py"] > 1:
        fail(f"bench report: scale.py should be faster: {tasks}")
    if got["rows"] != 3 or got["ablation"] != 2:
        fail(f"bench report: {got['rows']} result rows, {got['ablation']} ablation rows")
    screenshot(d, shots / "report-bench.png")
    print("bench report: bars", got["bars"])


def check_escaping(d, cli, src, work):
    run = work / "hostile"
    run.mkdir()
    evil = "</script><img src=x onerror=alert(1)><script>alert(2)</script>"
    lines = []
    for line in (src / "tests/data/runs/optimize/journal.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["type"] == "candidate" and e.get("reason"):
            e["reason"] = "check failed: " + evil
        if e["type"] == "candidate":
            e["summary"] = "<b>bold</b> " + e["summary"]
        lines.append(json.dumps(e))
    (run / "journal.jsonl").write_text("\n".join(lines) + "\n")
    page = render(cli, run, work / "hostile-out")
    load(d, page)
    got = d.js("""return {img: document.images.length, b: document.querySelectorAll('td b').length,
                         text: [...document.querySelectorAll('td.reason')].map(t => t.textContent)};""")
    if got["img"] or got["b"]:
        fail(f"markup from the run became elements: {got}")
    if not any(evil in t for t in got["text"]):
        fail("the hostile reason is not shown as text")
    print("escaping: markup in reasons and summaries stays text")


def run():
    global SRC
    cli, src, out = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3])
    SRC = src
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tdx-browser-") as tmp:
        work = Path(tmp)
        opt = render(cli, src / "tests/data/runs/optimize", work / "optimize")
        bench = render(cli, src / "tests/data/runs/bench", work / "bench")
        d = Driver(work / "profile")
        try:
            check_controls(d, work)
            check_optimize(d, opt, out)
            check_bench(d, bench, out)
            check_escaping(d, cli, src, work)
        finally:
            d.close()
    print("ok")


def main():
    try:
        run()
    except Bad as e:
        print(f"FAIL: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
