import Foundation

/// The retina level at the deepest zoom: 512 px tiles made from 256 px detail doubled.
extension PyramidBuilder.Stage {

  /// Copies columns sx-1 ..< sx-1+blockWidth of a level row into a block row,
  /// repeating the edge pixel beyond the level's width.
  private static func copyBlockRow(_ row: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, sx: Int, blockWidth: Int, width: Int) {
    let first = min(max(sx - 1, 0), width - 1)
    let lead = min(first - (sx - 1), blockWidth)
    let span = max(min(sx - 1 + blockWidth, width) - first, 0)
    let copied = min(span, blockWidth - lead)
    (dst + 4 * lead).update(from: row + 4 * first, count: 4 * copied)
    for c in 0..<lead { (dst + 4 * c).update(from: row + 4 * first, count: 4) }
    let lastColumn = row + 4 * (first + max(copied, 1) - 1)
    for c in (lead + copied)..<blockWidth { (dst + 4 * c).update(from: lastColumn, count: 4) }
  }

  /// Finishes the blocks that waited for this strip: their last row is its first
  /// row when the strip follows on, else (the level's last strip) the edge row they have.
  func completePending(stripTop: Int?) {
    guard !pendingBlocks.isEmpty else { return }
    let blocks = pendingBlocks
    pendingBlocks = []
    let follows = stripTop != nil && stripTop == pendingRow
    pendingRow = nil
    let width = level.region.width
    for var p in blocks {
      let blockWidth = p.size / 2 + 2
      if follows {
        buffer.withUnsafeBufferPointer { buf in
          p.block.withUnsafeMutableBufferPointer { b in
            guard let base = buf.baseAddress, let o = b.baseAddress else { return }
            Self.copyBlockRow(base, into: o + (blockWidth - 1) * blockWidth * 4, sx: p.sx, blockWidth: blockWidth, width: width)
          }
        }
      }
      queueDerived(p.key, p.tile, size: p.size, block: p.block)
    }
  }

  /// Queues the tiles of the level above whose pixels are this strip's blocks
  /// doubled: each worker upsamples its own block, and blocks with no visible
  /// pixel are skipped before any work. A block whose bottom border lies in the
  /// next strip waits for it, so strips leave no seam.
  func cutDerived(_ up: DensityLevel, top: Int, height: Int) {
    let region = level.region
    let hasLast = lastRowTop == top - 1
    let moreBelow = top + height < region.maxY
    eachTile(up.cuts, top: top, height: height, scale: 2) { cut, key, tile in
      let size = cut.tileSize
      let half = size / 2
      let blockWidth = half + 2
      // the block's pixels in this level, with a one-pixel border, clamped
      let sx = tile.x * half - region.x
      let sy = tile.y * half - top
      let rowBytes = blockWidth * 4
      let block = [UInt8](unsafeUninitializedCapacity: blockWidth * rowBytes) { out, count in
        count = blockWidth * rowBytes
        guard let o = out.baseAddress else { return }
        buffer.withUnsafeBufferPointer { buf in
          lastRow.withUnsafeBufferPointer { last in
            guard let base = buf.baseAddress else { return }
            for r in 0..<blockWidth {
              let y = sy - 1 + r
              let rowPtr: UnsafePointer<UInt8>
              if y < 0 {
                rowPtr = hasLast ? (last.baseAddress ?? base) : base
              } else {
                rowPtr = base + min(y, height - 1) * stride
              }
              Self.copyBlockRow(rowPtr, into: o + r * rowBytes, sx: sx, blockWidth: blockWidth, width: region.width)
            }
          }
        }
      }
      if moreBelow && sy + half >= height {
        pendingBlocks.append(PendingBlock(key: key, tile: tile, size: size, sx: sx, block: block))
        pendingRow = top + height
      } else {
        queueDerived(key, tile, size: size, block: block)
      }
    }
  }

  /// Queues one derived tile from its finished block, unless no pixel of it is visible.
  private func queueDerived(_ key: LevelKey, _ tile: TileCoordinate, size: Int, block: [UInt8]) {
    let visible = block.withUnsafeBytes { raw in
      (0..<(raw.count / 4)).contains { raw[4 * $0 + 3] != 0 }
    }
    guard visible else {
      builder.ledger.blank(key)
      return
    }
    let rowBytes = (size / 2 + 2) * 4
    let background = builder.settings.background
    let nearest = builder.plan.resampling == .nearest
    enqueue(key, tile, holding: block.count, upsampled: true) {
      let pixels = [UInt8](unsafeUninitializedCapacity: size * size * 4) { p, count in
        count = size * size * 4
        block.withUnsafeBufferPointer { b in
          guard let bb = b.baseAddress, let pp = p.baseAddress else { return }
          if nearest {
            PixelOps.replicateTile(bb, blockStride: rowBytes, size: size, into: pp)
          } else {
            PixelOps.upsampleTile(bb, blockStride: rowBytes, size: size, into: pp)
          }
        }
      }
      let blank = pixels.withUnsafeBufferPointer { p in
        p.baseAddress.map { PixelOps.isBlank($0, stride: size * 4, width: size, height: size, background: background) } ?? true
      }
      return blank ? nil : pixels
    }
  }

}
