#!/usr/bin/env python3
"""The board page in a real browser: headless Debian Chromium, driven through
chromedriver's WebDriver protocol (Python standard library only).

Starts `mancala-tb serve` on a free loopback port over DIR, loads the page at
a start position, checks the value and its distance, and every move's value
and distance shown (on the pits and in the table of moves) against the API,
clicks the best pit, checks the new position the same way, steps
the principal variation one move forward and back, and saves a screenshot.
Exits non-zero on any mismatch.

Needs: apt-get install -y chromium chromium-driver. Without --dir it builds
Oware layers 0..=12 in a temporary folder (under a second), enough for the
default start position (one seed per pit).

    scripts/test/browser-test.py [--dir DIR] [--bin target/debug/mancala-tb] [--out board.png]
"""

import argparse
import base64
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1100,1000"]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as reply:
        return json.loads(reply.read())["value"]


class Browser:
    def __init__(self, driver):
        self.driver = driver
        profile = tempfile.mkdtemp(prefix="mancala-chromium-")
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": shutil.which("chromium") or "/usr/bin/chromium",
                                   "args": FLAGS + [f"--user-data-dir={profile}"]}}}}
        self.session = call("POST", f"{driver}/session", caps)["sessionId"]
        self.base = f"{driver}/session/{self.session}"

    def go(self, url):
        call("POST", f"{self.base}/url", {"url": url})

    def run(self, script, *args):
        return call("POST", f"{self.base}/execute/sync", {"script": script, "args": list(args)})

    def click(self, css):
        found = call("POST", f"{self.base}/element", {"using": "css selector", "value": css})
        call("POST", f"{self.base}/element/{found[ELEMENT]}/click", {})

    def screenshot(self, path):
        png = call("GET", f"{self.base}/screenshot")
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def quit(self):
        call("DELETE", self.base)


SHOWN = """
const pits = [...document.querySelectorAll('.pit.playable')].map(
  p => [Number(p.dataset.pit), p.querySelector('.move-value').textContent]);
const rows = [...document.querySelectorAll('#moves tr')].map(
  tr => [Number(tr.dataset.pit), tr.cells[0].textContent]);
return {value: document.getElementById('value').textContent, pits, rows,
        url: location.search, counts: [...document.querySelectorAll('.pit')].map(
          p => [Number(p.dataset.pit), Number(p.querySelector('.count').textContent)])};
"""


def signed(v):
    return f"+{v}" if v > 0 else str(v)


def secured(distance):
    """What the page adds to a value for its distance (in plies)."""
    if not distance:
        return ""
    return f", secured in {distance} {'ply' if distance == 1 else 'plies'}"


def wait_for(browser, pits, timeout=20):
    """The page's shown state once it shows `pits`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = browser.run(SHOWN)
        counts = dict(shown["counts"])
        if shown["value"] and [counts.get(k) for k in range(12)] == pits:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"the page never showed {pits}: {browser.run(SHOWN)}")


def check(browser, api, pits):
    """Checks what the page shows for `pits` against the API; returns the answer."""
    answer = json.loads(urllib.request.urlopen(
        f"{api}/api/oware?pits={','.join(map(str, pits))}", timeout=60).read())
    shown = wait_for(browser, pits)
    value = signed(answer["value"]) + secured(answer["distance"])
    assert shown["value"] == value, (shown["value"], value)
    want = sorted((m["pit"], signed(m["value"])) for m in answer["moves"])
    assert sorted(map(tuple, shown["pits"])) == want, (shown["pits"], want)
    rows = sorted((m["pit"], f"pit {m['pit']} (captures {m['captured']}{secured(m['distance'])})")
                  for m in answer["moves"])
    assert sorted(map(tuple, shown["rows"])) == rows, (shown["rows"], rows)
    print(f"  {pits}: {shown['value']}; moves {[text for _, text in rows]}: as the API says")
    return answer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="tablebase folder (default: build layers 0..=12 in a temp folder)")
    ap.add_argument("--bin", default="target/release/mancala-tb")
    ap.add_argument("--start", default="1,1,1,1,1,1,1,1,1,1,1,1")
    ap.add_argument("--out", default="board.png", help="screenshot (PNG)")
    args = ap.parse_args()
    if args.dir is None:
        args.dir = tempfile.mkdtemp(prefix="mancala-tb-")
        subprocess.run([args.bin, "build", "oware", "--max-seeds", "12", "--dir", args.dir],
                       check=True, capture_output=True)

    server = subprocess.Popen([args.bin, "serve", "--dir", args.dir, "--bind", "127.0.0.1:0"],
                              stderr=subprocess.PIPE, text=True)
    port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    browser = None
    try:
        api = "http://" + server.stderr.readline().strip().rsplit("http://", 1)[1].rstrip("/")
        for _ in range(100):
            try:
                call("GET", f"http://127.0.0.1:{port}/status")
                break
            except OSError:
                time.sleep(0.1)
        browser = Browser(f"http://127.0.0.1:{port}")
        start = [int(p) for p in args.start.split(",")]
        browser.go(f"{api}/?game=oware&pits={args.start}")
        answer = check(browser, api, start)

        best = answer["best"][0]
        child = next(m["child"] for m in answer["moves"] if m["pit"] == best)
        browser.click(f'.pit[data-pit="{best}"]')
        print(f"clicked pit {best}")
        check(browser, api, child)
        assert "turn=B" in browser.run(SHOWN)["url"], "the URL holds the position and the mover"

        browser.go(f"{api}/?game=oware&pits={args.start}")
        check(browser, api, start)
        browser.click("#pv-next")
        check(browser, api, answer["pv"][0]["board"])
        browser.click("#pv-back")
        check(browser, api, start)
        browser.screenshot(args.out)
        print(f"screenshot: {args.out}")
        print("browser test passed")
        return 0
    finally:
        if browser:
            browser.quit()
        driver.kill()
        server.kill()


if __name__ == "__main__":
    sys.exit(main())
