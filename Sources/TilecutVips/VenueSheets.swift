import Foundation
import Synchronization
import TilecutCore

/// The venues a run reads, by path, with how to draw them: each floor is drawn for the
/// scale a level asks for as an SVG document in a private folder of tilecut's own
/// (never beside the user's files), opened by the SVG renderer and removed at once.
public enum VenueSheets {
  /// An opened venue: its floors, style and language.
  public struct Entry: Sendable {
    public var venue: IMDFVenue
    public var floors: [IMDFFloor]
    public var style: IMDFStyle
    public var language: String?

    public init(venue: IMDFVenue, floors: [IMDFFloor], style: IMDFStyle, language: String?) {
      (self.venue, self.floors, self.style, self.language) = (venue, floors, style, language)
    }

    public func floor(_ ordinal: Int) -> IMDFFloor? { floors.first { $0.ordinal == ordinal } }
  }

  private static let entries = Mutex<[String: Entry]>([:])
  /// The longest line of a sheet librsvg reads: libxml2's XML_MAX_TEXT_LENGTH for one attribute.
  static let maxLine = 10_000_000
  private static let counter = Atomic<Int>(0)

  public static func register(_ entry: Entry) { entries.withLock { $0[entry.venue.path] = entry } }

  public static func entry(path: String) -> Entry? { entries.withLock { $0[path] } }

  /// The floor a source names (a venue's path and the floor's ordinal), when it is one.
  public static func floor(path: String, ordinal: Int?) -> IMDFFloor? {
    guard let ordinal else { return nil }
    return entry(path: path)?.floor(ordinal)
  }

  /// Writes the floor's drawing at `scale` to a new file in a private folder; the caller
  /// opens it and then calls `discard`.
  static func document(path: String, ordinal: Int, scale: Double) throws -> String {
    guard let entry = entry(path: path), let floor = entry.floor(ordinal) else {
      throw TilecutError.invalidInput(path: path, reason: "has no floor \(ordinal)")
    }
    let text = IMDFDrawing.svg(floor, scale: scale, style: entry.style, language: entry.language, venueLanguage: entry.venue.language)
    // librsvg reads the sheet through libxml2, which stops at 10,000,000 bytes in one
    // attribute: a longer line (the floor's units are one clip path) failed to render
    // with an XML parse error naming the sheet, not the venue
    let longest = text.utf8.split(separator: UInt8(ascii: "\n")).lazy.map(\.count).max() ?? 0
    if longest > Self.maxLine {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "floor L\(ordinal) draws \(DecodeBudget.megabytes(UInt64(longest))) of outlines in one SVG element, more than the 10 MB librsvg reads in one; simplify its units (fewer positions)"
      )
    }
    var template = Array((NSTemporaryDirectory() + "/tilecut-venue-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } }
    guard let folder = made else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be drawn: no private folder could be made in \(NSTemporaryDirectory())")
    }
    let file = folder + "/floor\(counter.add(1, ordering: .relaxed).newValue).svg"
    guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
      rmdir(folder)
      throw TilecutError.invalidInput(path: path, reason: "cannot be drawn: its sheet could not be written to \(folder)")
    }
    return file
  }

  /// Removes a drawing written by `document` and its folder.
  static func discard(_ file: String) {
    unlink(file)
    rmdir(URL(fileURLWithPath: file).deletingLastPathComponent().path)
  }
}

extension SourceHeader {
  /// The header of a venue's floor: its sheet, drawn as an SVG document.
  public static func venueFloor(path: String, width: Int, height: Int) -> SourceHeader {
    SourceHeader(path: path, width: width, height: height, pages: 1, isVector: true, format: .svg)
  }
}
