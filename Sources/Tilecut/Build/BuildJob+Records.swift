import Foundation
import TilecutCore
import TilecutProject
import TilecutVips

extension BuildJob {
  /// What shapes the pixels: the run's options, and each layer's source and placement
  /// under `<building> floor <n>`, in the file's order.
  func shapingOptions(_ plan: TileJobPlan, layers: [BuildLayer]) -> [String: String] {
    var options = base.shapingOptions(plan).filter { !$0.key.hasPrefix("floor ") }
    for (i, layer) in layers.enumerated() {
      var one = plan
      one.floors = [plan.floors[i]]
      let key = "floor \(plan.plans[i].floor)"
      var text = base.shapingOptions(one)[key] ?? ""
      if let k = layer.settings.knockout { text += " knockout=\(k)" }
      if let b = layer.settings.background { text += " background=\(b)" }
      options["\(layer.building.id) \(key)"] = text
    }
    options["buildings"] = project.buildings.map(\.id).joined(separator: ",")
    return options
  }

  func makeManifest(
    _ plan: TileJobPlan, layers: [BuildLayer], ledger: RenderLedger, sources: [Manifest.Source], pixels: [PixelBlocks?],
    options: [String: String], fingerprint: String, jobFingerprint: String
  ) -> Manifest {
    var manifest = plan.manifest(
      ledger: ledger, sources: base.recorded(sources), options: options, fingerprint: fingerprint, jobFingerprint: jobFingerprint)
    manifest.buildings = project.buildings.map { building in
      let floors = layers.indices.filter { layers[$0].building.id == building.id }.map { i in
        Manifest.BuildingFloor(
          footprint: Manifest.Footprint(floor: plan.plans[i].floor, rect: plan.plans[i].footprint),
          source: base.pathAnchor.relative(layers[i].source.input.path),
          page: layers[i].source.input.page, sha256: sources[i].sha256, pixels: pixels[i])
      }
      return Manifest.Building(id: building.id, name: building.name, floors: floors)
    }
    return manifest
  }

  /// `--depfile` and `--changes`: as for a single run, with the project file, every
  /// layer's source (the file a `[floor=K]` source names), the files its placement and
  /// `venueStyle` name (and the sidecars the placements read) as the inputs they must not be.
  func checkOptionPaths(sidecars: [String]) throws {
    var read = [project.file]
    for layer in project.buildings.flatMap(\.floors) {
      read += [Self.inputName(layer).path] + ((try? placementOptions(layer))?.namedFiles ?? []) + styleFiles(layer)
    }
    try base.checkOptionPaths(reading: read + sidecars)
  }

  /// The `venueStyle` file a floor names, if any.
  func styleFiles(_ layer: FloorSpec) -> [String] {
    (try? Self.venueKeys(layer, in: project))?.namedFiles ?? []
  }

  /// `--depfile`'s dependencies: the project file, every source and every sidecar the
  /// placements read (`DependencyFile.text` refuses a name make cannot express), named
  /// relative to the project file's folder, as the file names them: the rule is the
  /// same from wherever tilecut runs, for a make that runs in that folder.
  func dependencies(_ plan: TileJobPlan) -> [String] {
    readFiles(plan).map(base.recorded)
  }

  /// The files a build reads, as the working directory names them.
  func readFiles(_ plan: TileJobPlan) -> [String] {
    var dependencies = [project.file]
    for (i, layer) in project.buildings.flatMap(\.floors).enumerated() {
      let placement = (try? placementOptions(layer)) ?? PlacementOptions()
      let sidecars = i < plan.floors.count ? plan.floors[i].filesRead : []
      for d in DependencyFile.dependencies(inputs: [Self.inputName(layer).path], placement: placement, sidecars: sidecars + styleFiles(layer))
      where !dependencies.contains(d) {
        dependencies.append(d)
      }
    }
    return dependencies
  }
}
