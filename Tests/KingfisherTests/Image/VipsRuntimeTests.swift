import CVips
import Testing

@testable import Kingfisher

@Suite struct VipsRuntimeTests {
    /// liborc 0.4.33's generated code crashed kf serve under concurrent thumbnails: the runtime turns it off.
    @Test func libvipsRunsWithoutItsRunTimeCompiledVectorCodeByDefault() throws {
        try VipsRuntime.start()
        #expect(cvips_vector_enabled() == 0)
        #expect(!ImageEngine.usesVectorCode)
        // (Not switched on here: the setting is process-wide and other suites run meanwhile.)
    }
}

@Suite struct StoppableComputeTests {
    /// A strip can outlast both its caller and the deadline (a long blur on a loaded machine): that work was
    /// abandoned, and says so, rather than reporting a time limit nobody is waiting to hear about.
    @Test func workWhoseCallerLeftIsStoppedEvenPastItsDeadline() throws {
        try VipsRuntime.start()
        let pixels = [UInt8](repeating: 128, count: 64 * 64 * 3)
        let image = try #require(
            pixels.withUnsafeBytes {
                cvips_new_from_memory_copy($0.baseAddress, $0.count, 64, 64, 3, Int32(VIPS_FORMAT_UCHAR.rawValue))
            })
        defer { cvips_unref(image) }
        let past = cvips_monotonic_microseconds() - 1_000_000
        var outcome: Int32 = 0
        let abandoned = cvips_compute_in_memory_stoppable(image, 64 << 10, past, { _ in 1 }, nil, &outcome)
        #expect(abandoned == nil && outcome == 2)
        outcome = 0
        let late = cvips_compute_in_memory_stoppable(image, 64 << 10, past, { _ in 0 }, nil, &outcome)
        #expect(late == nil && outcome == 1)
        _ = VipsRuntime.takeError("compute")
    }
}
