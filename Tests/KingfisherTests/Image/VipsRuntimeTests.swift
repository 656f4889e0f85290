import CVips
import Testing

@testable import Kingfisher

@Suite struct VipsRuntimeTests {
    /// liborc 0.4.33's generated code crashed kf serve under concurrent thumbnails: the runtime turns it off.
    @Test func libvipsRunsWithoutItsRunTimeCompiledVectorCode() throws {
        try VipsRuntime.start()
        #expect(cvips_vector_enabled() == 0)
    }
}
