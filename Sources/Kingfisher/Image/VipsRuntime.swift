import CVips
import Foundation

/// Process-wide libvips state: started once, its operation cache off, its error buffer read in one place.
enum VipsRuntime {
    /// libvips is loaded (it is not linked: see Sources/CVips/CVipsSymbols.h) and `vips_init` run exactly once,
    /// on first use, from whichever thread gets here first.
    private static let initialisation: Result<Void, VipsError> = {
        guard cvips_library_loads() != 0 else {
            let reason = cvips_load_error().map { String(cString: $0) } ?? "\(CVIPS_LIBRARY_NAME) was not found"
            return .failure(VipsError(operation: VipsError.loadOperation, message: reason))
        }
        guard cvips_init() == 0 else { return .failure(takeError("init")) }
        // libvips' operation cache keys buffer loads by address; a reused address could then return a stale
        // image. Kingfisher has caches of its own, so the operation cache is switched off.
        cvips_set_operation_cache_max(0)
        // liborc's run-time compiled kernels are off unless asked for (ImageEngine.usesVectorCode says why).
        cvips_set_vector_enabled(0)
        // Warnings are about damage libvips worked around; a server library must not print them to stderr.
        cvips_silence_warnings()
        return .success(())
    }()

    static func start() throws(VipsError) {
        try initialisation.get()
    }

    /// Source images of at least this many pixels leave enough freed memory behind to be worth handing back.
    static let largeDecodePixels = 8_000_000

    /// After a large decode, hands the memory it freed back to the system (glibc's `malloc_trim`). A large JPEG's
    /// decode buffers are tens of megabytes, freed in the arena of whichever thread ran it; without this, each
    /// decoding thread's arena keeps its peak, and a process's resident size grows with the number of threads
    /// that ever decoded a large image. A no-op for smaller images: trimming walks the heap.
    static func releaseFreedMemory(afterDecoding pixels: Int) {
        guard pixels >= largeDecodePixels else { return }
        _ = cvips_malloc_trim()
    }

    /// Copies and clears libvips' error buffer, so its text never reaches a later call.
    static func takeError(_ operation: String) -> VipsError {
        var message = ""
        if let text = cvips_error_take() {
            message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            cvips_free(text)
        }
        // The buffer is process-wide: another thread failing at the same moment may have taken this text.
        return VipsError(operation: operation, message: message.isEmpty ? "libvips gave no detail" : message)
    }

    /// Drops whatever a failed call that is being recovered from left in the error buffer.
    static func discardError() {
        if let text = cvips_error_take() { cvips_free(text) }
    }

    static func operationExists(_ nickname: String) -> Bool {
        (try? start()) != nil && cvips_operation_exists(nickname) != 0
    }

    /// libvips' version, or "not installed" when it cannot be loaded. Read without starting libvips
    /// (`vips_version_string` needs no `vips_init`), so a program that only names it (`kf --version`) does not pay
    /// for registering every operation.
    static var versionString: String {
        guard cvips_library_loads() != 0 else { return "not installed" }
        return String(cString: cvips_version_string())
    }
}
