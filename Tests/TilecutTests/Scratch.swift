import TilecutFixtures

/// A scratch directory for one test.
func scratch(_ name: String = #function) throws -> String {
  try TestEnvironment.scratchDirectory("library", for: name)
}
