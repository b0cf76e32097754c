import Foundation

/// `preview.html`: one self-contained page (no network, no external files but the
/// tiles themselves) that pans and zooms over an output, with a floor switcher, a
/// 256/512 switch, the tile grid with z/x/y labels, and no-tile cells marked.
public enum PreviewPage {
  public static func html(manifest: Manifest) -> String {
    let json = (try? manifest.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    // Inside <script>, "</" would end the element: escape it.
    let embedded = json.replacingOccurrences(of: "</", with: "<\\/")
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
    const view = document.getElementById("view"), layer = document.getElementById("layer");
    const state = { floor: M.floors[0], size: Math.min(...M.tileSizes), zoom: 0, cx: 0, cy: 0 };

    function levels() { return M.levels.filter(l => l.floor === state.floor && l.tileSize === state.size); }
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
      return M.name.replace(/\{floor\}/g, state.floor).replace(/\{z\}/g, state.zoom).replace(/\{x\}/g, x)
        .replace(/\{y\}/g, y).replace(/\{size\}/g, state.size);
    }
    // The view centre is kept in world units (0..1) so zooming keeps the spot under it.
    function fit() {
      const zs = zooms(); if (!zs.length) return;
      const w = view.clientWidth, h = view.clientHeight - 40;
      let best = zs[0];
      for (const z of zs) {
        const l = levels().find(v => v.zoom === z);
        if ((l.xRange[1] - l.xRange[0] + 1) * 256 <= w && (l.yRange[1] - l.yRange[0] + 1) * 256 <= h) best = z;
      }
      const l = levels().find(v => v.zoom === best), n = Math.pow(2, best);
      state.zoom = best;
      state.cx = (l.xRange[0] + l.xRange[1] + 1) / 2 / n;
      state.cy = (l.yRange[0] + l.yRange[1] + 1) / 2 / n;
      draw();
    }
    function setZoom(z) {
      const zs = zooms(); if (!zs.length) return;
      state.zoom = Math.max(zs[0], Math.min(zs[zs.length - 1], z));
      draw();
    }
    function draw() {
      const l = level();
      layer.innerHTML = "";
      layer.className = document.getElementById("grid").checked ? "grid" : "";
      document.getElementById("zoom").textContent = " z" + state.zoom + " ";
      if (!l) { document.getElementById("info").textContent = "no level at this zoom"; return; }
      const n = Math.pow(2, state.zoom), w = view.clientWidth, h = view.clientHeight;
      const ox = w / 2 - state.cx * n * 256, oy = h / 2 - state.cy * n * 256;
      const x0 = Math.max(l.xRange[0], Math.floor(-ox / 256)), x1 = Math.min(l.xRange[1], Math.floor((w - ox) / 256));
      const y0 = Math.max(l.yRange[0], Math.floor(-oy / 256)), y1 = Math.min(l.yRange[1], Math.floor((h - oy) / 256));
      const frag = document.createDocumentFragment();
      for (let y = y0; y <= y1; y++) {
        for (let x = x0; x <= x1; x++) {
          const cell = document.createElement("div");
          cell.className = "cell";
          cell.style.left = (ox + x * 256) + "px";
          cell.style.top = (oy + y * 256) + "px";
          if (hasTile(l, x, y)) {
            const img = document.createElement("img");
            img.src = path(x, y); img.alt = ""; img.draggable = false;
            cell.appendChild(img);
          } else {
            cell.classList.add("none");
          }
          const label = document.createElement("span");
          label.className = "label";
          label.textContent = state.zoom + "/" + x + "/" + y + (cell.classList.contains("none") ? " · no tile" : "");
          cell.appendChild(label);
          frag.appendChild(cell);
        }
      }
      layer.appendChild(frag);
      document.getElementById("info").textContent = "floor " + state.floor + " · " + state.size + " px tiles" +
        (state.size === 512 ? " (shown at 256 px: retina)" : "") + " · " + l.tileCount + " tiles, " +
        ((l.xRange[1] - l.xRange[0] + 1) * (l.yRange[1] - l.yRange[0] + 1) - l.tileCount) + " no-tile cells at z" + state.zoom;
    }
    function controls() {
      const floors = document.getElementById("floor");
      for (const f of M.floors) { const o = document.createElement("option"); o.value = f; o.textContent = f; floors.appendChild(o); }
      floors.onchange = () => { state.floor = Number(floors.value); draw(); };
      const sizes = document.getElementById("sizes");
      for (const s of M.tileSizes) {
        const b = document.createElement("button"); b.textContent = s; b.className = s === state.size ? "on" : "";
        b.onclick = () => { state.size = s; for (const c of sizes.children) c.className = c === b ? "on" : ""; setZoom(state.zoom); };
        sizes.appendChild(b);
      }
      document.getElementById("in").onclick = () => setZoom(state.zoom + 1);
      document.getElementById("out").onclick = () => setZoom(state.zoom - 1);
      document.getElementById("grid").onchange = draw;
      document.getElementById("fit").onclick = fit;
      addEventListener("keydown", e => { if (e.key === "+" || e.key === "=") setZoom(state.zoom + 1); if (e.key === "-") setZoom(state.zoom - 1); });
      view.addEventListener("wheel", e => { e.preventDefault(); setZoom(state.zoom + (e.deltaY < 0 ? 1 : -1)); }, { passive: false });
      let drag = null;
      view.addEventListener("pointerdown", e => { drag = { x: e.clientX, y: e.clientY }; view.classList.add("dragging"); view.setPointerCapture(e.pointerId); });
      view.addEventListener("pointermove", e => {
        if (!drag) return;
        const n = Math.pow(2, state.zoom) * 256;
        state.cx -= (e.clientX - drag.x) / n; state.cy -= (e.clientY - drag.y) / n;
        drag = { x: e.clientX, y: e.clientY }; draw();
      });
      view.addEventListener("pointerup", () => { drag = null; view.classList.remove("dragging"); });
      addEventListener("resize", draw);
    }
    controls();
    fit();
    // #floor=2&size=512&z=5&grid=1 opens a particular view
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.has("floor")) { state.floor = Number(h.get("floor")); document.getElementById("floor").value = state.floor; }
    if (h.has("size")) { state.size = Number(h.get("size")); for (const c of document.getElementById("sizes").children) c.className = Number(c.textContent) === state.size ? "on" : ""; }
    if (h.has("grid")) document.getElementById("grid").checked = h.get("grid") === "1";
    if (h.has("z")) setZoom(Number(h.get("z"))); else draw();
    </script>
    </body>
    </html>
    """#
}
