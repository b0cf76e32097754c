import TilecutCore

extension BuildJob {
  /// `--dry-run`: the buildings and floors (printed while placing), then each floor
  /// number's cells by size and zoom; nothing decoded, nothing written.
  func dryRun(_ plan: TileJobPlan, layers: [BuildLayer]) throws {
    let dry = DryRun(plan, output: base.output.output)
    let head = plan.floorGroups.map { group in
      let names = group.layers.map { layers[$0].building.id }
      return "floor \(group.floor): \(names.joined(separator: " + "))\(names.count > 1 ? " (composited in this order)" : "")"
    }
    dry.print(to: printer, head: head, total: "dry run: up to \(dry.cells) tiles → \(base.output.output) (nothing written)") { level in
      let (x, y) = (level.xRange, level.yRange)
      return "  floor \(level.floor) \(level.tileSize) px zoom \(level.zoom): x \(x[0])...\(x[1]), y \(y[0])...\(y[1]), up to \(level.cells) tiles"
    }
    if base.run.json { try Printer.result(json: dryRunReport(plan, layers: layers)) }
  }

  /// `build --dry-run --json`: a single run's dry-run document (each floor number's
  /// union footprint and cells), each placement with its building, and the buildings.
  func dryRunReport(_ plan: TileJobPlan, layers: [BuildLayer]) -> DryRunReport {
    let buildings = project.buildings.map { building in
      DryRunReport.BuildingReport(
        id: building.id, name: building.name,
        floors: layers.indices.filter { layers[$0].building.id == building.id }.map { plan.plans[$0].floor })
    }
    return DryRun(plan, output: base.output.output).report(
      footprints: plan.floorFootprints, building: layers.map(\.building.id), buildings: buildings)
  }
}
