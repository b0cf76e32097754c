#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe) to
check tilecut's preview.html and georef.html; Python's standard library and GDAL's osr.

    python3 drive.py JOB.json      # prints one JSON object with what it measured

JOB holds "port" (a loopback base map served while the pages run: PNG tiles made
here, or none), "width"/"height" of the window and a list of "pages", each
{"kind": "preview" | "georef", "url": ..., ...}. Expected screen positions are
computed here from EPSG:3857 by GDAL (osr), not by the pages' own JavaScript;
the Swift tests compare them with what the pages drew.
"""
import http.server
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from osgeo import osr

HALF = 20037508.342789244


def png(width, height, rgb):
    """A solid-colour RGB PNG."""
    raw = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Tiles(http.server.BaseHTTPRequestHandler):
    """Base map tiles: /z/x/y.png, a checkerboard of two colours."""
    served = []

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        try:
            z, x, y = int(parts[0]), int(parts[1]), int(parts[2].split(".")[0])
        except (ValueError, IndexError):
            self.send_error(404)
            return
        Tiles.served.append([z, x, y])
        body = png(256, 256, (200, 230, 200) if (x + y) % 2 else (230, 220, 200))
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Browser:
    """Chromium with its DevTools protocol on fds 3 and 4."""

    def __init__(self, width, height):
        self.profile = tempfile.mkdtemp(prefix="tilecut-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)

        def child():
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "--hide-scrollbars",
                "--no-first-run", "--disable-extensions", "--disable-background-networking",
                # no network: every host but the loopback one fails to resolve
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "about:blank"]
        self.process = subprocess.Popen(args, preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_chrome_r, from_chrome_w, a, b):
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height, deviceScaleFactor=1, mobile=False)

    def receive(self):
        while b"\0" not in self.buffer:
            data = os.read(self.from_chrome, 1 << 16)
            if not data:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += data
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=False, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def pump(self, seconds):
        """Reads events for a while (lets timers and image loads run)."""
        end = time.time() + seconds
        self.evaluate("1")
        while time.time() < end:
            time.sleep(0.05)
            self.evaluate("1")

    def wait(self, condition, seconds):
        """Until a JavaScript condition holds, or the time is up."""
        end = time.time() + seconds
        while not self.evaluate(condition) and time.time() < end:
            time.sleep(0.05)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("%s: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def open(self, url):
        self.events = []
        self.call("Page.navigate", session=True, url=url)
        for _ in range(200):
            if self.evaluate("document.readyState") == "complete":
                break
            time.sleep(0.05)

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left" if kind != "mouseMoved" else "none",
                      buttons=1 if kind == "mousePressed" else 0, clickCount=1)

    def drag(self, x0, y0, x1, y1, steps=8):
        self.call("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x0, y=y0)
        self.call("Input.dispatchMouseEvent", session=True, type="mousePressed", x=x0, y=y0, button="left", buttons=1, clickCount=1)
        for i in range(1, steps + 1):
            self.call("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x0 + (x1 - x0) * i / steps,
                      y=y0 + (y1 - y0) * i / steps, button="left", buttons=1)
        self.call("Input.dispatchMouseEvent", session=True, type="mouseReleased", x=x1, y=y1, button="left", buttons=0, clickCount=1)

    def problems(self):
        """Console errors and warnings, uncaught exceptions, and failed loads, as lines."""
        out = []
        for e in self.events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p["exceptionDetails"].get("exception", {}).get("description", p["exceptionDetails"].get("text"))))
            elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))))
            elif method == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append("log (%s): %s %s" % (p["entry"].get("source"), p["entry"].get("text"), p["entry"].get("url", "")))
        return out

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


_to_mercator = None


def mercator(lat, lon):
    """EPSG:4326 → EPSG:3857 metres, by GDAL."""
    global _to_mercator
    if _to_mercator is None:
        wgs, web = osr.SpatialReference(), osr.SpatialReference()
        wgs.ImportFromEPSG(4326)
        web.ImportFromEPSG(3857)
        wgs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        web.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        _to_mercator = osr.CoordinateTransformation(wgs, web)
    x, y, _ = _to_mercator.TransformPoint(lon, lat)
    return x, y


def world(lat, lon):
    x, y = mercator(lat, lon)
    return (x + HALF) / (2 * HALF), (HALF - y) / (2 * HALF)


def screen(lat, lon, view, width, height):
    """Where a place is drawn in a width × height view centred on view's lat/lon at its zoom."""
    n = 256 * 2 ** view["zoom"]
    cu, cv = world(view["lat"], view["lon"])
    ox, oy = round(width / 2 - cu * n), round(height / 2 - cv * n)
    u, v = world(lat, lon)
    return [ox + u * n, oy + v * n], [ox, oy]


