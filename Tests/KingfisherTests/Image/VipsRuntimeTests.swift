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
