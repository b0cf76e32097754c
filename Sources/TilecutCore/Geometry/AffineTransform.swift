/// x' = a·x + b·y + c, y' = d·x + e·y + f.
public struct AffineTransform: Hashable, Sendable, Codable {
  public var a, b, c, d, e, f: Double

  public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
    self.a = a
    self.b = b
    self.c = c
    self.d = d
    self.e = e
    self.f = f
  }

  public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

  public static func scale(_ sx: Double, _ sy: Double) -> AffineTransform {
    AffineTransform(a: sx, b: 0, c: 0, d: 0, e: sy, f: 0)
  }

  public static func translation(_ tx: Double, _ ty: Double) -> AffineTransform {
    AffineTransform(a: 1, b: 0, c: tx, d: 0, e: 1, f: ty)
  }

  public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
    (a * x + b * y + c, d * x + e * y + f)
  }

  public var determinant: Double { a * e - b * d }

  /// `self` after `other`: first apply `other`, then `self`.
  public func concatenating(after other: AffineTransform) -> AffineTransform {
    AffineTransform(
      a: a * other.a + b * other.d, b: a * other.b + b * other.e, c: a * other.c + b * other.f + c,
      d: d * other.a + e * other.d, e: d * other.b + e * other.e, f: d * other.c + e * other.f + f)
  }

  public var inverse: AffineTransform? {
    let det = determinant
    guard det != 0, det.isFinite else { return nil }
    let ia = e / det
    let ib = -b / det
    let id = -d / det
    let ie = a / det
    return AffineTransform(a: ia, b: ib, c: -(ia * c + ib * f), d: id, e: ie, f: -(id * c + ie * f))
  }

  /// True when the map is a pure translation by whole numbers (no resampling needed).
  public var isIntegerTranslation: Bool {
    let tol = 1e-9
    return abs(a - 1) < tol && abs(e - 1) < tol && abs(b) < tol && abs(d) < tol
      && abs(c - c.rounded()) < 1e-6 && abs(f - f.rounded()) < 1e-6
  }

  /// The least-squares affine map taking each `from` point to its `to` point; nil
  /// with fewer than 3 points or when they lie on one line.
  public static func fit(from: [PixelPoint], to: [PixelPoint]) -> AffineTransform? {
    let n = min(from.count, to.count)
    guard n >= 3 else { return nil }
    let mx = from.prefix(n).map(\.x).reduce(0, +) / Double(n)
    let my = from.prefix(n).map(\.y).reduce(0, +) / Double(n)
    let mu = to.prefix(n).map(\.x).reduce(0, +) / Double(n)
    let mv = to.prefix(n).map(\.y).reduce(0, +) / Double(n)
    var (sxx, sxy, syy, sxu, syu, sxv, syv) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for k in 0..<n {
      let (x, y) = (from[k].x - mx, from[k].y - my)
      let (u, v) = (to[k].x - mu, to[k].y - mv)
      sxx += x * x
      sxy += x * y
      syy += y * y
      sxu += x * u
      syu += y * u
      sxv += x * v
      syv += y * v
    }
    let det = sxx * syy - sxy * sxy
    guard det.isFinite, det > 1e-9 * sxx * syy, det > 0 else { return nil }
    let a = (sxu * syy - syu * sxy) / det
    let b = (syu * sxx - sxu * sxy) / det
    let d = (sxv * syy - syv * sxy) / det
    let e = (syv * sxx - sxv * sxy) / det
    let t = AffineTransform(a: a, b: b, c: mu - a * mx - b * my, d: d, e: e, f: mv - d * mx - e * my)
    return [t.a, t.b, t.c, t.d, t.e, t.f].allSatisfy(\.isFinite) ? t : nil
  }
}
