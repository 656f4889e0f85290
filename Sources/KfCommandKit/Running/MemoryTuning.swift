import Foundation
import Kingfisher

/// Process-wide settings for a command that decodes many large images.
package enum MemoryTuning {
    /// Large buffers get their own mappings (see `ImageEngine.keepLargeAllocationsOutOfHeap`), unless the
    /// environment sets glibc's threshold itself. A command with a window (`forWindow`) draws each frame into a
    /// fresh surface of a few MB: those stay in the heap (buffers of 16 MB or more get mappings) and the heap keeps
    /// 64 MB it freed, so no frame faults its surface's pages in again.
    package static func apply(forWindow: Bool = false) {
        let environment = ProcessInfo.processInfo.environment
        guard environment["MALLOC_MMAP_THRESHOLD_"] == nil, environment["MALLOC_TRIM_THRESHOLD_"] == nil else { return }
        if forWindow {
            ImageEngine.keepLargeAllocationsOutOfHeap(threshold: 16 << 20, heapKept: 64 << 20)
        } else {
            ImageEngine.keepLargeAllocationsOutOfHeap()
        }
    }
}
