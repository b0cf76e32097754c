import Foundation

/// `georef.html`: one self-contained page to place a plan by eye. The plan (a pyramid
/// of its own pixels, embedded as data URLs) sits beside a map (a base map, or a
/// graticule); the user clicks pairs of points, and the page fits them as
/// `Georeference.fit` does, shows the residuals, previews the placed plan on the map
/// and gives the `--gcp` arguments and a `tilecut.yml` entry to copy.
/// `window.tilecutGeoref` exposes the fit and the screen positions.
public enum GeorefPage {
  /// What marks a page this command wrote (and may replace).
  public static let marker = "<meta name=\"generator\" content=\"tilecut georef\">"

  /// What the page shows.
  public struct Config: Codable, Sendable, Equatable {
    /// The source as the user named it, and its page.
    public var source: String
    public var page: Int?
    /// The source's size in pixels (the --gcp pixel coordinates' space).
    public var width: Int
    public var height: Int
    /// The pyramid's deepest zoom: there one tile pixel is one source pixel.
    public var maxZoom: Int
    /// "z/x/y" to a data URL, 256 px tiles of the source's pixel space.
    public var tiles: [String: String]
    /// An XYZ template, or "" for a graticule.
    public var basemap: String
    public var attribution: String
    /// Control points to start with: [x, y, latitude, longitude].
    public var gcp: [[Double]]
    /// Where the map opens without control points: [latitude, longitude].
    public var view: [Double]?

    public init(
      source: String, page: Int?, width: Int, height: Int, maxZoom: Int, tiles: [String: String], basemap: String = "",
      attribution: String = "", gcp: [[Double]] = [], view: [Double]? = nil
    ) {
      self.source = source
      self.page = page
      self.width = width
      self.height = height
      self.maxZoom = maxZoom
      self.tiles = tiles
      self.basemap = basemap
      self.attribution = attribution
      self.gcp = gcp
      self.view = view
    }
  }

  /// A PNG's bytes as a data URL.
  public static func dataURL(png bytes: [UInt8]) -> String {
    "data:image/png;base64," + Data(bytes).base64EncodedString()
  }