def preview(browser, page, size):
    browser.open(page["url"])
    browser.pump(page.get("settle", 0.5))
    view = page.get("view")
    if view:
        browser.evaluate("tilecutPreview.setView(%d, %r, %r)" % (view["zoom"], view["lat"], view["lon"]))
        browser.pump(page.get("settle", 0.5))
    else:
        view = browser.evaluate("tilecutPreview.view()")
    # on a busy machine: until the base map has answered and every image has come (at most 10 s)
    browser.wait("tilecutPreview.basemap() !== 'probing' && [...document.querySelectorAll('img')].every(i => i.complete)", 10)
    manifest = browser.evaluate("JSON.parse(document.getElementById('manifest').textContent)")
    width, height = browser.evaluate("[innerWidth, innerHeight]")
    outlines = browser.evaluate("""[...document.querySelectorAll('#over polygon.outline')].map(p => ({floor: Number(p.dataset.floor),
        points: p.getAttribute('points').split(' ').map(s => s.split(',').map(Number))}))""")
    expected_outlines = []
    for placed in manifest.get("placements", []):
        expected_outlines.append({"floor": placed["floor"], "points": [screen(a, b, view, width, height)[0] for a, b in placed["outline"]]})
    gcps = browser.evaluate("""[...document.querySelectorAll('#over g.gcp')].map(g => { const c = g.querySelector('circle');
        return {index: Number(g.dataset.index), x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')),
        text: g.querySelector('text').textContent, arrows: g.querySelectorAll('line').length}; })""")
    expected_gcps = []
    for placed in manifest.get("placements", []):
        if placed["floor"] != view.get("floor", placed["floor"]):
            continue
        for i, c in enumerate(placed.get("controlPoints") or []):
            at = screen(c["latitude"], c["longitude"], view, width, height)[0]
            expected_gcps.append({"index": i, "x": at[0], "y": at[1], "residualPixels": c["residualPixels"]})
    _, origin = screen(view["lat"], view["lon"], view, width, height)
    base = browser.evaluate("""[...document.querySelectorAll('#base img')].map(i => ({z: Number(i.dataset.z), x: Number(i.dataset.x),
        y: Number(i.dataset.y), left: i.getBoundingClientRect().left, top: i.getBoundingClientRect().top,
        width: i.getBoundingClientRect().width, loaded: i.complete && i.naturalWidth > 0}))""")
    expected_base = []
    for b in base:
        size = 256 * 2 ** (view["zoom"] - b["z"])
        expected_base.append({"left": origin[0] + b["x"] * size, "top": origin[1] + b["y"] * size, "width": size})
    # the readout under a known place
    probe = [view["lat"], view["lon"]]
    at = screen(probe[0], probe[1], view, width, height)[0]
    browser.call("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=at[0], y=at[1])
    browser.pump(0.1)
    readout = browser.evaluate("document.getElementById('readout').textContent")
    return {"kind": "preview", "view": view, "outlines": outlines, "expectedOutlines": expected_outlines, "gcps": gcps,
            "expectedGcps": expected_gcps, "basemap": browser.evaluate("tilecutPreview.basemap()"),
            "graticuleLines": browser.evaluate("document.querySelectorAll('#over .graticule line').length"),
            "graticuleLabels": browser.evaluate("[...document.querySelectorAll('#over .graticule text')].map(t => t.textContent)"),
            "attribution": browser.evaluate("document.getElementById('attribution').textContent"),
            "base": base, "expectedBase": expected_base, "readout": readout, "readoutPlace": probe,
            "tileImages": browser.evaluate("[...document.querySelectorAll('#layer img')].filter(i => i.complete && i.naturalWidth > 0).length"),
            "problems": browser.problems()}


def georef(browser, page, size):
    browser.open(page["url"])
    browser.pump(0.5)
    out = {"kind": "georef", "initial": browser.evaluate("tilecutGeoref.gcpArguments()")}
    # the page's fit of given numbers, to compare with tilecut's
    out["fits"] = [browser.evaluate("(() => { const f = tilecutGeoref.fit(%s); return f.transform ? Object.assign({}, f.transform, "
                                    "{rmsPixels: f.rmsPixels, rmsMeters: f.rmsMeters}) : f; })()" % json.dumps(points))
                   for points in page.get("fitPoints", [])]
    zp, zm = page.get("planZoom"), page.get("mapZoom")
    for k, (col, row, lat, lon) in enumerate(page.get("pairs", [])):
        # the first pair's plan point is clicked 40 screen px off, then dragged to its place
        browser.evaluate("tilecutGeoref.setPlanView(%d, %r, %r)" % (zp, col, row))
        at = browser.evaluate("tilecutGeoref.planScreen(%r, %r)" % (col, row))
        if k == 0 and page.get("dragFirst"):
            browser.click(round(at["x"]) + 40, round(at["y"]) + 25)
            browser.drag(round(at["x"]) + 40, round(at["y"]) + 25, round(at["x"]), round(at["y"]))
        else:
            browser.click(round(at["x"]), round(at["y"]))
        browser.evaluate("tilecutGeoref.setMapView(%d, %r, %r)" % (zm, lat, lon))
        x, y = mercator(lat, lon)
        u, v = (x + HALF) / (2 * HALF), (HALF - y) / (2 * HALF)
        at = browser.evaluate("tilecutGeoref.mapScreen(%r, %r)" % (lat, lon))
        browser.click(round(at["x"]), round(at["y"]))
        if k == 0 and page.get("extraPair"):
            # a stray pair, deleted with its row's button
            browser.click(round(at["x"]) + 60, round(at["y"]) + 60)
            browser.evaluate("tilecutGeoref.setPlanView(%d, %r, %r)" % (zp, col, row))
            at = browser.evaluate("tilecutGeoref.planScreen(%r, %r)" % (col + 50, row + 50))
            browser.click(round(at["x"]), round(at["y"]))
            out["beforeDelete"] = len(browser.evaluate("tilecutGeoref.points()"))
            button = browser.evaluate("(() => { const r = document.querySelectorAll('#rows button.delete')[1].getBoundingClientRect();"
                                      " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()")
            browser.click(round(button["x"]), round(button["y"]))
    browser.pump(0.2)
    out["points"] = browser.evaluate("tilecutGeoref.points()")
    out["arguments"] = browser.evaluate("tilecutGeoref.gcpArguments()")
    out["yaml"] = browser.evaluate("tilecutGeoref.yaml()")
    out["fitText"] = browser.evaluate("document.getElementById('fit').textContent")
    out["placedLevel"] = browser.evaluate("document.querySelector('#map .placed').dataset.level")
    out["basemap"] = browser.evaluate("tilecutGeoref.basemap()")
    out["graticuleLines"] = browser.evaluate("document.querySelectorAll('#map .graticule line').length")
    out["problems"] = browser.problems()
    return out


def main():
    job = json.load(open(sys.argv[1]))
    server = None
    if job.get("port"):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", job["port"]), Tiles)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    width, height = job.get("width", 1200), job.get("height", 800)
    browser = Browser(width, height)
    results = []
    try:
        for page in job["pages"]:
            results.append((preview if page["kind"] == "preview" else georef)(browser, page, (width, height)))
    finally:
        browser.close()
        if server:
            server.shutdown()
    print(json.dumps({"pages": results, "served": Tiles.served}))


if __name__ == "__main__":
    main()
