import Foundation
import TilecutCore
import TilecutProject
import TilecutVips

/// What `tilecut INPUT…` is asked to do: the sources and every option group.
///
/// Each group starts at the command line's defaults; set what you need:
///
/// ```swift
/// var request = TileRequest(inputs: ["plan.png"], output: "tiles")
/// request.pyramid.maxZoom = 20
/// request.placement.worldFile = "plan.pgw"
/// let result = try TileJob(request).run()
/// ```
///
/// New options arrive as new fields of the groups, so code that builds a request
/// keeps compiling.
public struct TileRequest: Sendable {
  /// Source images: one per floor, or one with ``FloorOptions/floors``.
  public var inputs: [String]
  /// Where the tiles go and what they are called.
  public var output: OutputOptions
  /// Which zooms and tile sizes to make.
  public var pyramid: PyramidOptions
  /// Floors: pages, stacked bands or one input per floor.
  public var floors: FloorOptions
  /// Where the image lies on the map.
  public var placement: PlacementOptions
  /// Pixel treatment and file encoding.
  public var encoding: EncodingOptions
  /// How the run behaves and reports.
  public var run: RunOptions

  /// A request for `inputs` with every option at its default, writing into `output`.
  public init(inputs: [String], output: String = "tiles") {
    self.inputs = inputs
    self.output = OutputOptions()
    self.output.output = output
    pyramid = PyramidOptions()
    floors = FloorOptions()
    placement = PlacementOptions()
    encoding = EncodingOptions()
    run = RunOptions()
  }

  /// Checks every option as the command line does.
  ///
  /// - Throws: a ``Failure`` with exit status 2 naming the option.
  public func validate() throws { try problems().throwFirst() }

  /// Every problem of every option group, in the order the command line checks them,
  /// then a missing input.
  public func problems() -> [OptionProblem] {
    var out = output.problems() + pyramid.problems() + floors.problems() + placement.pixels.problems() + placement.problems()
    out += encoding.problems() + run.problems()
    if inputs.isEmpty { out.append(OptionProblem("missing input: give an image to tile")) }
    return out
  }
}

/// What a finished run wrote.
public struct TileResult: Sendable {
  /// The output directory.
  public var output: String
  /// The output's manifest as it is on disk now (nil after a dry run, from the command
  /// line's runs, which do not read it back, and for a build with `{building}` in the
  /// name, whose buildings each have their own).
  public var manifest: Manifest?
  /// For a build with `{building}` in the name: each building's manifest by id.
  public var buildings: [String: Manifest]?
}

extension TileJob {
  /// A tiling run of `request`.
  public init(_ request: TileRequest) {
    self.init(
      inputs: request.inputs, output: request.output, pyramid: request.pyramid, floors: request.floors, placement: request.placement,
      encoding: request.encoding, run: request.run, printer: Printer(verbosity: .silent))
  }

  /// Places, plans, renders and publishes the tiles; an up-to-date output is left as it is.
  ///
  /// SIGINT and SIGTERM are caught while it runs: the run stops, its staging is
  /// removed and the previous output stays unchanged.
  ///
  /// - Parameter progress: receives every line the command would print on stderr
  ///   (placements, notes, warnings, the summary); nil: nothing is said.
  /// - Returns: the output and its manifest.
  /// - Throws: ``Failure`` (or `TilecutError`) naming the file or option at fault;
  ///   the previous output is then unchanged.
  @discardableResult
  public func run(progress: (@Sendable (String) -> Void)? = nil) throws -> TileResult {
    var job = self
    job.printer = progress.map { Printer(sink: $0) } ?? Printer(verbosity: .silent)
    do {
      try TileRequest.check(inputs: inputs, groups: (output, pyramid, floors, placement, encoding, run))
      try Vips.start()
      if run.noVector { Vips.blockUntrusted(true) }
      try JobPipeline(source: job).run()
    } catch let failure as Failure {
      throw failure
    } catch let error as TilecutError {
      throw error
    } catch {
      throw Failure(error)
    }
    return TileResult(output: output.output, manifest: run.dryRun ? nil : try loadManifest(output.output))
  }

