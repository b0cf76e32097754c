import Foundation

/// One floor of a building: one placed drawing (a file, a page of it, or a band of
/// a stacked sheet) with its own placement and pixel options.
public struct FloorSpec: Sendable, Equatable {
  /// The floor number, as names carry it (0 and negatives are basements).
  public var floor: Int
  /// The drawing, resolved against the project file's directory.
  public var source: String
  /// A page of a multi-page document (0-based, as `file.pdf[page=N]`).
  public var page: Int?
  /// A band of a one-page sheet of stacked floors.
  public var band: SheetBand?
  /// Placement and pixel options (`gcp`, `center`, `knockout`, …).
  public var options: [ProjectOption]
  public var mark: SourceMark
  /// Where `source` was written, for "no such file".
  public var sourceMark: SourceMark

  public init(
    floor: Int, source: String, page: Int? = nil, band: SheetBand? = nil, options: [ProjectOption], mark: SourceMark,
    sourceMark: SourceMark
  ) {
    self.floor = floor
    self.source = source
    self.page = page
    self.band = band
    self.options = options
    self.mark = mark
    self.sourceMark = sourceMark
  }

  public func option(_ key: String) -> ProjectOption? { options.first { $0.key == key } }
}

/// `band: {index: 2, count: 3, stack: vertical}`: the second of three equal bands of
/// the sheet, counted from the top (or from the left with `stack: horizontal`).
public struct SheetBand: Sendable, Equatable {
  /// 1-based.
  public var index: Int
  public var count: Int
  public var horizontal: Bool

  public init(index: Int, count: Int, horizontal: Bool) {
    self.index = index
    self.count = count
    self.horizontal = horizontal
  }
}
