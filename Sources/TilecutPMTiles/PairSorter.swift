/// Sorts keys in place and moves the values with them: an introsort (quicksort on a
/// median of three, heapsort past a depth of 2·log₂ n, insertion sort for short
/// ranges) that needs no buffer beside the two arrays.
struct PairSorter {
  var keys: UnsafeMutableBufferPointer<UInt64>
  var values: UnsafeMutableBufferPointer<UInt32>

  mutating func sort() {
    guard keys.count > 1 else { return }
    quick(0, keys.count, depth: 2 * (Int.bitWidth - keys.count.leadingZeroBitCount))
  }

  private func swapAt(_ i: Int, _ j: Int) {
    keys.swapAt(i, j)
    values.swapAt(i, j)
  }

  private func quick(_ lo: Int, _ hi: Int, depth: Int) {
    var lo = lo
    var hi = hi
    var depth = depth
    while hi - lo > 16 {
      if depth == 0 {
        heap(lo, hi)
        return
      }
      depth -= 1
      // the median of the first, middle and last keys, moved to `lo` as the pivot
      let mid = lo + (hi - lo) / 2
      if keys[mid] < keys[lo] { swapAt(mid, lo) }
      if keys[hi - 1] < keys[lo] { swapAt(hi - 1, lo) }
      if keys[hi - 1] < keys[mid] { swapAt(hi - 1, mid) }
      swapAt(lo, mid)
      let pivot = keys[lo]
      var i = lo - 1
      var j = hi
      while true {
        repeat { i += 1 } while keys[i] < pivot
        repeat { j -= 1 } while keys[j] > pivot
        if i >= j { break }
        swapAt(i, j)
      }
      // [lo, j] ≤ pivot ≤ [j + 1, hi): recurse into the smaller side
      if j + 1 - lo < hi - (j + 1) {
        quick(lo, j + 1, depth: depth)
        lo = j + 1
      } else {
        quick(j + 1, hi, depth: depth)
        hi = j + 1
      }
    }
    insertion(lo, hi)
  }

  private func insertion(_ lo: Int, _ hi: Int) {
    guard hi - lo > 1 else { return }
    for i in (lo + 1)..<hi {
      let k = keys[i]
      let v = values[i]
      var j = i
      while j > lo && keys[j - 1] > k {
        keys[j] = keys[j - 1]
        values[j] = values[j - 1]
        j -= 1
      }
      keys[j] = k
      values[j] = v
    }
  }

  private func heap(_ lo: Int, _ hi: Int) {
    let n = hi - lo
    func sift(_ root: Int, _ end: Int) {
      var r = root
      while true {
        var child = 2 * r + 1
        if child >= end { return }
        if child + 1 < end && keys[lo + child + 1] > keys[lo + child] { child += 1 }
        if keys[lo + r] >= keys[lo + child] { return }
        swapAt(lo + r, lo + child)
        r = child
      }
    }
    for root in stride(from: n / 2 - 1, through: 0, by: -1) { sift(root, n) }
    for end in stride(from: n - 1, to: 0, by: -1) {
      swapAt(lo, lo + end)
      sift(0, end)
    }
  }
}