  /// The command line's run: as ``run(progress:)``, with every line said through
  /// `printer` (held or shown as the command line wants) and the options taken as
  /// already checked.
  ///
  /// - Returns: the output; its manifest is not read back (nil).
  /// - Throws: the error as it happened (``Failure/init(_:)`` gives its line and
  ///   exit status); the previous output is then unchanged.
  @discardableResult
  public func run(printer: Printer) throws -> TileResult {
    var job = self
    job.printer = printer
    try Vips.start()
    if run.noVector { Vips.blockUntrusted(true) }
    try JobPipeline(source: job).run()
    return TileResult(output: output.output, manifest: nil)
  }
}

extension TileRequest {
  static func check(
    inputs: [String], groups: (OutputOptions, PyramidOptions, FloorOptions, PlacementOptions, EncodingOptions, RunOptions)
  ) throws {
    var request = TileRequest(inputs: inputs)
    (request.output, request.pyramid, request.floors, request.placement, request.encoding, request.run) = groups
    try request.validate()
  }
}

/// What `tilecut build FILE` is asked to do: the project file and the command line's overrides.
public struct BuildRequest: Sendable {
  /// The project file (`tilecut.yml`).
  public var file: String
  /// The command line's say over the file's options.
  public var overrides: BuildOverrides

  /// A build of the project in `file`.
  public init(file: String = ProjectLoader.defaultFileName, overrides: BuildOverrides = BuildOverrides()) {
    self.file = file
    self.overrides = overrides
  }
}

extension BuildJob {
  /// Loads the project file, places and plans every building's floors, renders one
  /// pyramid per floor number and publishes it.
  ///
  /// - Parameters:
  ///   - request: the project file and overrides.
  ///   - progress: receives every line the command would print on stderr; nil: nothing is said.
  /// - Returns: the output and its manifest.
  /// - Throws: ``Failure``: status 2 for a mistake in the project file (its line and
  ///   column in the message), 1 for a source that cannot be read or tiled.
  @discardableResult
  public static func run(_ request: BuildRequest, progress: (@Sendable (String) -> Void)? = nil) throws -> TileResult {
    let printer = progress.map { Printer(sink: $0) } ?? Printer(verbosity: .silent)
    let job: BuildJob
    do {
      job = try prepare(request, printer: printer)
      try JobPipeline(source: job).run()
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(error)
    }
    let output = job.base.output.output
    if job.base.run.dryRun { return TileResult(output: output, manifest: nil) }
    if let split = try BuildingSplit(job) {
      var manifests: [String: Manifest] = [:]
      for one in split.jobs { manifests[one.project.buildings[0].id] = try loadManifest(one.base.output.output) }
      return TileResult(output: output, manifest: nil, buildings: manifests)
    }
    return TileResult(output: output, manifest: try loadManifest(output))
  }

  /// The command line's run of a prepared build: as ``run(_:progress:)``, with every
  /// line said through the printer ``prepare(_:printer:)`` was given.
  ///
  /// - Returns: the output; no manifest is read back (nil).
  /// - Throws: the error as it happened (``Failure/init(_:)`` gives its line and
  ///   exit status); every previous output is then unchanged.
  @discardableResult
  public func run() throws -> TileResult {
    try JobPipeline(source: self).run()
    return TileResult(output: base.output.output, manifest: nil)
  }

  /// The job `tilecut build` runs: the project loaded, libvips started and the floors
  /// resolved, its lines to be said through `printer`. Run it with ``run()``.
  ///
  /// - Throws: a mistake in the project file, with its place (as ``run(_:progress:)``
  ///   says it, before the ``Failure`` it becomes).
  public static func prepare(_ request: BuildRequest, printer: Printer) throws -> BuildJob {
    let project = try ProjectLoader.load(path: request.file)
    try Vips.start()
    if case .bool(true) = project.option("noVector")?.value { Vips.blockUntrusted(true) }
    return try BuildJob.make(project, overrides: request.overrides, printer: printer)
  }
}
