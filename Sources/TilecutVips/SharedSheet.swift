import Synchronization
import TilecutCore

/// One top-to-bottom reader for a sheet whose floors are stacked as bands
/// (`--floors N` on a one-page image): the first direct level of each floor
/// continues reading where the band above it ended, so the sheet is opened and
/// decoded once. Floors must then be built one after the other, in band order.
///
/// A level that would need rows the reader has passed (a second direct level of
/// the same floor, or a band above the last one read) opens the file again, as
/// every level did before: correct, but it decodes the rows above its band again.
public final class SharedSheet: Sendable {
  public let path: String
  private let state = Mutex<State>(State())

  /// The reader, the floors that used it, and the last row it gave.
  struct State {
    var image: VipsImageHandle?
    var claimed: Set<Floor> = []
    var bottom = 0
    var opens = 0
  }

  public init(path: String) { self.path = path }

  /// How many times the sheet's loader was opened for the shared reader (at most once).
  public var opens: Int { state.withLock { $0.opens } }

  /// Floors that read their band from the shared reader.
  public var sharedFloors: Set<Floor> { state.withLock { $0.claimed } }

  /// The sheet's sequential image for `floor`'s band, or nil when the band cannot
  /// continue the shared read (this floor already had its turn, or the band starts
  /// above rows already read).
  func claim(floor: Floor, band: PixelRect) throws -> VipsImageHandle? {
    try state.withLock { s in
      guard !s.claimed.contains(floor), band.y >= s.bottom else { return nil }
      if s.image == nil {
        s.image = try SourceImage.open(path: path, page: nil, sequential: true)
        s.opens += 1
      }
      s.claimed.insert(floor)
      s.bottom = band.maxY
      return s.image
    }
  }

  /// The floors of a job grouped for rendering: each group is built in order, groups
  /// side by side. Floors cut from one page as bands stacked top to bottom form one
  /// group in band order, with a `SharedSheet`; every other floor is a group of its own.
  public static func groups(of sources: [SourceDescription]) -> [(floors: [Int], sheet: SharedSheet?)] {
    var byPath: [String: [Int]] = [:]
    var order: [String] = []
    var out: [(floors: [Int], sheet: SharedSheet?)] = []
    for (i, s) in sources.enumerated() {
      guard let crop = s.crop, !s.isVector, s.page == nil, crop.x == 0 else {
        out.append(([i], nil))
        continue
      }
      if byPath[s.path] == nil { order.append(s.path) }
      byPath[s.path, default: []].append(i)
    }
    for path in order {
      let floors = (byPath[path] ?? []).sorted { (sources[$0].crop?.y ?? 0) < (sources[$1].crop?.y ?? 0) }
      let tops = floors.map { sources[$0].crop?.y ?? 0 }
      // bands side by side (the same rows) gain nothing from one reader
      if floors.count > 1 && Set(tops).count == floors.count {
        out.append((floors, SharedSheet(path: path)))
      } else {
        out.append(contentsOf: floors.map { ([$0], nil) })
      }
    }
    return out
  }
}
