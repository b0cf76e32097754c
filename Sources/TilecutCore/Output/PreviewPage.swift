import Foundation

/// `preview.html`: one self-contained page (no network, no external files but the
/// tiles themselves) that pans and zooms over an output, with a floor switcher, a
/// 256/512 switch, the tile grid with z/x/y labels, and no-tile cells marked.
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
      #layer { position: absolute; left: 0; top: 0; }
      .cell { position: absolute; width: 256px; height: 256px; box-sizing: border-box; }
      .cell img { width: 256px; height: 256px; display: block; image-rendering: auto; }
      .none { background: repeating-linear-gradient(45deg, rgba(200,60,60,.10) 0 6px, transparent 6px 14px); }
      .grid .cell { outline: 1px solid rgba(200,40,40,.55); outline-offset: -1px; }
      .grid .none { background: repeating-linear-gradient(45deg, rgba(200,60,60,.28) 0 6px, rgba(255,255,255,.3) 6px 14px); }
      .label { display: none; position: absolute; left: 4px; top: 3px; font: 11px/1.2 ui-monospace, monospace; color: #900;
               background: rgba(255,255,255,.8); padding: 1px 3px; pointer-events: none; }
      .grid .label { display: block; }
      .broken { background: rgba(255,170,0,.25); }
      #info { margin-left: auto; color: #555; }
    </style>
    </head>
    <body>
    <div id="view"><div id="layer"></div></div>
    <div id="bar">
      <strong>tilecut</strong>
      <label>floor <select id="floor"></select></label>
      <span id="sizes"></span>
      <button id="out" title="zoom out (-)">−</button><span id="zoom"></span><button id="in" title="zoom in (+)">+</button>
      <label><input type="checkbox" id="grid"> grid &amp; z/x/y</label>
      <button id="fit">fit</button>
      <span id="info"></span>
    </div>
    <script id="manifest" type="application/json">__MANIFEST__</script>
    <script>
    "use strict";
    const M = JSON.parse(document.getElementById("manifest").textContent);
    const $ = id => document.getElementById(id);
    const view = $("view"), layer = $("layer"), T = 256;
    // The view centre (cx, cy) is kept in world units (0..1), so zooming keeps the spot under it.
    const state = { floor: M.floors[0], size: Math.min(...M.tileSizes), zoom: 0, cx: 0.5, cy: 0.5 };
    const cells = new Map();

    // the size whose tiles show at zoom z: a substitute (--retina-depth native) names a smaller one
    function served(z) {
      const s = (M.substitutes || []).find(s => s.floor === state.floor && s.tileSize === state.size && s.zoom === z);
      return s ? s.servedBy : state.size;
    }
    function levels() { return M.levels.filter(l => l.floor === state.floor && l.tileSize === served(l.zoom)); }
    function level() { return levels().find(l => l.zoom === state.zoom); }
    function zooms() { return levels().map(l => l.zoom).sort((a, b) => a - b); }
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
      if (f) {
        const v = lat => { const p = Math.max(-85.0511287798066, Math.min(85.0511287798066, lat)) * Math.PI / 180;
          return (1 - Math.log(Math.tan(p) + 1 / Math.cos(p)) / Math.PI) / 2; };
        return { u0: (f.west + 180) / 360, u1: (f.east + 180) / 360, v0: v(f.north), v1: v(f.south) };
      }
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
      const zs = zooms(); if (!zs.length) { draw(); return; }
      const next = Math.max(zs[0], Math.min(zs[zs.length - 1], z));
      const w = view.clientWidth, h = view.clientHeight;
      const dx = (px === undefined ? w / 2 : px) - w / 2, dy = (py === undefined ? h / 2 : py) - h / 2;
      const before = T * Math.pow(2, state.zoom), after = T * Math.pow(2, next);
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
    function draw() {
      const l = level();
      layer.className = $("grid").checked ? "grid" : "";
      $("zoom").textContent = " z" + state.zoom + " ";
      const seen = new Set();
      if (l) {
        const n = Math.pow(2, state.zoom), w = view.clientWidth, h = view.clientHeight;
        const ox = Math.round(w / 2 - state.cx * n * T), oy = Math.round(h / 2 - state.cy * n * T);
        const x0 = Math.max(l.xRange[0], Math.floor(-ox / T)), x1 = Math.min(l.xRange[1], Math.floor((w - ox) / T));
        const y0 = Math.max(l.yRange[0], Math.floor(-oy / T)), y1 = Math.min(l.yRange[1], Math.floor((h - oy) / T));
        for (let y = y0; y <= y1; y++) {
          for (let x = x0; x <= x1; x++) {
            const div = cell(l, x, y);
            div.style.left = (ox + x * T) + "px";
            div.style.top = (oy + y * T) + "px";
            if (div.parentNode !== layer) layer.appendChild(div);
            seen.add(div);
          }
        }
      }
      for (const [key, div] of cells) if (!seen.has(div)) { div.remove(); cells.delete(key); }
      const none = l ? (l.xRange[1] - l.xRange[0] + 1) * (l.yRange[1] - l.yRange[0] + 1) - l.tileCount : 0;
      $("info").textContent = !l ? "floor " + state.floor + ": no " + state.size + " px level at z" + state.zoom :
        "floor " + state.floor + " · " + state.size + " px tiles" + (state.size === 512 ? " at 256 CSS px (retina)" : "") +
        (served(state.zoom) !== state.size ? " served by the " + served(state.zoom) + " px tiles" : "") +
        " · z" + state.zoom + ": " + l.tileCount + " tiles, " + none + " without";
    }
    function selectSize(s) {
      state.size = s;
      for (const b of $("sizes").children) b.className = Number(b.textContent) === s ? "on" : "";
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
        if (!drag) return;
        const n = Math.pow(2, state.zoom) * T;
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
    fit();
    if (hash.has("z")) setZoom(Number(hash.get("z")));
    </script>
    </body>
    </html>
    """#
}
