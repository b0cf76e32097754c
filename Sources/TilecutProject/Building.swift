import Foundation

/// One building of a campus: an id for names and clients, and its floors.
public struct Building: Sendable, Equatable {
  /// `[a-z0-9_-]+`, unique in the project.
  public var id: String
  /// For clients (a picker's label); optional.
  public var name: String?
  public var floors: [FloorSpec]
  public var mark: SourceMark

  public init(id: String, name: String? = nil, floors: [FloorSpec], mark: SourceMark) {
    self.id = id
    self.name = name
    self.floors = floors
    self.mark = mark
  }
}
