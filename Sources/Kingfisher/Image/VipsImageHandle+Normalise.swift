import CVips

extension VipsImageHandle {
    /// Converts any colour space, depth and band layout to 8-bit sRGB with an optional alpha band, lazily.
    func srgb8() throws(VipsError) -> VipsImageHandle {
        var current = self
        if current.hasField("icc-profile-data") {
            // An embedded profile is the most exact route (wide gamut, CMYK). A broken profile is ignored, as
            // browsers do, and the plain conversion below takes over. An sRGB profile on 8-bit RGB is dropped: its
            // transform would change nothing, and setting one up costs lcms ~10 ms per image.
            if current.bandFormat == VIPS_FORMAT_UCHAR, current.bands >= 3, current.hasSRGBProfile {
                current = try current.apply("copy") {
                    cvips_copy_as($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue))
                }
                current.removeField("icc-profile-data")
            } else if let converted = try? current.apply("icc_transform", { cvips_icc_transform($0, $1, "srgb") }) {
                current = converted
            } else {
                VipsRuntime.discardError()
            }
        }
        if current.bandFormat == VIPS_FORMAT_USHORT && current.interpretation == VIPS_INTERPRETATION_sRGB {
            // 16-bit data labelled sRGB: keep the high byte instead of clamping.
            current = try current.apply("rshift") { cvips_shift_right($0, $1, 8) }
        }
        if current.interpretation != VIPS_INTERPRETATION_sRGB {
            if cvips_colourspace_supported(current.pointer) == 0 {
                // Multiband or unlabelled data: read 1-2 bands as grey, 3 or more as RGB.
                let guess = current.bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
                current = try current.apply("copy") { cvips_copy_as($0, $1, Int32(guess.rawValue)) }
            }
            if current.interpretation != VIPS_INTERPRETATION_sRGB {
                current = try current.apply("colourspace") {
                    cvips_colourspace($0, $1, Int32(VIPS_INTERPRETATION_sRGB.rawValue))
                }
            }
        }
        if current.bandFormat != VIPS_FORMAT_UCHAR {
            current = try current.apply("cast") { cvips_cast_uchar($0, $1) }
        }
        if current.bands > 4 {
            current = try current.apply("extract_band") { cvips_extract_bands($0, $1, 0, 4) }
        }
        return current
    }

    /// Whether the embedded ICC profile is one of the standard sRGB profiles.
    var hasSRGBProfile: Bool {
        var data: UnsafeRawPointer?
        var length = 0
        guard cvips_get_blob(pointer, "icc-profile-data", &data, &length) == 0, let data, length > 0 else {
            VipsRuntime.discardError()
            return false
        }
        return ICCProfileName.isSRGB(Array(UnsafeRawBufferPointer(start: data, count: length)))
    }

    /// Drops the embedded ICC profile of a decoded (already sRGB) image, so later conversions don't run
    /// sRGB-to-sRGB transforms. Only for a handle nobody else holds yet.
    func withoutProfile() -> VipsImageHandle {
        removeField("icc-profile-data")
        return self
    }
}
