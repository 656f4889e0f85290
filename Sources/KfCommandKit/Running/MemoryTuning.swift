import Foundation
import Kingfisher

/// Process-wide settings for a command that decodes many large images.
package enum MemoryTuning {
    /// Large buffers get their own mappings (see `ImageEngine.keepLargeAllocationsOutOfHeap`), unless the
    /// environment sets glibc's threshold itself.
    package static func apply() {
        guard ProcessInfo.processInfo.environment["MALLOC_MMAP_THRESHOLD_"] == nil else { return }
        ImageEngine.keepLargeAllocationsOutOfHeap()
    }
}
