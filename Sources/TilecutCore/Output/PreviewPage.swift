import Foundation

/// `preview.html`: one self-contained page (no external files but the tiles themselves
/// and, when the manifest's options name one, a base map) that pans and zooms over an
/// output, with a floor switcher, a 256/512 switch, the tile grid with z/x/y labels,
/// no-tile cells marked, an opacity slider, each floor's outline, the control points
/// with their residuals, a graticule where no base map shows, and the latitude and
/// longitude under the pointer. `window.tilecutPreview` exposes the projection.
public enum PreviewPage {
  public static func html(manifest: Manifest) -> String {
    let json = (try? manifest.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    // Inside <script>, "</" would end the element: escape it.
    // "<!--" could start an HTML comment state that swallows the rest of the page.
    let embedded = json.replacingOccurrences(of: "</", with: "<\\/").replacingOccurrences(of: "<!--", with: "\\u003c!--")
    return template.replacingOccurrences(of: "__MANIFEST__", with: embedded)
  }

  static let template = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>tilecut preview</title>
    <style>
      html, body { margin: 0; height: 100%; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background: #e9ecef; color: #222; }
      #bar { position: fixed; top: 0; left: 0; right: 0; z-index: 10; display: flex; gap: 10px; align-items: center; flex-wrap: wrap;
             padding: 6px 10px; background: rgba(255,255,255,.94); border-bottom: 1px solid #ccc; }
      #bar button.on { background: #2b6cb0; color: #fff; }
      #bar button, #bar select { font: inherit; padding: 2px 8px; }
      #view { position: absolute; top: 0; left: 0; right: 0; bottom: 0; overflow: hidden; cursor: grab; }
      #view.dragging { cursor: grabbing; }
      #base, #layer { position: absolute; left: 0; top: 0; }
      #base img { position: absolute; display: block; pointer-events: none; }
      #over { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; overflow: visible; }
      #over .graticule line { stroke: rgba(40,60,90,.35); stroke-width: 1; }
      #over .graticule text { font: 11px ui-monospace, monospace; fill: #345; paint-order: stroke; stroke: rgba(255,255,255,.85); stroke-width: 3px; }
      #over .outline { fill: none; stroke: #d0021b; stroke-width: 2; }
      #over .outline.other { stroke: rgba(208,2,27,.45); stroke-dasharray: 6 4; }
      #over .building { fill: none; stroke: #6a1b9a; stroke-width: 2; stroke-dasharray: 10 4; }
      #over .building-name { font: bold 12px system-ui, sans-serif; fill: #6a1b9a; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
      #over .gcp circle { fill: #fff; stroke: #0b6e4f; stroke-width: 2; }
      #over .gcp line { stroke: #e65100; stroke-width: 2; }
      #over .gcp text { font: 11px ui-monospace, monospace; fill: #0b3d2e; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
      .cell { position: absolute; width: 256px; height: 256px; box-sizing: border-box; }
      .cell img { width: 256px; height: 256px; display: block; image-rendering: auto; }
      .none { background: repeating-linear-gradient(45deg, rgba(200,60,60,.10) 0 6px, transparent 6px 14px); }
      .hidenone .none { background: none; }
      .grid .cell { outline: 1px solid rgba(200,40,40,.55); outline-offset: -1px; }
      .grid .none { background: repeating-linear-gradient(45deg, rgba(200,60,60,.28) 0 6px, rgba(255,255,255,.3) 6px 14px); }
      .label { display: none; position: absolute; left: 4px; top: 3px; font: 11px/1.2 ui-monospace, monospace; color: #900;
               background: rgba(255,255,255,.8); padding: 1px 3px; pointer-events: none; }
      .grid .label { display: block; }
      .broken { background: rgba(255,170,0,.25); }
      #info { margin-left: auto; color: #555; }
      #foot { position: fixed; right: 0; bottom: 0; z-index: 10; display: flex; gap: 12px; padding: 2px 8px; font-size: 12px;
              background: rgba(255,255,255,.85); color: #333; }
      #readout { font-family: ui-monospace, monospace; }
    </style>
    </head>
    <body>
    <div id="view"><div id="base"></div><div id="layer"></div><svg id="over"></svg></div>
    <div id="bar">
      <strong>tilecut</strong>
      <label>floor <select id="floor"></select></label>
      <span id="sizes"></span>
      <button id="out" title="zoom out (-)">−</button><span id="zoom"></span><button id="in" title="zoom in (+)">+</button>
      <label><input type="checkbox" id="grid"> grid &amp; z/x/y</label>
      <label title="opacity of the tiles">opacity <input type="range" id="opacity" min="0" max="100" value="85"></label>
      <label><input type="checkbox" id="marks" checked> outlines &amp; control points</label>
      <button id="fit">fit</button>
      <span id="info"></span>
    </div>
    <div id="foot"><span id="readout"></span><span id="attribution"></span></div>
    <script id="manifest" type="application/json">__MANIFEST__</script>
    <script>
    "use strict";
    const M = JSON.parse(document.getElementById("manifest").textContent);
    const $ = id => document.getElementById(id);
    const view = $("view"), layer = $("layer"), base = $("base"), over = $("over"), T = 256;
    const SVG = "http" + "://www.w3.org/2000/svg";
    const MAXLAT = 85.0511287798066;
    const options = M.options || {};
    // The base map: an XYZ template; it shows once one of its tiles loaded, and gives way
    // to a graticule when the first one fails (offline), without asking for more.
    const basemap = { url: options.previewBasemap || "", state: options.previewBasemap ? "probing" : "none", maxZoom: 19 };
    $("attribution").textContent = basemap.url ? (options.previewAttribution || "") : "";
    // The view centre (cx, cy) is kept in world units (0..1), so zooming keeps the spot under it.
    const state = { floor: M.floors[0], size: Math.min(...M.tileSizes), zoom: 0, cx: 0.5, cy: 0.5 };
    const cells = new Map(), baseTiles = new Map();

    function u(lon) { return (lon + 180) / 360; }
    function v(lat) { const p = Math.max(-MAXLAT, Math.min(MAXLAT, lat)) * Math.PI / 180;
      return (1 - Math.log(Math.tan(p) + 1 / Math.cos(p)) / Math.PI) / 2; }
    function lon(u) { return u * 360 - 180; }
    function lat(v) { return Math.atan(Math.sinh(Math.PI * (1 - 2 * v))) * 180 / Math.PI; }
    function scale() { return T * Math.pow(2, state.zoom); }
    // the screen position (CSS px from the window's top-left) of world point (wu, wv)
    function origin() { const n = scale(); return { x: Math.round(view.clientWidth / 2 - state.cx * n), y: Math.round(view.clientHeight / 2 - state.cy * n) }; }
    function screen(wu, wv) { const o = origin(), n = scale(); return { x: o.x + wu * n, y: o.y + wv * n }; }
    function project(latitude, longitude) { return screen(u(longitude), v(latitude)); }
    function unproject(x, y) { const o = origin(), n = scale(); return { lat: lat((y - o.y) / n), lon: lon((x - o.x) / n) }; }

    // the size whose tiles show at zoom z: a substitute (--retina-depth native) names a smaller one
    function served(z) {
      const s = (M.substitutes || []).find(s => s.floor === state.floor && s.tileSize === state.size && s.zoom === z);
      return s ? s.servedBy : state.size;
    }
    function levels() { return M.levels.filter(l => l.floor === state.floor && l.tileSize === served(l.zoom)); }
    function level() { return levels().find(l => l.zoom === state.zoom); }
    function zooms() { return levels().map(l => l.zoom).sort((a, b) => a - b); }
    // with a map to look at, one can zoom out beyond the tiles to see where they are
    function zoomLimits() { const zs = zooms(); return zs.length ? [Math.max(0, zs[0] - 4), zs[zs.length - 1]] : [0, 0]; }
    function hasTile(l, x, y) {
      let lo = 0, hi = l.rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1, r = l.rows[mid];
        if (r[0] < y || (r[0] === y && r[2] < x)) lo = mid + 1; else hi = mid;
      }
      const r = l.rows[lo];
      return !!r && r[0] === y && r[1] <= x && x <= r[2];
    }
    function path(x, y) {
      const values = { floor: state.floor, z: state.zoom, x: x, y: y, size: served(state.zoom) };
      return M.name.split("/").map(part => encodeURIComponent(part.replace(/\{(floor|z|x|y|size)\}/g, (_, k) => values[k]))).join("/");
    }
    // The footprint in world units: from the manifest's degrees, else from the tile range.
    function footprint() {
      const f = (M.footprints || []).find(f => f.floor === state.floor);
      if (f) return { u0: u(f.west), u1: u(f.east), v0: v(f.north), v1: v(f.south) };
      const l = levels()[0]; if (!l) return null;
      const n = Math.pow(2, l.zoom);
      return { u0: l.xRange[0] / n, u1: (l.xRange[1] + 1) / n, v0: l.yRange[0] / n, v1: (l.yRange[1] + 1) / n };
    }
    function fit() {
      const zs = zooms(), b = footprint();
      if (!zs.length || !b) { draw(); return; }
      const w = view.clientWidth - 40, h = view.clientHeight - $("bar").offsetHeight - 40;
      let best = zs[0];
      for (const z of zs) if ((b.u1 - b.u0) * T * Math.pow(2, z) <= w && (b.v1 - b.v0) * T * Math.pow(2, z) <= h) best = z;
      state.zoom = best;
      state.cx = (b.u0 + b.u1) / 2;
      // centre in the part of the window below the toolbar
      state.cy = (b.v0 + b.v1) / 2 - $("bar").offsetHeight / 2 / (T * Math.pow(2, best));
      draw();
    }
    // Steps to zoom z, keeping the world point under (px, py) (default: the centre) in place.
    function setZoom(z, px, py) {
      const [lo, hi] = zoomLimits();
      const next = Math.max(lo, Math.min(hi, z));
      const w = view.clientWidth, h = view.clientHeight;
      const dx = (px === undefined ? w / 2 : px) - w / 2, dy = (py === undefined ? h / 2 : py) - h / 2;
      const before = scale(), after = T * Math.pow(2, next);
      state.cx += dx / before - dx / after;
      state.cy += dy / before - dy / after;
      state.zoom = next;
      draw();
    }
    function cell(l, x, y) {
      const key = [state.floor, state.size, state.zoom, x, y].join("/");
      let div = cells.get(key);
      if (div) return div;
      div = document.createElement("div");
      div.className = "cell";
      const tile = hasTile(l, x, y);
      if (tile) {
        const img = document.createElement("img");
        img.alt = ""; img.draggable = false;
        img.onerror = () => div.classList.add("broken");
        img.src = path(x, y);
        div.appendChild(img);
      } else {
        div.classList.add("none");
      }
      const label = document.createElement("span");
      label.className = "label";
      label.textContent = state.zoom + "/" + x + "/" + y + (tile ? "" : " · no tile");
      div.appendChild(label);
      cells.set(key, div);
      return div;
    }
    function baseURL(z, x, y) {
      return basemap.url.replace(/\{z\}/g, z).replace(/\{x\}/g, x).replace(/\{y\}/g, y).replace(/\{s\}/g, "a").replace(/\{r\}/g, "");
    }
    function baseTile(z, x, y) {
      const key = z + "/" + x + "/" + y;
      let img = baseTiles.get(key);
      if (img) return img;
      img = document.createElement("img");
      img.alt = ""; img.draggable = false;
      img.dataset.z = z; img.dataset.x = x; img.dataset.y = y;
      img.onload = () => { if (basemap.state !== "ok") { basemap.state = "ok"; draw(); } };
      img.onerror = () => { if (basemap.state === "probing") { basemap.state = "failed"; draw(); } };
      img.src = baseURL(z, x, y);
      baseTiles.set(key, img);
      return img;
    }
    // Base tiles under the view: at zooms beyond the base map's, its deepest tiles scaled up.
    function drawBase() {
      const seen = new Set();
      if (basemap.state === "ok" || basemap.state === "probing") {
        const bz = Math.min(state.zoom, basemap.maxZoom), n = Math.pow(2, bz), size = T * Math.pow(2, state.zoom - bz);
        const o = origin(), w = view.clientWidth, h = view.clientHeight;
        let x0 = Math.floor(-o.x / size), x1 = Math.floor((w - o.x) / size);
        let y0 = Math.max(0, Math.floor(-o.y / size)), y1 = Math.min(n - 1, Math.floor((h - o.y) / size));
        // while probing, only the tile under the centre: offline, one request fails, not dozens
        if (basemap.state === "probing") {
          x0 = x1 = Math.floor((w / 2 - o.x) / size);
          y0 = y1 = Math.max(0, Math.min(n - 1, Math.floor((h / 2 - o.y) / size)));
        }
        for (let y = y0; y <= y1; y++) {
          for (let x = x0; x <= x1; x++) {
            const img = baseTile(bz, ((x % n) + n) % n, y);
            img.style.left = (o.x + x * size) + "px"; img.style.top = (o.y + y * size) + "px";
            img.style.width = img.style.height = size + "px";
            if (img.parentNode !== base) base.appendChild(img);
            seen.add(img);
          }
        }
      }
      for (const [key, img] of baseTiles) if (!seen.has(img)) { img.remove(); if (img.complete) baseTiles.delete(key); }
    }
    function svg(name, attrs, parent) {
      const e = document.createElementNS(SVG, name);
      for (const k in attrs) e.setAttribute(k, attrs[k]);
      parent.appendChild(e);
      return e;
    }
    // A step in degrees that puts a line every 80..200 px or so.
    function graticuleStep(degreesPerPixel) {
      const steps = [];
      for (let e = 1; e >= -7; e--) for (const m of [5, 2, 1]) steps.push(m * Math.pow(10, e));
      steps.unshift(30, 10);
      let step = steps[0];
      for (const s of steps) if (s / degreesPerPixel >= 80) step = s;
      return step;
    }
    function degrees(value, step, pos, neg) {
      const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
      return Math.abs(value).toFixed(decimals) + "°" + (value > 0 ? pos : value < 0 ? neg : "");
    }
    function drawGraticule(g) {
      const w = view.clientWidth, h = view.clientHeight, top = $("bar").offsetHeight;
      const nw = unproject(0, 0), se = unproject(w, h);
      const lonStep = graticuleStep((se.lon - nw.lon) / w);
      const latStep = graticuleStep(Math.max(1e-12, (nw.lat - se.lat) / h));
      for (let x = Math.ceil(Math.max(-180, nw.lon) / lonStep) * lonStep; x <= Math.min(180, se.lon); x += lonStep) {
        const p = project(0, x).x;
        svg("line", { x1: p, y1: 0, x2: p, y2: h }, g);
        svg("text", { x: p + 3, y: top + 14 }, g).textContent = degrees(x, lonStep, "E", "W");
      }
      for (let y = Math.ceil(Math.max(-MAXLAT, se.lat) / latStep) * latStep; y <= Math.min(MAXLAT, nw.lat); y += latStep) {
        const p = project(y, 0).y;
        svg("line", { x1: 0, y1: p, x2: w, y2: p }, g);
        // no label under the toolbar
        if (p - 3 > top + 16) svg("text", { x: 4, y: p - 3 }, g).textContent = degrees(y, latStep, "N", "S");
      }
    }
    function ring(points) { return points.map(p => { const s = project(p[0], p[1]); return s.x.toFixed(2) + "," + s.y.toFixed(2); }).join(" "); }
    function buildingOutline(b) {
      if (Array.isArray(b.outline)) return b.outline;
      // a campus manifest: each building's footprint per floor
      const f = Array.isArray(b.floors) ? b.floors.find(f => f.floor === state.floor) || {} : b.footprint || b;
      if ([f.south, f.west, f.north, f.east].every(Number.isFinite)) return [[f.north, f.west], [f.north, f.east], [f.south, f.east], [f.south, f.west]];
      return null;
    }
    function metres(m) { return m < 1 ? (m * 100).toFixed(1) + " cm" : m.toFixed(2) + " m"; }
    function drawMarks(g) {
      for (const [i, b] of (M.buildings || []).entries()) {
        const points = buildingOutline(b); if (!points || !points.length) continue;
        const name = b.name || b.id || "building " + (i + 1);
        svg("polygon", { class: "building", points: ring(points), "data-building": name }, g);
        const s = project(points[0][0], points[0][1]);
        svg("text", { class: "building-name", x: s.x + 4, y: s.y - 6 }, g).textContent = name;
      }
      const placed = M.placements || [];
      // other floors first, dashed, so that the current one is on top
      for (const p of [...placed].sort((a, b) => (a.floor === state.floor) - (b.floor === state.floor))) {
        if (!p.outline || !p.outline.length) continue;
        svg("polygon", { class: "outline" + (p.floor === state.floor ? "" : " other"), points: ring(p.outline), "data-floor": p.floor }, g);
      }
      for (const p of placed) {
        if (p.floor !== state.floor) continue;
        for (const [i, c] of (p.controlPoints || []).entries()) {
          const at = project(c.latitude, c.longitude), to = project(c.fittedLatitude, c.fittedLongitude);
          const group = svg("g", { class: "gcp", "data-index": i, "data-floor": p.floor, "data-latitude": c.latitude, "data-longitude": c.longitude }, g);
          // the residual arrow, drawn at least 12 px long so that its direction shows
          const dx = to.x - at.x, dy = to.y - at.y, len = Math.hypot(dx, dy);
          if (len > 0.5) {
            const k = Math.max(1, 12 / len), ex = at.x + dx * k, ey = at.y + dy * k, ux = dx / len, uy = dy / len;
            svg("line", { x1: at.x, y1: at.y, x2: ex, y2: ey }, group);
            svg("line", { x1: ex, y1: ey, x2: ex - 6 * ux + 4 * uy, y2: ey - 6 * uy - 4 * ux }, group);
            svg("line", { x1: ex, y1: ey, x2: ex - 6 * ux - 4 * uy, y2: ey - 6 * uy + 4 * ux }, group);
          }
          svg("circle", { cx: at.x, cy: at.y, r: 5 }, group);
          svg("text", { x: at.x + 8, y: at.y - 8 }, group).textContent =
            "#" + (i + 1) + " " + c.residualPixels.toFixed(2) + " px · " + metres(c.residualMeters);
        }
      }
    }
    function drawOverlay() {
      over.replaceChildren();
      if (basemap.state !== "ok") drawGraticule(svg("g", { class: "graticule", "data-kind": "graticule" }, over));
      if ($("marks").checked) drawMarks(svg("g", { class: "marks" }, over));
    }
    function draw() {
      const l = level();
      // no-tile cells are hatched, but not over a base map, where the map shows through them
      layer.className = $("grid").checked ? "grid" : basemap.state === "ok" ? "hidenone" : "";
      layer.style.opacity = $("opacity").value / 100;
      $("zoom").textContent = " z" + state.zoom + " ";
      drawBase();
      const seen = new Set();
      if (l) {
        const o = origin(), w = view.clientWidth, h = view.clientHeight;
        const x0 = Math.max(l.xRange[0], Math.floor(-o.x / T)), x1 = Math.min(l.xRange[1], Math.floor((w - o.x) / T));
        const y0 = Math.max(l.yRange[0], Math.floor(-o.y / T)), y1 = Math.min(l.yRange[1], Math.floor((h - o.y) / T));
        for (let y = y0; y <= y1; y++) {
          for (let x = x0; x <= x1; x++) {
            const div = cell(l, x, y);
            div.style.left = (o.x + x * T) + "px";
            div.style.top = (o.y + y * T) + "px";
            if (div.parentNode !== layer) layer.appendChild(div);
            seen.add(div);
          }
        }
      }
      for (const [key, div] of cells) if (!seen.has(div)) { div.remove(); cells.delete(key); }
      drawOverlay();
      const none = l ? (l.xRange[1] - l.xRange[0] + 1) * (l.yRange[1] - l.yRange[0] + 1) - l.tileCount : 0;
      const placed = (M.placements || []).find(p => p.floor === state.floor);
      const rms = placed && placed.rmsPixels !== undefined ? " · control points RMS " + placed.rmsPixels.toFixed(2) + " px (" + metres(placed.rmsMeters) + ")" : "";
      $("info").textContent = (!l ? "floor " + state.floor + ": no " + state.size + " px level at z" + state.zoom :
        "floor " + state.floor + " · " + state.size + " px tiles" + (state.size === 512 ? " at 256 CSS px (retina)" : "") +
        (served(state.zoom) !== state.size ? " served by the " + served(state.zoom) + " px tiles" : "") +
        " · z" + state.zoom + ": " + l.tileCount + " tiles, " + none + " without") + rms;
    }
    function selectSize(s) {
      state.size = s;
      for (const b of $("sizes").children) b.className = Number(b.textContent) === s ? "on" : "";
    }
    function readout(e) {
      const p = unproject(e.clientX, e.clientY);
      $("readout").textContent = p.lat.toFixed(6) + ", " + p.lon.toFixed(6);
    }
    function controls() {
      const floors = $("floor");
      for (const f of M.floors) { const o = document.createElement("option"); o.value = f; o.textContent = f; floors.appendChild(o); }
      floors.onchange = () => { state.floor = Number(floors.value); setZoom(state.zoom); };
      for (const s of M.tileSizes) {
        const b = document.createElement("button"); b.textContent = s;
        b.onclick = () => { selectSize(s); setZoom(state.zoom); };
        $("sizes").appendChild(b);
      }
      selectSize(state.size);
      $("in").onclick = () => setZoom(state.zoom + 1);
      $("out").onclick = () => setZoom(state.zoom - 1);
      $("grid").onchange = draw;
      $("marks").onchange = draw;
      $("opacity").oninput = draw;
      $("fit").onclick = fit;
      addEventListener("keydown", e => {
        if (e.key === "+" || e.key === "=") setZoom(state.zoom + 1);
        if (e.key === "-" || e.key === "_") setZoom(state.zoom - 1);
        if (e.key === "0") fit();
      });
      // Trackpads send many small wheel events: step one zoom per 100 units of travel.
      let wheel = 0;
      view.addEventListener("wheel", e => {
        e.preventDefault();
        wheel += e.deltaMode ? e.deltaY * 40 : e.deltaY;
        if (Math.abs(wheel) < 100) return;
        setZoom(state.zoom + (wheel < 0 ? 1 : -1), e.clientX, e.clientY);
        wheel = 0;
      }, { passive: false });
      let drag = null;
      view.addEventListener("pointerdown", e => { drag = { x: e.clientX, y: e.clientY }; view.classList.add("dragging");
        try { view.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic event has no live pointer */ } });
      view.addEventListener("pointermove", e => {
        readout(e);
        if (!drag) return;
        const n = scale();
        state.cx -= (e.clientX - drag.x) / n; state.cy -= (e.clientY - drag.y) / n;
        drag = { x: e.clientX, y: e.clientY }; draw();
      });
      const end = () => { drag = null; view.classList.remove("dragging"); };
      view.addEventListener("pointerup", end);
      view.addEventListener("pointercancel", end);
      view.addEventListener("dblclick", e => setZoom(state.zoom + (e.shiftKey ? -1 : 1), e.clientX, e.clientY));
      addEventListener("resize", draw);
    }
    controls();
    // #floor=2&size=512&z=5&grid=1 opens a particular view
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.has("floor") && M.floors.includes(Number(hash.get("floor")))) { state.floor = Number(hash.get("floor")); $("floor").value = state.floor; }
    if (hash.has("size") && M.tileSizes.includes(Number(hash.get("size")))) selectSize(Number(hash.get("size")));
    if (hash.has("grid")) $("grid").checked = hash.get("grid") === "1";
    if (hash.has("opacity")) $("opacity").value = Number(hash.get("opacity"));
    fit();
    if (hash.has("z")) setZoom(Number(hash.get("z")));
    // For tests and scripts: where a place is on the screen, and what is under a point.
    window.tilecutPreview = {
      project, unproject, basemap: () => basemap.state,
      view: () => ({ zoom: state.zoom, lat: lat(state.cy), lon: lon(state.cx), cx: state.cx, cy: state.cy, floor: state.floor }),
      setView(zoom, latitude, longitude) { state.zoom = zoom; state.cx = u(longitude); state.cy = v(latitude); draw(); },
    };
    </script>
    </body>
    </html>
    """#
}
