import TilecutCore

extension BuildJob {
  /// `--dry-run`: the buildings and floors (printed while placing), then each floor
  /// number's cells by size and zoom; nothing decoded, nothing written.
  func dryRun(_ plan: TileJobPlan, layers: [BuildLayer]) throws {
    let cells = Self.cells(plan.plans)
    var total = 0
    for group in Self.floorGroups(plan.plans) {
      let names = group.layers.map { layers[$0].building.id }
      printer.info("floor \(group.floor): \(names.joined(separator: " + "))\(names.count > 1 ? " (composited in this order)" : "")")
    }
    for key in cells.keys.sorted() {
      guard let r = cells[key] else { continue }
      total += r.count
      printer.info(
        "  floor \(key.floor) \(key.tileSize) px zoom \(key.zoom): x \(r.xRange.lowerBound)...\(r.xRange.upperBound), y \(r.yRange.lowerBound)...\(r.yRange.upperBound), up to \(r.count) tiles"
      )
    }
    printer.info("dry run: up to \(total) tiles → \(base.output.output) (nothing written)")
    if base.run.json { try Printer.result(json: dryRunReport(plan, layers: layers)) }
  }

  /// `build --dry-run --json`: a single run's dry-run document (each floor number's
  /// union footprint and cells), each placement with its building, and the buildings.
  func dryRunReport(_ plan: TileJobPlan, layers: [BuildLayer]) -> DryRunReport {
    let cells = Self.cells(plan.plans)
    let levels = cells.keys.sorted().map { LevelReport(key: $0, range: cells[$0]) }
    let footprints = Self.floorGroups(plan.plans).compactMap { group -> Manifest.Footprint? in
      let rects = group.layers.map { plan.plans[$0].footprint }
      guard let first = rects.first else { return nil }
      return Manifest.Footprint(floor: group.floor, rect: rects.dropFirst().reduce(first) { $0.union($1) })
    }
    let placements = plan.plans.indices.map { i in
      var report = PlacementReport(plan.plans[i])
      report.building = layers[i].building.id
      return report
    }
    let buildings = project.buildings.map { building in
      DryRunReport.BuildingReport(
        id: building.id, name: building.name,
        floors: layers.indices.filter { layers[$0].building.id == building.id }.map { plan.plans[$0].floor })
    }
    return DryRunReport(
      exact: false, output: base.output.output, cells: cells.values.reduce(0) { $0 + $1.count }, footprints: footprints, placements: placements,
      levels: levels, plan: plan.job, buildings: buildings)
  }
}
