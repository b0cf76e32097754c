// Web Mercator as tilecut computes it (WebMercator.swift), and the graticule's steps
// and labels: one copy for preview.html and georef.html (each names it __MERCATOR_JS__).
const T = 256, MAXLAT = 85.0511287798066, ORIGIN_SHIFT = 20037508.342789244;
function mu(lon) { return (lon + 180) / 360; }
function mv(lat) { const phi = Math.min(Math.max(lat, -MAXLAT), MAXLAT) * Math.PI / 180;
  return (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2; }
function mlon(u) { return u * 360 - 180; }
function mlat(v) { return Math.atan(Math.sinh(Math.PI * (1 - 2 * v))) * 180 / Math.PI; }
function metresPerUnit(lat) { return 2 * ORIGIN_SHIFT * Math.cos(lat * Math.PI / 180); }
// A step in degrees that puts a line every 80..200 px or so.
function graticuleStep(degreesPerPixel) {
  const steps = [30, 10];
  for (let e = 1; e >= -7; e--) for (const m of [5, 2, 1]) steps.push(m * Math.pow(10, e));
  let step = steps[0];
  for (const s of steps) if (s / degreesPerPixel >= 80) step = s;
  return step;
}
// 12.5°E, 0°, 33.25°S: as many decimals as the step needs
function degreeLabel(value, step, pos, neg) {
  const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
  return Math.abs(value).toFixed(decimals) + "°" + (value > 0 ? pos : value < 0 ? neg : "");
}
