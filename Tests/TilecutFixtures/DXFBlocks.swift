/// DXF group pairs (code, value, code, value, …) of blocks `B1` … `B<levels>`, each
/// inserting the block below it ten times, `spacing` drawing units apart along x: with
/// a `B0` of one entity, `B<levels>` makes 10^levels of them once inlined. The caller
/// writes `B0` and the sections around them.
public func nestedBlockPairs(levels: Int, spacing: Double = 1) -> [String] {
  var pairs: [String] = []
  for level in 1...levels {
    pairs += ["0", "BLOCK", "8", "0", "2", "B\(level)", "70", "0", "10", "0", "20", "0", "3", "B\(level)"]
    for k in 0..<10 { pairs += ["0", "INSERT", "8", "0", "2", "B\(level - 1)", "10", "\(Double(k) * spacing)", "20", "\(level)"] }
    pairs += ["0", "ENDBLK", "8", "0"]
  }
  return pairs
}
