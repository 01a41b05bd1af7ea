#!/usr/bin/env python3
"""Drives the page of `checkers serve` in headless Chromium (selenium, the
Debian chromium-driver): the ballot list, a ballot's main line, a position
with its moves, a proof tree, a bad FEN. Checks what the page shows
against the JSON API and saves a screenshot of each step.

Usage: browser-test.py URL SCREENSHOT_DIR   (run by scripts/browser-test.sh)
Exits non-zero on the first failure.
"""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE, SHOTS = sys.argv[1].rstrip("/"), sys.argv[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def api(path):
    with urllib.request.urlopen(BASE + path, timeout=60) as r:
        return json.load(r)


def q(fen):
    return urllib.parse.quote(fen, safe="")


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("  ok:", what)


def start():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
              "--disable-gpu", "--window-size=1400,1100"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)


def main():
    os.makedirs(SHOTS, exist_ok=True)
    d = start()
    try:
        run(d)
    except Exception:
        d.save_screenshot(os.path.join(SHOTS, "failure.png"))
        raise
    finally:
        d.quit()


def ready(d, prefix):
    """Waits until the page has rendered the view whose hash starts with prefix."""
    WebDriverWait(d, 60).until(
        lambda d: (d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") or "").startswith(prefix))


def shot(d, name):
    body = d.find_element(By.TAG_NAME, "body").text
    for junk in ("[object", "undefined", "NaN"):
        if junk in body:
            raise AssertionError(f"{name}: the page shows {junk!r}")
    path = os.path.join(SHOTS, name)
    d.save_screenshot(path)
    print("  screenshot", path)


def text(d, css):
    return d.find_element(By.CSS_SELECTOR, css).text.strip()


def run(d):
    print("ballot list")
    d.get(BASE + "/")
    ready(d, "ballots")
    listed = api("/api/ballots")["ballots"]
    rows = d.find_elements(By.CSS_SELECTOR, "#ballots-table tbody tr")
    check(len(rows) == len(listed) and len(rows) > 0, f"{len(rows)} ballot rows, as the API lists")
    b = next((b for b in listed if b["frontier_ply"] is not None), listed[0])
    row = d.find_element(By.CSS_SELECTOR, f'#ballots-table tr[data-ballot="{b["number"]}"]')
    check(b["moves"] in row.text, f"ballot {b['number']} row shows its moves {b['moves']}")
    if b["label"]:
        check(b["label"] in row.text, f"ballot {b['number']} row shows its frontier value {b['label']}")
    shot(d, "01-ballots.png")

    print(f"ballot {b['number']}: main line")
    row.click()
    ready(d, "ballot/")
    line = api(f"/api/ballot/{b['number']}")
    check(f"Ballot {b['number']}: {line['moves']}" in text(d, "#ballot-title"), "title names the ballot")
    plies = d.find_elements(By.CSS_SELECTOR, "#line-table tbody tr")
    check(len(plies) == len(line["plies"]), f"{len(plies)} plies, as the API gives")
    for p in line["plies"]:
        r = d.find_element(By.CSS_SELECTOR, f'#line-table tr[data-ply="{p["ply"]}"]')
        cells = [c.text.strip() for c in r.find_elements(By.TAG_NAME, "td")]
        if cells[5] != p["value"]["label"] or cells[2] != p["origin"]:
            raise AssertionError(f"ply {p['ply']} shows {cells}, API says {p['value']['label']} {p['origin']}")
    print("  ok: every ply shows the API's value label and origin")
    # The page selects the frontier, else the first ply.
    frontier = next((p for p in line["plies"] if p["ply"] == line["frontier_ply"]), line["plies"][0])
    check(text(d, "#pos-fen") == frontier["fen"], f"board shows the frontier ply {frontier['ply']}: {frontier['fen']}")
    check(text(d, "#pos-value") == frontier["value"]["label"], f"frontier value {frontier['value']['label']}")
    pieces = d.find_elements(By.CSS_SELECTOR, "#board g.piece")
    check(len(pieces) == frontier["pieces"], f"{len(pieces)} pieces drawn")
    shot(d, "02-ballot-frontier.png")
    # One ply earlier: the position before the frontier.
    before = next((p for p in line["plies"] if p["ply"] == frontier["ply"] - 1), None)
    if before:
        d.find_element(By.CSS_SELECTOR, f'#line-table tr[data-ply="{before["ply"]}"]').click()
        check(text(d, "#pos-fen") == before["fen"], f"clicking ply {before['ply']} shows it")
        check(text(d, "#pos-value") == before["value"]["label"], f"its value {before['value']['label']}")
        shot(d, "03-ballot-before-frontier.png")
        d.find_element(By.CSS_SELECTOR, f'#line-table tr[data-ply="{frontier["ply"]}"]').click()

    print("the frontier position and its moves")
    d.find_element(By.ID, "open-position").click()
    ready(d, "pos/")
    pos = api("/api/position?fen=" + q(frontier["fen"]))
    check(text(d, "#pos-fen") == pos["fen"], "position view shows the FEN")
    check(text(d, "#pos-value") == pos["value"]["label"], f"value {pos['value']['label']} ({pos['value']['source']})")
    moves = d.find_elements(By.CSS_SELECTOR, "#moves-table tbody tr")
    check(len(moves) == len(pos["moves"]), f"{len(moves)} legal moves listed")
    for m in pos["moves"]:
        r = d.find_element(By.CSS_SELECTOR, f'#moves-table tr[data-move="{m["move"]}"]')
        cells = [c.text.strip() for c in r.find_elements(By.TAG_NAME, "td")]
        if cells[1] != m["label"] or cells[4] != m["fen"]:
            raise AssertionError(f"move {m['move']} shows {cells}, API says {m['label']} {m['fen']}")
    print("  ok: every move shows the API's label and resulting FEN")
    shot(d, "04-position.png")

    print("its proof tree")
    d.find_element(By.ID, "open-proof").click()
    ready(d, "proof/")
    proof = api("/api/proof?fen=" + q(frontier["fen"]))
    trees = d.find_elements(By.CSS_SELECTOR, ".proof-tree")
    check(len(trees) == len(proof["trees"]), f"{len(trees)} proof trees shown")
    if proof["trees"]:
        t = proof["trees"][0]
        header = d.find_element(By.XPATH, f'//div[@data-tree="{t["id"]}"]/preceding-sibling::h3[1]').text
        check(f"Tree {t['id']}: proves {t['proves']}" in header and f"{t['node_count']} nodes" in header,
              "tree header: " + header)
        root = d.find_element(By.CSS_SELECTOR, f'.proof-tree[data-tree="{t["id"]}"] span.node[data-node="0"]')
        check(t["nodes"][0]["proved"] in root.text, f"root node labelled {t['nodes'][0]['proved']}")
        if t["edges"]:
            e = t["edges"][0]
            child = d.find_element(By.CSS_SELECTOR, f'.proof-tree[data-tree="{t["id"]}"] span.node[data-node="{e["to"]}"]')
            check(child.text.startswith(e["move"]), f"edge labelled with its move {e['move']}")
            child.click()
            n = t["nodes"][e["to"]]
            check(text(d, "#pos-fen") == n["fen"], f"clicking node {e['to']} shows {n['fen']}")
            check(text(d, "#pos-value") == n["proved"], f"node value {n['proved']}")
    else:
        check(d.find_elements(By.ID, "no-tree"), "says no tree is rooted here")
    shot(d, "05-proof.png")

    print("the largest proof on the stored lines")
    best = max((p for b in listed for p in api(f"/api/ballot/{b['number']}")["plies"]),
               key=lambda p: p["value"]["proof_size"] or 0)
    # Back to the list first: when the largest proof is the frontier's, the
    # address is the one already shown and loading it would change nothing
    # (the board still showing the node clicked above).
    d.get(BASE + "/#ballots")
    ready(d, "ballots")
    d.get(BASE + "/#proof/" + q(best["fen"]))
    ready(d, "proof/")
    proof = api("/api/proof?fen=" + q(best["fen"]))
    for t in proof["trees"]:
        spans = d.find_elements(By.CSS_SELECTOR, f'.proof-tree[data-tree="{t["id"]}"] span.node')
        ids = {int(x.get_attribute("data-node")) for x in spans}
        check(ids == set(range(len(t["nodes"]))),
              f"tree {t['id']} ({t['proves']}): all {len(t['nodes'])} nodes of {t['node_count']} drawn")
    check(text(d, "#pos-fen") == best["fen"], f"board shows the root, proof size {best['value']['proof_size']}")
    shot(d, "07-largest-proof.png")

    print("a bad FEN")
    box = d.find_element(By.ID, "fen-input")
    box.clear()
    box.send_keys("B:W33:B1")
    d.find_element(By.CSS_SELECTOR, "#fen-form button").click()
    ready(d, "error")
    check('bad FEN "B:W33:B1"' in text(d, "#error"), "the page names the bad FEN: " + text(d, "#error"))
    try:
        api("/api/position?fen=" + q("B:W33:B1"))
        raise AssertionError("a bad FEN was answered")
    except urllib.error.HTTPError as e:
        check(e.code == 400, "the API answers 400")
    shot(d, "06-bad-fen.png")
    print("browser test: all checks passed")


if __name__ == "__main__":
    main()
