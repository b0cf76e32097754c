import CTilecutGDAL
import Foundation
import Testing

/// tilecut's own scans of a DXF, called as the drawing calls them: the values GDAL's raw
/// code values gave, read by the scan instead (GDAL lists them in time that grows with
/// their square); whether GDAL must still be asked for them; the scans stopped once the
/// pre-scan refuses the file (issue 40, item 5).
@Suite("DXF scans beside GDAL")
struct DXFScanTests {
  /// `pairs` written to a new DXF; its path.
  func write(_ pairs: [String]) throws -> String {
    let path = NSTemporaryDirectory() + "tilecut-dxf-scan-\(UUID().uuidString.prefix(8)).dxf"
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// A drawing of `lines` LINEs and an LWPOLYLINE with handle A9 whose three vertices
  /// have widths; a block holding `block` first, when given, and `insert` before the lines.
  func drawing(lines: Int, block: [String] = [], insert: [String] = []) -> [String] {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC"]
    if !block.isEmpty {
      pairs += ["0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "2", "NOTE", "70", "0", "10", "0", "20", "0"] + block
      pairs += ["0", "ENDBLK", "0", "ENDSEC"]
    }
    pairs += ["0", "SECTION", "2", "ENTITIES"] + insert
    for k in 0..<lines { pairs += ["0", "LINE", "8", "0", "10", "\(k)", "20", "0", "11", "\(k)", "21", "1"] }
    pairs += ["0", "LWPOLYLINE", "5", "A9", "100", "AcDbEntity", "8", "0", "100", "AcDbPolyline", "90", "3", "70", "0"]
    pairs += ["10", "0", "20", "0", "40", "0.5", "41", "1.5", "10", "5", "20", "0", "40", "1.5", "41", "0.25", "10", "5", "20", "5"]
    return pairs + ["0", "ENDSEC", "0", "EOF"]
  }

  /// The pre-scan of `path`: whether GDAL's raw code values are needed, the refusal, and
  /// how often it said a bound was crossed.
  func preScan(_ path: String, maxText: Int = 100_000) -> (needsRaw: Int32, refusal: String, crossed: Int) {
    var refusal = [CChar](repeating: 0, count: 300)
    var needsRaw: Int32 = -1
    var crossed = 0
    withUnsafeMutablePointer(to: &crossed) { counter in
      _ = tc_dxf_inlined_entities(
        path, 1 << 28, maxText, &refusal, refusal.count, &needsRaw, { $0?.assumingMemoryBound(to: Int.self).pointee += 1 },
        counter)
    }
    let text = String(decoding: refusal.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (needsRaw, text, crossed)
  }

  /// One insert of nested blocks making 10^6 lines: past what GDAL holds of one insert
  /// within 256 MB (the default budget's half), refused by the pre-scan; within 1 GB, not.
  @Test("one insert of nested blocks is refused by what GDAL holds of it at once, as the budget says")
  func nestedInsertAtOnce() throws {
    var pairs = ["0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "8", "0", "2", "B0", "70", "0", "10", "0", "20", "0", "3", "B0"]
    pairs += ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "1", "21", "1", "0", "ENDBLK", "8", "0"]
    for level in 1...6 {
      pairs += ["0", "BLOCK", "8", "0", "2", "B\(level)", "70", "0", "10", "0", "20", "0", "3", "B\(level)"]
      for k in 0..<10 { pairs += ["0", "INSERT", "8", "0", "2", "B\(level - 1)", "10", "\(k)", "20", "\(level)"] }
      pairs += ["0", "ENDBLK", "8", "0"]
    }
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "INSERT", "8", "0", "2", "B6", "10", "0", "20", "0"]
    // the same lines as 10^4 inserts of B2 (100 each), in place of the one of B6: GDAL
    // gives each insert's in turn
    let spreadPairs = pairs.dropLast(10) + (0..<10_000).flatMap { ["0", "INSERT", "8", "0", "2", "B2", "10", "\($0)", "20", "0"] }
    let path = NSTemporaryDirectory() + "nested-\(getpid()).dxf"
    defer { unlink(path) }
    func scan(_ pairs: [String], maxBytes: Int) throws -> (made: Double, refusal: String) {
      try Data((pairs + ["0", "ENDSEC", "0", "EOF"]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
      var refusal = [CChar](repeating: 0, count: 300)
      let made = tc_dxf_inlined_entities(path, maxBytes, 100_000, &refusal, refusal.count, nil, nil, nil)
      return (made, String(decoding: refusal.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    let tight = try scan(pairs, maxBytes: 1 << 28)
    #expect(tight.made == 1_000_000 && tight.refusal.contains("makes 1000000 entities, which GDAL holds"), "\(tight)")
    let roomy = try scan(pairs, maxBytes: 1 << 30)
    #expect(roomy.made == 1_000_000 && roomy.refusal.isEmpty, "\(roomy)")
    let spread = try scan(Array(spreadPairs), maxBytes: 1 << 28)
    #expect(spread.made == 1_000_000 && spread.refusal.isEmpty, "\(spread)")
    // a block of 400,000 lines and an insert, inserted once: GDAL keeps the first 10,000
    // features of a block (DXF_FEATURE_LIMIT_PER_BLOCK) and makes only those
    var whole = ["0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "8", "0", "2", "WHOLE", "70", "0", "10", "0", "20", "0", "3", "WHOLE"]
    for k in 0..<400_000 { whole += ["0", "LINE", "8", "0", "10", "\(k)", "20", "0", "11", "\(k)", "21", "1"] }
    whole += ["0", "INSERT", "8", "0", "2", "B6", "10", "0", "20", "0", "0", "ENDBLK", "8", "0"]
    whole += Array(pairs.dropFirst(4).dropLast(10)) + ["0", "INSERT", "8", "0", "2", "WHOLE", "10", "0", "20", "0"]
    let capped = try scan(whole, maxBytes: 1 << 28)
    #expect(capped.made == 10_000 && capped.refusal.isEmpty, "\(capped)")
  }

  /// tc_dxf_wipeouts of `path`, told to stop (`stop`) or not: its status, and the codes
  /// and values it read of the entity with handle A9 (or, `inlined` given, of the feature
  /// of that kind and place that the insert with handle B0 inlines).
  func scan(_ path: String, stop: Bool, inlined: (kind: Int32, index: UInt32)? = nil) -> (
    status: Int32, codes: [Int32], values: [Double]
  ) {
    var read = tc_dxf_scan()
    let stopped: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = stop ? { _ in 1 } : { _ in 0 }
    let status = tc_dxf_wipeouts(path, &read, stopped, nil)
    var codes: [Int32] = []
    var values: [Double] = []
    let found = inlined.map { tc_raw_codes_find_inlined(&read.raw, "B0", $0.kind, $0.index) } ?? tc_raw_codes_find(&read.raw, "A9")
    if status == 0, let entry = found {
      for i in 0..<Int(entry.pointee.count) {
        codes.append(read.raw.codes[entry.pointee.first + i])
        values.append(read.raw.values[entry.pointee.first + i])
      }
    }
    tc_dxf_scan_free(&read)
    return (status, codes, values)
  }

  @Test("a model-space polyline's widths are read by the scan, and GDAL is not asked for them")
  func widthsFromTheScan() throws {
    let path = try write(drawing(lines: 10))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let found = scan(path, stop: false)
    #expect(found.status == 0)
    #expect(found.codes == [40, 41, 40, 41])
    #expect(found.values == [0.5, 1.5, 1.5, 0.25])
    #expect(preScan(path).needsRaw == 0)
  }

  @Test(
    "a value the scan does not give, in a block, still has GDAL asked for its raw code values",
    arguments: [
      // an MTEXT's reference width, a TEXT's generation flags, a polyline's constant width
      ["0", "MTEXT", "8", "0", "10", "0", "20", "0", "40", "1", "41", "20", "1", "Note"],
      ["0", "TEXT", "8", "0", "10", "0", "20", "0", "40", "1", "1", "Note", "71", "2"],
      ["0", "LWPOLYLINE", "8", "0", "90", "2", "70", "0", "43", "0.5", "10", "0", "20", "0", "10", "1", "20", "0"],
    ])
  func rawInBlocks(block: [String]) throws {
    let path = try write(drawing(lines: 1, block: block))
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(preScan(path).needsRaw == 1)
    // the same without the value: a block of lines and plain texts needs none
    let plain = try write(drawing(lines: 1, block: ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "1", "21", "1"]))
    defer { try? FileManager.default.removeItem(atPath: plain) }
    #expect(preScan(plain).needsRaw == 0)
  }

  @Test("a block's values are found by their kind and place among their insert's features, and GDAL is not asked for them")
  func valuesInBlocks() throws {
    func mtext(_ width: String) -> [String] {
      ["0", "MTEXT", "100", "AcDbEntity", "8", "0", "100", "AcDbMText", "10", "0", "20", "0", "40", "1", "41", width, "1", "Note"]
    }
    // two MTEXTs of reference widths about a polyline of constant width, with their
    // subclass markers, as GDAL gives their features (SubClasses)
    var block = mtext("20") + ["0", "LWPOLYLINE", "100", "AcDbEntity", "8", "0", "100", "AcDbPolyline", "90", "2", "70", "0"]
    block += ["43", "0.5", "10", "0", "20", "0", "10", "1", "20", "0"] + mtext("30")
    let insert = ["0", "INSERT", "5", "B0", "8", "0", "2", "NOTE", "10", "0", "20", "0"]
    let path = try write(drawing(lines: 1, block: block, insert: insert))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = scan(path, stop: false, inlined: (kind: 2, index: 0))
    #expect(first.status == 0)
    #expect(first.codes == [41] && first.values == [20])
    let second = scan(path, stop: false, inlined: (kind: 2, index: 1))
    #expect(second.codes == [41] && second.values == [30])
    let polyline = scan(path, stop: false, inlined: (kind: 3, index: 0))
    #expect(polyline.codes == [43] && polyline.values == [0.5])
    #expect(scan(path, stop: false, inlined: (kind: 2, index: 2)).codes.isEmpty)
    #expect(preScan(path).needsRaw == 0)
    // placed by an insert without a handle, its features cannot be found: GDAL lists them
    let unhandled = try write(drawing(lines: 1, block: block, insert: insert.filter { $0 != "5" && $0 != "B0" }))
    defer { try? FileManager.default.removeItem(atPath: unhandled) }
    #expect(preScan(unhandled).needsRaw == 1)
  }

  @Test("the scan stops when told to: a refused file is not read to its end")
  func scanStops() throws {
    let path = try write(drawing(lines: 5000))
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(scan(path, stop: false).status == 0)
    #expect(scan(path, stop: true).status == -1)
  }

  @Test("the pre-scan says a bound is crossed once, and its refusal still counts the whole entity")
  func crossedOnce() throws {
    var pairs = drawing(lines: 1)
    pairs.insert(contentsOf: ["0", "TEXT", "5", "B1", "8", "0", "10", "0", "20", "0", "40", "1", "1", String(repeating: "W", count: 1000)], at: 14)
    let path = try write(pairs)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let refused = preScan(path, maxText: 100)
    #expect(refused.crossed == 1)
    #expect(refused.refusal.contains("TEXT B1 holds a text of 1000 bytes"), "\(refused.refusal)")
    let within = preScan(path, maxText: 100_000)
    #expect(within.crossed == 0 && within.refusal.isEmpty)
  }
}