  public static func html(config: Config) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = String(decoding: try encoder.encode(config), as: UTF8.self)
    // inside <script>, "</" would end the element and "<!--" start a comment state
    let embedded = json.replacingOccurrences(of: "</", with: "<\\/").replacingOccurrences(of: "<!--", with: "\\u003c!--")
    return template.replacingOccurrences(of: "__CONFIG__", with: embedded)
  }

  /// True when the start of a file (its first kilobytes) is a page this command wrote.
  public static func isGeorefPage(start: [UInt8]) -> Bool {
    String(decoding: start, as: UTF8.self).contains(marker)
  }

  static let template = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="generator" content="tilecut georef">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>tilecut georef</title>
    <style>
      html, body { margin: 0; height: 100%; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; background: #f4f5f7; }
      body { display: grid; grid-template-rows: auto 1fr 210px; height: 100vh; }
      #bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; padding: 6px 10px; background: #fff; border-bottom: 1px solid #ccc; }
      #bar button, #bar input { font: inherit; }
      #hint { color: #555; }
      #panes { display: grid; grid-template-columns: 1fr 1fr; min-height: 0; }
      .pane { position: relative; overflow: hidden; cursor: crosshair; border-right: 1px solid #bbb; background: #e9ecef; touch-action: none; }
      .pane.dragging { cursor: grabbing; }
      .pane .title { position: absolute; left: 8px; top: 6px; z-index: 3; font-weight: 600; background: rgba(255,255,255,.85); padding: 1px 6px; pointer-events: none; }
      .tiles, .placed { position: absolute; left: 0; top: 0; }
      .tiles img { position: absolute; display: block; pointer-events: none; }
      #plan .tiles img { image-rendering: pixelated; }
      .placed { transform-origin: 0 0; pointer-events: none; }
      .placed img { position: absolute; display: block; }
      svg.over { position: absolute; left: 0; top: 0; width: 100%; height: 100%; overflow: visible; pointer-events: none; }
      svg.over .graticule line { stroke: rgba(40,60,90,.35); stroke-width: 1; }
      svg.over .graticule text { font: 11px ui-monospace, monospace; fill: #345; paint-order: stroke; stroke: rgba(255,255,255,.85); stroke-width: 3px; }
      svg.over .marker { pointer-events: all; cursor: move; }
      svg.over .marker circle { fill: rgba(255,255,255,.6); stroke: #c2185b; stroke-width: 2; }
      svg.over .marker.selected circle { stroke: #1565c0; stroke-width: 3; }
      svg.over .marker line { stroke: #c2185b; stroke-width: 1; }
      svg.over .marker text { font: bold 12px system-ui, sans-serif; fill: #c2185b; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
      svg.over .fitted { fill: #ff9800; stroke: #fff; stroke-width: 1; }
      svg.over .residual { stroke: #ff9800; stroke-width: 2; }
      .attribution { position: absolute; right: 0; bottom: 0; z-index: 3; font-size: 11px; background: rgba(255,255,255,.85); padding: 1px 6px; }
      .readout { position: absolute; left: 0; bottom: 0; z-index: 3; font: 11px ui-monospace, monospace; background: rgba(255,255,255,.85); padding: 1px 6px; }
      #panel { display: grid; grid-template-columns: 1.2fr 1fr 1fr; gap: 10px; padding: 6px 10px; background: #fff; border-top: 1px solid #ccc; min-height: 0; }
      #panel > div { min-height: 0; overflow: auto; }
      table { border-collapse: collapse; width: 100%; font: 12px ui-monospace, monospace; }
      th, td { text-align: right; padding: 1px 6px; border-bottom: 1px solid #eee; }
      tr.selected { background: #e3f2fd; }
      textarea { width: 100%; height: 130px; box-sizing: border-box; font: 12px ui-monospace, monospace; }
      #fit { font-weight: 600; }
      #fit.bad { color: #b00020; }
    </style>
    </head>
    <body>
    <div id="bar">
      <strong>tilecut georef</strong>
      <span id="source"></span>
      <span id="hint">click a point on the plan, then its place on the map; drag a point to correct it; Delete removes the selected one</span>
      <label title="opacity of the placed plan on the map">plan on map <input type="range" id="opacity" min="0" max="100" value="50"></label>
      <label title="go to a place on the map">map at <input id="goto" size="22" placeholder="lat,lon"></label>
    </div>
    <div id="panes">
      <div class="pane" id="plan"><div class="title">plan</div><div class="tiles"></div><svg class="over"></svg><div class="readout"></div></div>
      <div class="pane" id="map"><div class="title">map</div><div class="tiles"></div><div class="placed"></div><svg class="over"></svg><div class="readout"></div><div class="attribution"></div></div>
    </div>
    <div id="panel">
      <div><div id="fit"></div><table><thead><tr><th>#</th><th>x</th><th>y</th><th>lat</th><th>lon</th><th>px</th><th>m</th><th></th></tr></thead><tbody id="rows"></tbody></table></div>
      <div><label>--gcp arguments <button id="copyArgs">copy</button></label><textarea id="args" readonly></textarea></div>
      <div><label>tilecut.yml floor entry <button id="copyYaml">copy</button></label><textarea id="yaml" readonly></textarea></div>
    </div>
    <script id="config" type="application/json">__CONFIG__</script>
    <script>
    "use strict";
    const C = JSON.parse(document.getElementById("config").textContent);
    const $ = id => document.getElementById(id);
    const SVG = "http" + "://www.w3.org/2000/svg";
    const T = 256, MAXLAT = 85.0511287798066, ORIGIN_SHIFT = 20037508.342789244;

    // Web Mercator as tilecut computes it (WebMercator.swift)
    function mu(lon) { return (lon + 180) / 360; }
    function mv(lat) { const phi = Math.min(Math.max(lat, -MAXLAT), MAXLAT) * Math.PI / 180;
      return (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2; }
    function mlon(u) { return u * 360 - 180; }
    function mlat(v) { return Math.atan(Math.sinh(Math.PI * (1 - 2 * v))) * 180 / Math.PI; }
    function metresPerUnit(lat) { return 2 * ORIGIN_SHIFT * Math.cos(lat * Math.PI / 180); }

    // The fit of Georeference.fit: 2 points a similarity, 3 or more the least-squares affine
    // of AffineTransform.fit, with the same checks and residuals.
    function fitPoints(points) {
      const n = points.length;
      if (n < 2) return { error: "needs at least 2 control points, got " + n };
      const world = points.map(p => [mu(p.lon), mv(p.lat)]);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        if (points[i].col === points[j].col && points[i].row === points[j].row) return { error: "points " + (i + 1) + " and " + (j + 1) + " are at the same pixel" };
        if (world[i][0] === world[j][0] && world[i][1] === world[j][1]) return { error: "points " + (i + 1) + " and " + (j + 1) + " are at the same place" };
      }
      let t;
      if (n === 2) {
        const dp0 = points[1].col - points[0].col, dp1 = points[1].row - points[0].row;
        const dw0 = world[1][0] - world[0][0], dw1 = world[1][1] - world[0][1];
        const den = dp0 * dp0 + dp1 * dp1;
        const sr = (dw0 * dp0 + dw1 * dp1) / den, si = (dw1 * dp0 - dw0 * dp1) / den;
        const tu = world[0][0] - (sr * points[0].col - si * points[0].row);
        const tv = world[0][1] - (si * points[0].col + sr * points[0].row);
        t = { a: sr, b: -si, c: tu, d: si, e: sr, f: tv };
      } else {
        let mx = 0, my = 0, mU = 0, mV = 0;
        for (const p of points) mx += p.col; mx /= n;
        for (const p of points) my += p.row; my /= n;
        for (const w of world) mU += w[0]; mU /= n;
        for (const w of world) mV += w[1]; mV /= n;
        let sxx = 0, sxy = 0, syy = 0, sxu = 0, syu = 0, sxv = 0, syv = 0;
        for (let k = 0; k < n; k++) {
          const x = points[k].col - mx, y = points[k].row - my, u = world[k][0] - mU, v = world[k][1] - mV;
          sxx += x * x; sxy += x * y; syy += y * y; sxu += x * u; syu += y * u; sxv += x * v; syv += y * v;
        }
        const det = sxx * syy - sxy * sxy;
        if (!(Number.isFinite(det) && det > 1e-9 * sxx * syy && det > 0)) return { error: "the control points lie on one line; give points that span the image" };
        const a = (sxu * syy - syu * sxy) / det, b = (syu * sxx - sxu * sxy) / det;
        const d = (sxv * syy - syv * sxy) / det, e = (syv * sxx - sxv * sxy) / det;
        t = { a: a, b: b, c: mU - a * mx - b * my, d: d, e: e, f: mV - d * mx - e * my };
        if (![t.a, t.b, t.c, t.d, t.e, t.f].every(Number.isFinite)) return { error: "the control points lie on one line; give points that span the image" };
      }
      const squaredScale = (t.a * t.a + t.b * t.b + t.d * t.d + t.e * t.e) / 2;
      const det = t.a * t.e - t.b * t.d;
      if (!(det > 1e-6 * squaredScale && Number.isFinite(squaredScale) && det !== 0 && Number.isFinite(det)))
        return { error: "the control points give a mirrored or degenerate placement; check that the plan points and map places are in the right order" };
      const ia = t.e / det, ib = -t.b / det, id = -t.d / det, ie = t.a / det;
      const inv = { a: ia, b: ib, c: -(ia * t.c + ib * t.f), d: id, e: ie, f: -(id * t.c + ie * t.f) };
      let sumPx = 0, sumM = 0, maxPx = 0, worst = null;
      const residuals = points.map((p, i) => {
        const w = world[i];
        const bx = inv.a * w[0] + inv.b * w[1] + inv.c, by = inv.d * w[0] + inv.e * w[1] + inv.f;
        const px = Math.hypot(bx - p.col, by - p.row);
        const fu = t.a * p.col + t.b * p.row + t.c, fv = t.d * p.col + t.e * p.row + t.f;
        const m = Math.hypot(fu - w[0], fv - w[1]) * metresPerUnit(p.lat);
        sumPx += px * px; sumM += m * m;
        if (px > maxPx) { maxPx = px; worst = i; }
        return { pixels: px, meters: m, fittedLat: mlat(fv), fittedLon: mlon(fu) };
      });
      return { transform: t, residuals: residuals, rmsPixels: Math.sqrt(sumPx / n), rmsMeters: Math.sqrt(sumM / n), maxPixels: maxPx, worst: maxPx > 0 ? worst : null };
    }

    // A pan-and-zoom view over a square world of unit side, 256·2^zoom CSS px wide.
    function Pane(el, opts) {
      const pane = { el: el, zoom: opts.zoom || 0, cx: 0.5, cy: 0.5, minZoom: opts.minZoom, maxZoom: opts.maxZoom,
        tiles: el.querySelector(".tiles"), over: el.querySelector("svg.over"), imgs: new Map() };
      pane.scale = () => T * Math.pow(2, pane.zoom);
      pane.origin = () => { const n = pane.scale(); return { x: Math.round(el.clientWidth / 2 - pane.cx * n), y: Math.round(el.clientHeight / 2 - pane.cy * n) }; };
      pane.toScreen = (u, v) => { const o = pane.origin(), n = pane.scale(); return { x: o.x + u * n, y: o.y + v * n }; };
      pane.toWorld = (x, y) => { const o = pane.origin(), n = pane.scale(); return { u: (x - o.x) / n, v: (y - o.y) / n }; };
      pane.setZoom = (z, px, py) => {
        const next = Math.max(pane.minZoom, Math.min(pane.maxZoom, z));
        const w = el.clientWidth, h = el.clientHeight;
        const dx = (px === undefined ? w / 2 : px) - w / 2, dy = (py === undefined ? h / 2 : py) - h / 2;
        const before = pane.scale(), after = T * Math.pow(2, next);
        pane.cx += dx / before - dx / after; pane.cy += dy / before - dy / after;
        pane.zoom = next; redraw();
      };
      // tiles: opts.tile(z, x, y) gives a URL or null; levels above opts.tileZoom() are scaled up
      pane.drawTiles = () => {
        const seen = new Set(), tz = Math.min(pane.zoom, opts.tileZoom()), n = Math.pow(2, tz), size = T * Math.pow(2, pane.zoom - tz);
        const o = pane.origin(), w = el.clientWidth, h = el.clientHeight;
        let [x0, x1, y0, y1] = [Math.floor(-o.x / size), Math.floor((w - o.x) / size), Math.max(0, Math.floor(-o.y / size)), Math.min(n - 1, Math.floor((h - o.y) / size))];
        if (opts.probe && opts.probe()) {
          x0 = x1 = Math.floor((w / 2 - o.x) / size); y0 = y1 = Math.max(0, Math.min(n - 1, Math.floor((h / 2 - o.y) / size)));
        }
        if (opts.tile) {
          for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) {
            const wx = opts.wrap ? ((x % n) + n) % n : x;
            if (wx < 0 || wx >= n) continue;
            const key = tz + "/" + wx + "/" + y;
            let img = pane.imgs.get(key);
            if (!img) {
              const url = opts.tile(tz, wx, y); if (!url) continue;
              img = document.createElement("img"); img.alt = ""; img.draggable = false;
              img.dataset.z = tz; img.dataset.x = wx; img.dataset.y = y;
              if (opts.onTileLoad) { img.onload = opts.onTileLoad; img.onerror = opts.onTileError; }
              img.src = url; pane.imgs.set(key, img);
            }
            img.style.left = (o.x + x * size) + "px"; img.style.top = (o.y + y * size) + "px";
            img.style.width = img.style.height = size + "px";
            if (img.parentNode !== pane.tiles) pane.tiles.appendChild(img);
            seen.add(img);
          }
        }
        for (const [key, img] of pane.imgs) if (!seen.has(img)) { img.remove(); pane.imgs.delete(key); }
      };
      // a click (not a drag) calls opts.click(x, y); pointerdown on a marker drags the marker
      let drag = null;
      el.addEventListener("pointerdown", e => {
        const r = el.getBoundingClientRect();
        const marker = e.target.closest && e.target.closest(".marker");
        drag = { x: e.clientX, y: e.clientY, sx: e.clientX, sy: e.clientY, moved: false, marker: marker ? Number(marker.dataset.index) : null, r: r };
        if (drag.marker !== null) select(drag.marker);
        try { el.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic event has no live pointer */ }
      });
      el.addEventListener("pointermove", e => {
        const r = el.getBoundingClientRect();
        opts.readout(pane.toWorld(e.clientX - r.left, e.clientY - r.top));
        if (!drag) return;
        if (Math.hypot(e.clientX - drag.sx, e.clientY - drag.sy) > 3) { drag.moved = true; el.classList.add("dragging"); }
        if (!drag.moved) return;
        if (drag.marker !== null) {
          opts.move(drag.marker, pane.toWorld(e.clientX - r.left, e.clientY - r.top));
        } else {
          const n = pane.scale();
          pane.cx -= (e.clientX - drag.x) / n; pane.cy -= (e.clientY - drag.y) / n;
          redraw();
        }
        drag.x = e.clientX; drag.y = e.clientY;
      });
      el.addEventListener("pointerup", e => {
        if (drag && !drag.moved && drag.marker === null) {
          const r = el.getBoundingClientRect();
          opts.click(pane.toWorld(e.clientX - r.left, e.clientY - r.top));
        }
        drag = null; el.classList.remove("dragging");
      });
      el.addEventListener("pointercancel", () => { drag = null; el.classList.remove("dragging"); });
      let wheel = 0;
      el.addEventListener("wheel", e => {
        e.preventDefault();
        wheel += e.deltaMode ? e.deltaY * 40 : e.deltaY;
        if (Math.abs(wheel) < 100) return;
        const r = el.getBoundingClientRect();
        pane.setZoom(pane.zoom + (wheel < 0 ? 1 : -1), e.clientX - r.left, e.clientY - r.top);
        wheel = 0;
      }, { passive: false });
      return pane;
    }

    // The plan in its own pixel space: u = col / (256·2^Z) at the pyramid's deepest zoom Z,
    // where one tile pixel is one source pixel; deeper zooms scale those tiles up.
    const Z = C.maxZoom, planUnit = T * Math.pow(2, Z);
    const points = [];
    let selected = null, lastFit = null;
    const basemap = { url: C.basemap || "", state: C.basemap ? "probing" : "none", maxZoom: 19 };

    function planWorld(col, row) { return { u: col / planUnit, v: row / planUnit }; }
    function readoutPlan(w) { $("plan").querySelector(".readout").textContent = "x " + (w.u * planUnit).toFixed(1) + "  y " + (w.v * planUnit).toFixed(1); }
    function readoutMap(w) { $("map").querySelector(".readout").textContent = mlat(w.v).toFixed(7) + ", " + mlon(w.u).toFixed(7); }

    const plan = Pane($("plan"), { minZoom: 0, maxZoom: Z + 4, tileZoom: () => Z, tile: (z, x, y) => C.tiles[z + "/" + x + "/" + y] || null,
      readout: readoutPlan,
      click: w => addPlan(w.u * planUnit, w.v * planUnit),
      move: (i, w) => { points[i].col = w.u * planUnit; points[i].row = w.v * planUnit; update(); } });
    const map = Pane($("map"), { minZoom: 0, maxZoom: 23, wrap: true, tileZoom: () => basemap.maxZoom,
      tile: basemap.url ? (z, x, y) => (basemap.state === "failed" ? null : basemap.url.replace(/\{z\}/g, z).replace(/\{x\}/g, x).replace(/\{y\}/g, y).replace(/\{s\}/g, "a").replace(/\{r\}/g, "")) : null,
      probe: () => basemap.state === "probing",
      onTileLoad: () => { if (basemap.state !== "ok") { basemap.state = "ok"; redraw(); } },
      onTileError: () => { if (basemap.state === "probing") { basemap.state = "failed"; redraw(); } },
      readout: readoutMap,
      click: w => addMap(mlat(w.v), mlon(w.u)),
      move: (i, w) => { points[i].lat = mlat(w.v); points[i].lon = mlon(w.u); update(); } });
    $("map").querySelector(".attribution").textContent = basemap.url ? (C.attribution || "") : "";

    // A click on one side completes the first point that lacks that side, or starts a new one.
    function addPlan(col, row) {
      const open = points.findIndex(p => p.col === null);
      if (open >= 0) { points[open].col = col; points[open].row = row; select(open); }
      else { points.push({ col: col, row: row, lat: null, lon: null }); select(points.length - 1); }
      update();
    }
    function addMap(lat, lon) {
      const open = points.findIndex(p => p.lat === null);
      if (open >= 0) { points[open].lat = lat; points[open].lon = lon; select(open); }
      else { points.push({ col: null, row: null, lat: lat, lon: lon }); select(points.length - 1); }
      update();
    }
    function remove(i) { points.splice(i, 1); selected = null; update(); }
    function select(i) { selected = i; }
    function complete() { return points.filter(p => p.col !== null && p.lat !== null); }

    function svg(name, attrs, parent) {
      const e = document.createElementNS(SVG, name);
      for (const k in attrs) e.setAttribute(k, attrs[k]);
      parent.appendChild(e); return e;
    }
    function marker(parent, i, at) {
      const g = svg("g", { class: "marker" + (i === selected ? " selected" : ""), "data-index": i }, parent);
      svg("circle", { cx: at.x, cy: at.y, r: 9 }, g);
      svg("line", { x1: at.x - 5, y1: at.y, x2: at.x + 5, y2: at.y }, g);
      svg("line", { x1: at.x, y1: at.y - 5, x2: at.x, y2: at.y + 5 }, g);
      svg("text", { x: at.x + 11, y: at.y - 9 }, g).textContent = String(i + 1);
    }
    function graticuleStep(degreesPerPixel) {
      const steps = [30, 10];
      for (let e = 1; e >= -7; e--) for (const m of [5, 2, 1]) steps.push(m * Math.pow(10, e));
      let step = steps[0];
      for (const s of steps) if (s / degreesPerPixel >= 80) step = s;
      return step;
    }
    function label(value, step, pos, neg) {
      const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
      return Math.abs(value).toFixed(decimals) + "°" + (value > 0 ? pos : value < 0 ? neg : "");
    }
    function graticule(g) {
      const w = map.el.clientWidth, h = map.el.clientHeight, nw = map.toWorld(0, 0), se = map.toWorld(w, h);
      const west = mlon(nw.u), east = mlon(se.u), north = mlat(Math.max(0, nw.v)), south = mlat(Math.min(1, se.v));
      const lonStep = graticuleStep((east - west) / w), latStep = graticuleStep(Math.max(1e-12, (north - south) / h));
      for (let x = Math.ceil(Math.max(-180, west) / lonStep) * lonStep; x <= Math.min(180, east); x += lonStep) {
        const p = map.toScreen(mu(x), 0).x;
        svg("line", { x1: p, y1: 0, x2: p, y2: h }, g); svg("text", { x: p + 3, y: 40 }, g).textContent = label(x, lonStep, "E", "W");
      }
      for (let y = Math.ceil(Math.max(-MAXLAT, south) / latStep) * latStep; y <= Math.min(MAXLAT, north); y += latStep) {
        const p = map.toScreen(0, mv(y)).y;
        svg("line", { x1: 0, y1: p, x2: w, y2: p }, g); svg("text", { x: 4, y: p - 3 }, g).textContent = label(y, latStep, "N", "S");
      }
    }
    // The plan's tiles of one level, placed on the map with the fitted affine as a CSS matrix.
    function drawPlaced() {
      const box = $("map").querySelector(".placed");
      if (!lastFit || !lastFit.transform) { box.replaceChildren(); box.dataset.level = ""; return; }
      const t = lastFit.transform, n = map.scale(), o = map.origin();
      // source pixels per screen pixel decide the level: about one tile pixel per screen pixel
      const screenPerSource = n * Math.sqrt(Math.abs(t.a * t.e - t.b * t.d));
      const level = Math.max(0, Math.min(Z, Z + Math.ceil(Math.log2(Math.max(1e-9, screenPerSource)))));
      if (box.dataset.level !== String(level)) {
        box.replaceChildren();
        const k = Math.pow(2, Z - level), count = Math.pow(2, level);
        for (let y = 0; y < count && y * T * k < C.height; y++) for (let x = 0; x < count && x * T * k < C.width; x++) {
          const url = C.tiles[level + "/" + x + "/" + y]; if (!url) continue;
          const img = document.createElement("img"); img.alt = ""; img.src = url;
          img.style.left = (x * T * k) + "px"; img.style.top = (y * T * k) + "px"; img.style.width = img.style.height = (T * k) + "px";
          box.appendChild(img);
        }
        box.dataset.level = String(level);
      }
      box.style.transform = "matrix(" + [n * t.a, n * t.d, n * t.b, n * t.e, o.x + n * t.c, o.y + n * t.f].join(",") + ")";
      box.style.opacity = $("opacity").value / 100;
    }
    function redraw() {
      plan.drawTiles(); map.drawTiles(); drawPlaced();
      plan.over.replaceChildren(); map.over.replaceChildren();
      if (basemap.state !== "ok") graticule(svg("g", { class: "graticule" }, map.over));
      const done = complete();
      points.forEach((p, i) => {
        if (p.col !== null) { const w = planWorld(p.col, p.row); marker(plan.over, i, plan.toScreen(w.u, w.v)); }
        if (p.lat !== null) {
          const at = map.toScreen(mu(p.lon), mv(p.lat));
          const k = done.indexOf(p);
          if (lastFit && lastFit.residuals && k >= 0) {
            const r = lastFit.residuals[k], to = map.toScreen(mu(r.fittedLon), mv(r.fittedLat));
            svg("line", { class: "residual", x1: at.x, y1: at.y, x2: to.x, y2: to.y }, map.over);
            svg("circle", { class: "fitted", cx: to.x, cy: to.y, r: 3 }, map.over);
          }
          marker(map.over, i, at);
        }
      });
    }
    function trim(x, digits) { let s = x.toFixed(digits); if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, ""); return s === "-0" ? "0" : s; }
    function gcpText(p) { return trim(p.col, 2) + "," + trim(p.row, 2) + "," + trim(p.lat, 8) + "," + trim(p.lon, 8); }
    function gcpArguments() { return complete().map(p => "--gcp " + gcpText(p)); }
    function yaml() { return "gcp:\n" + complete().map(p => "  - [" + gcpText(p).split(",").join(", ") + "]").join("\n") + "\n"; }
    function update() {
      const done = complete();
      // the fit tilecut makes from the numbers it would be given: the rounded ones
      lastFit = done.length >= 2 ? fitPoints(done.map(p => { const v = gcpText(p).split(",").map(Number); return { col: v[0], row: v[1], lat: v[2], lon: v[3] }; })) : null;
      const rows = $("rows"); rows.replaceChildren();
      points.forEach((p, i) => {
        const tr = document.createElement("tr"); if (i === selected) tr.className = "selected";
        const k = done.indexOf(p), r = lastFit && lastFit.residuals && k >= 0 ? lastFit.residuals[k] : null;
        const cells = [i + 1, p.col === null ? "·" : p.col.toFixed(1), p.row === null ? "·" : p.row.toFixed(1),
          p.lat === null ? "·" : p.lat.toFixed(7), p.lon === null ? "·" : p.lon.toFixed(7), r ? r.pixels.toFixed(2) : "", r ? r.meters.toFixed(3) : ""];
        for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
        const td = document.createElement("td"), b = document.createElement("button");
        b.textContent = "✕"; b.title = "delete point " + (i + 1); b.className = "delete"; b.onclick = () => remove(i);
        td.appendChild(b); tr.appendChild(td);
        tr.onclick = e => { if (e.target !== b) { select(i); update(); } };
        rows.appendChild(tr);
      });
      const fit = $("fit");
      fit.className = lastFit && lastFit.error ? "bad" : "";
      fit.textContent = !lastFit ? "give 2 or more pairs (" + done.length + " so far): 2 fit scale, rotation and position, 3 or more an affine" :
        lastFit.error ? lastFit.error :
        (done.length === 2 ? "similarity" : "affine") + " from " + done.length + " points · RMS " + lastFit.rmsPixels.toFixed(2) + " px (" +
          lastFit.rmsMeters.toFixed(3) + " m) · " + (metresPerUnit(done[0].lat) * Math.sqrt(Math.abs(lastFit.transform.a * lastFit.transform.e - lastFit.transform.b * lastFit.transform.d))).toFixed(4) + " m per source px";
      $("args").value = gcpArguments().join(" \\\n");
      $("yaml").value = done.length ? yaml() : "";
      redraw();
    }
    function copy(id) {
      const area = $(id); area.select();
      if (navigator.clipboard) navigator.clipboard.writeText(area.value).catch(() => document.execCommand("copy")); else document.execCommand("copy");
    }
    $("copyArgs").onclick = () => copy("args");
    $("copyYaml").onclick = () => copy("yaml");
    $("opacity").oninput = drawPlaced;
    $("goto").onchange = () => {
      const v = $("goto").value.split(",").map(Number);
      if (v.length === 2 && v.every(Number.isFinite)) { map.cx = mu(v[1]); map.cy = mv(v[0]); if (map.zoom < 17) map.zoom = 17; redraw(); }
    };
    addEventListener("keydown", e => {
      if ((e.key === "Delete" || e.key === "Backspace") && selected !== null && document.activeElement.tagName !== "INPUT") remove(selected);
    });
    addEventListener("resize", redraw);
    $("source").textContent = C.source + (C.page !== null && C.page !== undefined ? " page " + C.page : "") + " · " + C.width + " × " + C.height + " px";

    // the plan fills its pane; the map opens on the given points, else on the world
    function fitPlan() {
      let z = 0;
      for (let k = 0; k <= Z; k++) if (C.width / Math.pow(2, Z - k) <= plan.el.clientWidth - 20 && C.height / Math.pow(2, Z - k) <= plan.el.clientHeight - 20) z = k;
      plan.zoom = z; plan.cx = C.width / 2 / planUnit; plan.cy = C.height / 2 / planUnit;
    }
    for (const g of C.gcp || []) points.push({ col: g[0], row: g[1], lat: g[2], lon: g[3] });
    fitPlan();
    if (points.length) {
      const lats = points.map(p => p.lat), lons = points.map(p => p.lon);
      map.cx = mu((Math.min(...lons) + Math.max(...lons)) / 2); map.cy = mv((Math.min(...lats) + Math.max(...lats)) / 2);
      let z = 2;
      for (let k = 2; k <= 21; k++) if ((mu(Math.max(...lons)) - mu(Math.min(...lons))) * T * Math.pow(2, k) < map.el.clientWidth * 0.6 &&
        (mv(Math.min(...lats)) - mv(Math.max(...lats))) * T * Math.pow(2, k) < map.el.clientHeight * 0.6) z = k;
      map.zoom = z;
    } else if (C.view) { map.cx = mu(C.view[1]); map.cy = mv(C.view[0]); map.zoom = 17; }
    else { map.zoom = 1; }
    update();

    // For tests and scripts: screen positions (CSS px from the window's top-left) and the fit.
    window.tilecutGeoref = {
      fit: fitPoints, points: () => points.map(p => Object.assign({}, p)), gcpArguments, yaml, basemap: () => basemap.state,
      planScreen(col, row) { const r = plan.el.getBoundingClientRect(), w = planWorld(col, row), s = plan.toScreen(w.u, w.v); return { x: r.left + s.x, y: r.top + s.y }; },
      mapScreen(lat, lon) { const r = map.el.getBoundingClientRect(), s = map.toScreen(mu(lon), mv(lat)); return { x: r.left + s.x, y: r.top + s.y }; },
      setPlanView(zoom, col, row) { plan.zoom = zoom; plan.cx = col / planUnit; plan.cy = row / planUnit; redraw(); },
      setMapView(zoom, lat, lon) { map.zoom = zoom; map.cx = mu(lon); map.cy = mv(lat); redraw(); },
      remove,
    };
    </script>
    </body>
    </html>
    """#
}
