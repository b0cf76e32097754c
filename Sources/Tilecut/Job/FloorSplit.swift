import TilecutCore

extension FloorResolver {
  /// How a one-page sheet was split into floors, for the log ("office.png: one page split
  /// into 3 floors of 6000 × 1000 px, top to bottom: floor 1 at the top"); nil when no
  /// page was split.
  static func splitDescription(_ floors: [FloorSource]) -> String? {
    guard floors.count > 1, let first = floors.first, let firstCrop = first.description.crop, let last = floors.last,
      let lastCrop = last.description.crop
    else { return nil }
    let vertical = firstCrop.x == lastCrop.x
    let order = vertical ? "top to bottom" : "left to right"
    let edge = vertical ? "at the top" : "on the left"
    return
      "\(first.input.path): one page split into \(floors.count) equal bands of \(firstCrop.width) × \(firstCrop.height) px, \(order) (--stack): floor \(first.floor) \(edge), floor \(last.floor) \(vertical ? "at the bottom" : "on the right")"
  }
}
