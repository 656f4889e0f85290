import Foundation
import KingfisherLocking

#if canImport(Glibc)
    import Glibc
#endif

/// Released buffer mappings (response bodies, cache files read) kept for reuse, at most ``maximumBytes`` in all.
///
/// A fresh anonymous mapping costs a page fault and a zeroed page for every 4 KB written into it, and an unmapping
/// that walks them again: 120 photos of ~1 MB spent about a sixth of the downloader's CPU time there (`perf record`
/// of `kf prefetch --original`, docs/benchmarks-history.md). A kept mapping's pages are already in place. A mapping
/// is reused for a body that needs at least half of it, so no body holds more than twice its size.
///
/// Each owner has its own (a ``DiskStorage/Backend`` for the files it reads): a buffer goes back to the pool it came
/// from, which lives as long as any of its buffers does.
final class MappingPool: Sendable {
    /// The most bytes kept in released mappings; what does not fit is unmapped.
    let maximumBytes: Int
    private let kept = Locked<[(address: UInt, capacity: Int)]>([])

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    deinit {
        for mapping in kept.withLock({ $0 }) {
            if let base = UnsafeMutableRawPointer(bitPattern: mapping.address) { munmap(base, mapping.capacity) }
        }
    }

    /// Bytes kept now.
    var keptBytes: Int { kept.withLock { $0.reduce(0) { $0 + $1.capacity } } }

    /// A mapping of at least `capacity` bytes (rounded up to whole pages): a kept one when one fits, else a new
    /// one; `nil` when the system refuses.
    func take(capacity: Int) -> (base: UnsafeMutableRawPointer, capacity: Int)? {
        let size = Self.pageRounded(capacity)
        let reused = kept.withLock { kept -> (address: UInt, capacity: Int)? in
            // The smallest kept mapping that fits, if it is not more than twice the size asked for.
            guard
                let index = kept.indices.filter({ kept[$0].capacity >= size && kept[$0].capacity <= 2 * size })
                    .min(by: { kept[$0].capacity < kept[$1].capacity })
            else { return nil }
            return kept.remove(at: index)
        }
        if let reused, let base = UnsafeMutableRawPointer(bitPattern: reused.address) {
            return (base, reused.capacity)
        }
        guard let pointer = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            pointer != MAP_FAILED
        else { return nil }
        return (pointer, size)
    }

    /// Takes back a mapping from ``take(capacity:)``: kept while there is room, else unmapped.
    func give(base: UnsafeMutableRawPointer, capacity: Int) {
        let keep = kept.withLock { kept -> Bool in
            let total = kept.reduce(0) { $0 + $1.capacity }
            guard total + capacity <= maximumBytes else { return false }
            kept.append((UInt(bitPattern: base), capacity))
            return true
        }
        if !keep { munmap(base, capacity) }
    }

    private static func pageRounded(_ bytes: Int) -> Int {
        let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        return (bytes + page - 1) / page * page
    }
}
