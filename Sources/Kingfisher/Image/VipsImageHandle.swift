import CVips
import Foundation

/// The single owner of one `VipsImage` reference, released in `deinit`.
///
/// Operations return new handles and never change `self`, except the metadata setters, which are only for a
/// handle that was just created and has not been shared yet.
// @unchecked: a built libvips image is immutable and safe to read from any thread; the pointer is never reassigned.
final class VipsImageHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(owning pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        cvips_unref(pointer)
    }

    var width: Int { Int(cvips_width(pointer)) }
    var height: Int { Int(cvips_height(pointer)) }
    var bands: Int { Int(cvips_bands(pointer)) }
    var bandFormat: VipsBandFormat { VipsBandFormat(rawValue: numericCast(cvips_format(pointer))) }
    var interpretation: VipsInterpretation { VipsInterpretation(rawValue: numericCast(cvips_interpretation(pointer))) }
    var hasAlpha: Bool { cvips_has_alpha(pointer) != 0 }
    /// Height of one frame; the whole height when the image has no valid `page-height`.
    var pageHeight: Int { Int(cvips_page_height(pointer)) }
    /// EXIF orientation, 1 (upright) when absent.
    var orientation: Int { Int(cvips_orientation(pointer)) }
    /// Bytes the pixels occupy once computed: width x height x bands x bytes per band.
    var byteSize: Int { Int(cvips_byte_size(pointer)) }

    func hasField(_ name: String) -> Bool {
        cvips_has_field(pointer, name) != 0
    }

    func int(_ name: String) -> Int? {
        var value: Int32 = 0
        guard hasField(name), cvips_get_int(pointer, name, &value) == 0 else { return nil }
        return Int(value)
    }

    func intArray(_ name: String) -> [Int]? {
        var values: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        guard hasField(name), cvips_get_int_array(pointer, name, &values, &count) == 0, let values else { return nil }
        return UnsafeBufferPointer(start: values, count: Int(count)).map(Int.init)
    }

    /// Sets an integer field. Only for a handle nobody else holds yet.
    func setInt(_ name: String, _ value: Int) {
        cvips_set_int(pointer, name, Int32(clamping: value))
    }

    /// Sets an integer-array field. Only for a handle nobody else holds yet.
    func setIntArray(_ name: String, _ values: [Int]) {
        let values = values.map { Int32(clamping: $0) }
        cvips_set_int_array(pointer, name, values, Int32(values.count))
    }

    /// Removes a metadata field. Only for a handle nobody else holds yet.
    func removeField(_ name: String) {
        cvips_remove_field(pointer, name)
    }

    /// Runs one libvips operation that writes a new image to `out`, naming it in the error if it fails.
    func apply(
        _ operation: String,
        _ body: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(VipsError) -> VipsImageHandle {
        var output: UnsafeMutablePointer<VipsImage>?
        let status = body(pointer, &output)
        guard status == 0, let output else {
            if let output { cvips_unref(output) }
            throw VipsRuntime.takeError(operation)
        }
        return VipsImageHandle(owning: output)
    }

    /// Computes every pixel into one block of memory, so the result holds no reference to the source bytes
    /// or to the lazy pipeline that produced it.
    /// The work runs on the calling thread (see `cvips_compute_in_memory_until`), in strips of about 64 KB, and
    /// stops at ``ImageEngine/timeLimit`` for `pixels` (at least this image's own pixel count: pass the source's
    /// when it is larger; `limit` overrides the engine's), throwing an error that carries the limit.
    func materialised(
        forPixels pixels: Int = 0, limit: ImageEngine.TimeLimit? = nil
    ) throws(VipsError) -> VipsImageHandle {
        let pixels = max(pixels, width * height)
        if limit == nil, let run = ProcessingRun.current {
            // Inside a workers' job: its one deadline, from its start, covers this computation too.
            let deadline = run.deadline(coveringPixels: pixels)
            return try materialised(deadline: deadline.at, seconds: deadline.seconds)
        }
        let seconds = (limit ?? ImageEngine.Configuration.current.timeLimit).seconds(forPixels: pixels)
        return try materialised(deadline: Self.deadline(after: seconds), seconds: seconds)
    }

    /// As ``materialised(forPixels:limit:)``, against a deadline set for a larger run (all frames of an
    /// animation); `seconds` is the limit it stands for, for the error. Inside a workers' job it also stops
    /// when nobody waits for the job any more.
    func materialised(deadline: Int, seconds: TimeInterval) throws(VipsError) -> VipsImageHandle {
        var outcome: Int32 = 0
        let run = ProcessingRun.current
        let copy = withExtendedLifetime(run) {
            cvips_compute_in_memory_stoppable(
                pointer, 64 << 10, deadline,
                run == nil
                    ? nil
                    : { context in
                        // The job the context points at (kept alive around the call): whether it was abandoned.
                        guard let context else { return 0 }
                        return Unmanaged<ProcessingRun>.fromOpaque(context).takeUnretainedValue().isAbandoned ? 1 : 0
                    },
                run.map { Unmanaged.passUnretained($0).toOpaque() }, &outcome)
        }
        guard let copy else {
            let error = VipsRuntime.takeError("compute pixels")
            guard outcome == 1 else { throw error }
            throw VipsError(operation: error.operation, message: error.message, timeLimit: seconds)
        }
        return VipsImageHandle(owning: copy)
    }

    /// The monotonic-clock deadline `seconds` from now, 0 (none) when it is not finite.
    static func deadline(after seconds: TimeInterval) -> Int {
        guard seconds.isFinite, seconds < 1e9 else { return 0 }
        return cvips_monotonic_microseconds() + max(1, Int(seconds * 1_000_000))
    }

    /// A new image reading this computed image's pixels in place, for one of many pipelines that each need it (a
    /// mask applied to every frame): pipelines sharing one image all hang off it, and libvips' bookkeeping of an
    /// image's many children costs O(n^2) in their number. `self` when it is not computed in memory.
    func inPlaceView() -> VipsImageHandle {
        guard let view = cvips_rows_view(pointer, 0, Int32(height)) else { return self }
        return VipsImageHandle(owning: view)
    }

    /// A frame of an image whose frames are stacked vertically. A computed image's frame reads its rows in place
    /// (`cvips_rows_view`), so taking every frame costs time in proportion to the frame count.
    func frame(_ index: Int) throws(VipsError) -> VipsImageHandle {
        let frameHeight = pageHeight
        guard frameHeight != height else { return self }
        if let view = cvips_rows_view(pointer, Int32(index * frameHeight), Int32(frameHeight)) {
            return VipsImageHandle(owning: view)
        }
        return try apply("extract_area") {
            cvips_extract_area($0, $1, 0, Int32(index * frameHeight), Int32(width), Int32(frameHeight))
        }
    }
}
