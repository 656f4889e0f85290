// Non-variadic wrappers over the libvips calls Kingfisher uses.
//
// libvips' public API takes optional arguments as NULL-terminated varargs,
// which Swift cannot call. Each wrapper below fixes the optional arguments
// one call site needs and returns libvips' own status (0 on success, -1 on
// error, with the message in vips_error_buffer()). Ownership follows libvips:
// an output `VipsImage **` holds a new reference the caller must unref.
#ifndef CVIPS_H
#define CVIPS_H

#include <vips/vips.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <time.h>
#include "CVipsSymbols.h"

// MARK: - Lifecycle and errors

/// Whether libvips can be loaded (it is loaded now if it was not); when not, `cvips_load_error` says why.
static inline int cvips_library_loads(void) { return cvips_library() != NULL; }
/// dlerror's text for the last failed load, or NULL.
static inline const char *cvips_load_error(void) { return dlerror(); }

/// Starts libvips; only once `cvips_library_loads()`.
static inline int cvips_init(void) { return VIPS_INIT("kingfisher"); }

static void cvips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {}

/// Stops libvips printing warnings (mild corruption it recovers from) to stderr; failures still come back
/// through the error buffer.
static inline void cvips_silence_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, cvips_ignore_log, NULL);
}

static inline void cvips_set_operation_cache_max(int max) { vips_cache_set_max(max); }
/// libvips' run-time compiled vector code (liborc): off or on, and whether it is on.
static inline void cvips_set_vector_enabled(int enabled) { vips_vector_set_enabled(enabled); }
static inline int cvips_vector_enabled(void) { return vips_vector_isenabled(); }

/// glibc: allocations of `bytes` or more get their own mapping (returned to the system when freed) and the
/// adaptive threshold is switched off. Returns 1 when it took effect; 0 on other C libraries.
static inline int cvips_malloc_mmap_threshold(int bytes) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}

/// glibc: freed memory at the top of the heap is kept, up to `bytes`, instead of handed back at each free (which
/// makes the next large allocation fault its pages in again). Returns 1 when it took effect; 0 elsewhere.
static inline int cvips_malloc_trim_threshold(int bytes) {
#ifdef __GLIBC__
    return mallopt(M_TRIM_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}

static inline const char *cvips_version_string(void) { return vips_version_string(); }

static inline void cvips_unref(VipsImage *image) { g_object_unref(image); }
/// `g_object_unref` as a destroy notification (a function pointer: the symbol itself would be linked).
static void cvips_unref_data(gpointer object) { g_object_unref(object); }

/// Returns freed heap memory to the system (glibc only; elsewhere a no-op); 1 when some was released.
static inline int cvips_malloc_trim(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

static inline void cvips_free(void *pointer) { g_free(pointer); }

/// Copies and clears the error buffer in one step; free the result with cvips_free.
static inline char *cvips_error_take(void) { return vips_error_buffer_copy(); }

static inline int cvips_operation_exists(const char *nickname) {
    return vips_type_find("VipsOperation", nickname) != 0;
}

// MARK: - Header fields

static inline int cvips_width(const VipsImage *image) { return vips_image_get_width(image); }
static inline int cvips_height(const VipsImage *image) { return vips_image_get_height(image); }
static inline int cvips_bands(const VipsImage *image) { return vips_image_get_bands(image); }
static inline int cvips_format(const VipsImage *image) { return (int)vips_image_get_format(image); }
static inline int cvips_interpretation(const VipsImage *image) { return (int)vips_image_get_interpretation(image); }
static inline int cvips_page_height(VipsImage *image) { return vips_image_get_page_height(image); }
static inline int cvips_orientation(VipsImage *image) { return vips_image_get_orientation(image); }
static inline int cvips_has_alpha(VipsImage *image) { return vips_image_hasalpha(image); }
static inline size_t cvips_byte_size(const VipsImage *image) { return VIPS_IMAGE_SIZEOF_IMAGE(image); }
static inline int cvips_has_field(const VipsImage *image, const char *name) {
    return vips_image_get_typeof(image, name) != 0;
}
static inline int cvips_colourspace_supported(const VipsImage *image) { return vips_colourspace_issupported(image); }

static inline int cvips_get_int(const VipsImage *image, const char *name, int *out) {
    return vips_image_get_int(image, name, out);
}
static inline void cvips_set_int(VipsImage *image, const char *name, int value) {
    vips_image_set_int(image, name, value);
}
static inline int cvips_get_int_array(VipsImage *image, const char *name, int **out, int *count) {
    return vips_image_get_array_int(image, name, out, count);
}
static inline void cvips_set_int_array(VipsImage *image, const char *name, const int *values, int count) {
    vips_image_set_array_int(image, name, values, count);
}
/// The bytes of a blob field (an ICC profile, say); 0 on success. The bytes belong to the image.
static inline int cvips_get_blob(VipsImage *image, const char *name, const void **data, size_t *length) {
    return vips_image_get_blob(image, name, data, length);
}
/// Sets a blob field to a copy of `length` bytes at `data`.
static inline void cvips_set_blob_copy(VipsImage *image, const char *name, const void *data, size_t length) {
    vips_image_set_blob_copy(image, name, data, length);
}
static inline void cvips_remove_field(VipsImage *image, const char *name) { vips_image_remove(image, name); }

// MARK: - Loading

/// Builds a load operation whose arguments are set, and takes its image (NULL on error); the operation is released.
static inline VipsImage *cvips_run_load(VipsOperation *operation) {
    VipsImage *out = NULL;
    if (vips_cache_operation_buildp(&operation) == 0) {
        g_object_get(operation, "out", &out, NULL);
    }
    vips_object_unref_outputs(VIPS_OBJECT(operation));
    g_object_unref(operation);
    return out;
}

/// Opens an image lazily with the loader named `nickname` (e.g. "jpegload_buffer"), without asking every loader
/// whether it claims the bytes first (vips_image_new_from_buffer does, ~20 us a call): the bytes are read by that
/// loader or the call fails. `all_pages` asks multi-page loaders for every frame; a `shrink` of 2, 4 or 8 asks the
/// JPEG loader to decode at that fraction of the size (libjpeg's DCT scaling). NULL on error.
static inline VipsImage *cvips_load_named(const char *nickname, const void *data, size_t length, int all_pages,
                                          int shrink, int fail_on, int sequential) {
    VipsOperation *operation = vips_operation_new(nickname);
    if (!operation) return NULL;
    VipsBlob *blob = vips_blob_new(NULL, data, length);
    VipsAccess access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;
    g_object_set(operation, "buffer", blob, "access", access, "fail_on", fail_on, NULL);
    vips_area_unref(VIPS_AREA(blob));
    if (all_pages && g_object_class_find_property(G_OBJECT_GET_CLASS(operation), "n")) {
        g_object_set(operation, "n", -1, NULL);
    }
    if (shrink > 1 && g_object_class_find_property(G_OBJECT_GET_CLASS(operation), "shrink")) {
        g_object_set(operation, "shrink", shrink, NULL);
    }
    return cvips_run_load(operation);
}

/// Opens a WebP lazily with libwebp's own scaling to `scale` of its size (its rescaler, as libvips' thumbnail asks
/// it): the full-size image is never made. Sequential access. NULL on error.
static inline VipsImage *cvips_load_webp_scaled(const void *data, size_t length, double scale, int fail_on) {
    VipsOperation *operation = vips_operation_new("webpload_buffer");
    if (!operation) return NULL;
    VipsBlob *blob = vips_blob_new(NULL, data, length);
    g_object_set(operation, "buffer", blob, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, "scale", scale,
                 NULL);
    vips_area_unref(VIPS_AREA(blob));
    return cvips_run_load(operation);
}

/// Opens SVG lazily, to be drawn at `scale` times its declared size (libvips' svgload_buffer). NULL on error.
static inline VipsImage *cvips_load_svg_scaled(const void *data, size_t length, double scale, int fail_on) {
    VipsImage *out = NULL;
    if (vips_svgload_buffer((void *)data, length, &out, "scale", scale, "fail_on", (VipsFailOn)fail_on, NULL)) {
        return NULL;
    }
    return out;
}

/// Shrink-on-load thumbnail that fits inside width x height, never enlarging.
static inline int cvips_thumbnail_buffer(const void *data, size_t length, VipsImage **out, int width, int height,
                                         int fail_on) {
    char options[32];
    const char *nick = vips_enum_nick(VIPS_TYPE_FAIL_ON, fail_on);
    g_snprintf(options, sizeof(options), "fail_on=%s", nick ? nick : "none");
    return vips_thumbnail_buffer((void *)data, length, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                 "option_string", options, NULL);
}

// MARK: - Conversion

/// Computes every pixel of `image` into a new memory image on the calling thread, top to bottom in strips of
/// about `strip_bytes` of output (16 rows at least), keeping its header and metadata. Unlike
/// vips_image_copy_memory it starts no libvips worker threads: Kingfisher already decodes one image per pool
/// thread, and for small images the hand-offs to workers cost more than the pixels. Every stage of the pipeline
/// keeps strip-sized buffers; small strips (64 KB) stay in the allocator's reused heap memory, where large ones
/// came back as fresh pages to fault in (a 256x256 JPEG: ~0.45 ms here, ~0.7 ms with 4 MB strips, ~1 ms with
/// copy_memory). Before each strip the clock is checked against `deadline` (g_get_monotonic_time() microseconds;
/// 0 for none): past it, the work stops with `*timed_out` set to 1 (a strip already started runs to its end).
/// `stop` (may be NULL) is asked before each strip too, and first: when it answers non-zero (whoever wanted the
/// pixels has gone), the work stops with `*timed_out` set to 2, even when the deadline has passed as well. NULL on
/// error, with the message in the error buffer.
static inline VipsImage *cvips_compute_in_memory_stoppable(VipsImage *image, size_t strip_bytes, gint64 deadline,
                                                           int (*stop)(void *), void *stop_context,
                                                           int *timed_out) {
    VipsImage *out = vips_image_new_memory();
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, image, NULL) || vips_image_write_prepare(out)) {
        g_object_unref(out);
        return NULL;
    }
    VipsRegion *source = vips_region_new(image);
    VipsRegion *target = vips_region_new(out);
    size_t line = VIPS_IMAGE_SIZEOF_LINE(image);
    int rows = line > 0 ? (int)MIN((size_t)image->Ysize, MAX((size_t)16, strip_bytes / line)) : image->Ysize;
    int status = 0;
    for (int top = 0; top < image->Ysize && status == 0; top += rows) {
        // Nobody waiting comes first: a strip that outlasted both the caller and the deadline was abandoned.
        if (stop && stop(stop_context)) {
            if (timed_out) *timed_out = 2;
            vips_error("compute", "stopped at row %d of %d: nobody waits for the result", top, image->Ysize);
            status = -1;
            break;
        }
        if (deadline > 0 && g_get_monotonic_time() > deadline) {
            if (timed_out) *timed_out = 1;
            vips_error("compute", "time limit exceeded at row %d of %d", top, image->Ysize);
            status = -1;
            break;
        }
        VipsRect strip = {0, top, image->Xsize, MIN(rows, image->Ysize - top)};
        status = vips_region_image(target, &strip) || vips_region_prepare_to(source, target, &strip, 0, top);
    }
    g_object_unref(source);
    g_object_unref(target);
    if (status) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

/// cvips_compute_in_memory_stoppable without a way to stop it early.
static inline VipsImage *cvips_compute_in_memory_until(VipsImage *image, size_t strip_bytes, gint64 deadline,
                                                       int *timed_out) {
    return cvips_compute_in_memory_stoppable(image, strip_bytes, deadline, NULL, NULL, timed_out);
}

/// cvips_compute_in_memory_until without a deadline.
static inline VipsImage *cvips_compute_in_memory(VipsImage *image, size_t strip_bytes) {
    return cvips_compute_in_memory_until(image, strip_bytes, 0, NULL);
}

/// Now on the clock the deadlines above use, in microseconds: CLOCK_MONOTONIC, which is what g_get_monotonic_time()
/// reads on Linux and macOS, read here without GLib so that a job can start its clock before (or without) libvips
/// being loaded.
static inline gint64 cvips_monotonic_microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (gint64)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

/// Converts from the embedded profile (or libvips' default for the colour space) to `profile`: a file path or
/// one of libvips' built-in names ("srgb", "p3", "cmyk").
static inline int cvips_icc_transform(VipsImage *in, VipsImage **out, const char *profile) {
    return vips_icc_transform(in, out, profile, "embedded", TRUE, "depth", 8, "intent", VIPS_INTENT_RELATIVE, NULL);
}
static inline int cvips_colourspace(VipsImage *in, VipsImage **out, int space) {
    return vips_colourspace(in, out, (VipsInterpretation)space, NULL);
}
static inline int cvips_cast_uchar(VipsImage *in, VipsImage **out) { return vips_cast_uchar(in, out, NULL); }
static inline int cvips_shift_right(VipsImage *in, VipsImage **out, int bits) {
    return vips_rshift_const1(in, out, bits, NULL);
}
static inline int cvips_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }
static inline int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}
static inline int cvips_extract_bands(VipsImage *in, VipsImage **out, int first, int count) {
    return vips_extract_band(in, out, first, "n", count, NULL);
}
static inline int cvips_add_opaque_alpha(VipsImage *in, VipsImage **out) {
    return vips_bandjoin_const1(in, out, 255.0, NULL);
}
static inline int cvips_flatten(VipsImage *in, VipsImage **out, double red, double green, double blue) {
    VipsArrayDouble *background = vips_array_double_newv(3, red, green, blue);
    int status = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return status;
}
static inline int cvips_copy_as(VipsImage *in, VipsImage **out, int interpretation) {
    return vips_copy(in, out, "interpretation", (VipsInterpretation)interpretation, NULL);
}
/// Rows [top, top + height) of a memory image (one computed by cvips_compute_in_memory) as an image of their own
/// that reads the same pixels in place: no copy, and no link into `image`'s pipeline. It holds a reference to
/// `image` for as long as it lives. Frames taken with vips_extract_area all hang off one parent, and libvips'
/// bookkeeping of a parent's many children made taking and joining n frames cost O(n^2) (2,000 frames: 19 s to
/// build, 89 s to compute; this way 0.5 s and 1.5 s). NULL when `image` is not in memory or the rows are out of range.
static inline VipsImage *cvips_rows_view(VipsImage *image, int top, int height) {
    if (!image->data || top < 0 || height <= 0 || top > image->Ysize - height) return NULL;
    if (image->dtype != VIPS_IMAGE_SETBUF && image->dtype != VIPS_IMAGE_SETBUF_FOREIGN) return NULL;
    size_t size = VIPS_IMAGE_SIZEOF_LINE(image) * (size_t)height;
    VipsImage *view = vips_image_new_from_memory(VIPS_IMAGE_ADDR(image, 0, top), size, image->Xsize, height,
                                                 image->Bands, image->BandFmt);
    if (!view) return NULL;
    view->Type = image->Type;
    view->Xres = image->Xres;
    view->Yres = image->Yres;
    g_object_set_data_full(G_OBJECT(view), "kingfisher-parent", g_object_ref(image), cvips_unref_data);
    return view;
}
/// Stacks equally sized frames top to bottom, the layout libvips uses for animations.
static inline int cvips_join_vertically(VipsImage **frames, int count, VipsImage **out) {
    return vips_arrayjoin(frames, out, count, "across", 1, NULL);
}
static inline VipsImage *cvips_new_from_memory_copy(const void *data, size_t size, int width, int height, int bands,
                                                    int format) {
    return vips_image_new_from_memory_copy(data, size, width, height, bands, (VipsBandFormat)format);
}
/// Pixels as one packed buffer; free with cvips_free.
static inline void *cvips_write_to_memory(VipsImage *image, size_t *size) {
    return vips_image_write_to_memory(image, size);
}

// MARK: - Processing

static inline int cvips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
}
/// Fits inside width x height keeping the aspect ratio, never enlarging (alpha is premultiplied inside).
static inline int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
}
static inline int cvips_premultiply(VipsImage *in, VipsImage **out) { return vips_premultiply(in, out, NULL); }
static inline int cvips_unpremultiply(VipsImage *in, VipsImage **out) { return vips_unpremultiply(in, out, NULL); }
static inline int cvips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, "min_ampl", 0.1, NULL);
}
/// A separable Gaussian mask (what vips_gaussblur makes on every call), for cvips_convsep: an animation's frames
/// share one. `in_float`: a floating-point mask and convolution instead of the integer vector code libvips compiles
/// for each convolution (about 1 ms), which is cheaper for small images such as the frames of a long animation.
static inline int cvips_gaussmat(VipsImage **out, double sigma, int in_float) {
    return vips_gaussmat(out, sigma, 0.1, "separable", TRUE, "precision",
                         in_float ? VIPS_PRECISION_FLOAT : VIPS_PRECISION_INTEGER, NULL);
}
static inline int cvips_convsep(VipsImage *in, VipsImage **out, VipsImage *mask, int in_float) {
    return vips_convsep(in, out, mask, "precision", in_float ? VIPS_PRECISION_FLOAT : VIPS_PRECISION_INTEGER,
                        NULL);
}
/// out = in * a + b per band (n values each, or 1 for all bands); `uchar` rounds and clamps to 8 bits.
static inline int cvips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n, int uchar) {
    return vips_linear(in, out, (double *)a, (double *)b, n, "uchar", uchar, NULL);
}
/// Each output band is a weighted sum of the input bands: `matrix` is bands x bands, row per output band.
static inline int cvips_recomb(VipsImage *in, VipsImage **out, const double *matrix, int bands) {
    VipsImage *m = vips_image_new_matrix_from_array(bands, bands, matrix, bands * bands);
    if (!m) return -1;
    int status = vips_recomb(in, out, m, NULL);
    g_object_unref(m);
    return status;
}
static inline int cvips_multiply(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_multiply(left, right, out, NULL);
}
/// A one-band float image of Gaussian noise around 0 with standard deviation `sigma`, the same for a `seed`.
static inline int cvips_gaussnoise(VipsImage **out, int width, int height, double sigma, int seed) {
    return vips_gaussnoise(out, width, height, "sigma", sigma, "mean", 0.0, "seed", seed, NULL);
}
/// `in` convolved with a `columns` x `rows` mask divided by `scale`, in floating point; edges repeat outward.
static inline int cvips_convolve(VipsImage *in, VipsImage **out, const double *mask, int columns, int rows,
                                 double scale) {
    VipsImage *matrix = vips_image_new_matrix_from_array(columns, rows, mask, columns * rows);
    if (!matrix) return -1;
    vips_image_set_double(matrix, "scale", scale);
    vips_image_set_double(matrix, "offset", 0.0);
    int status = vips_conv(in, out, matrix, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(matrix);
    return status;
}
/// `left + right` per pixel; a one-band operand is added to every band of the other.
static inline int cvips_add(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_add(left, right, out, NULL);
}
static inline int cvips_bandjoin2(VipsImage *first, VipsImage *second, VipsImage **out) {
    return vips_bandjoin2(first, second, out, NULL);
}
/// `sub` written over `main` with its top-left corner at `x`, `y` (pixels replaced, alpha too; clipped to `main`).
static inline int cvips_insert(VipsImage *main, VipsImage *sub, VipsImage **out, int x, int y) {
    return vips_insert(main, sub, out, x, y, NULL);
}
static inline int cvips_composite2(VipsImage *base, VipsImage *overlay, VipsImage **out, int mode) {
    return vips_composite2(base, overlay, out, (VipsBlendMode)mode, NULL);
}
/// Mirrors the image: direction 0 left-right, 1 top-bottom.
static inline int cvips_flip(VipsImage *in, VipsImage **out, int direction) {
    return vips_flip(in, out, (VipsDirection)direction, NULL);
}
/// Turns the image clockwise by quarter turns: 1 is 90 degrees, 2 is 180, 3 is 270.
static inline int cvips_rotate_quarters(VipsImage *in, VipsImage **out, int quarters) {
    static const VipsAngle angles[4] = {VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270};
    return vips_rot(in, out, angles[((quarters % 4) + 4) % 4], NULL);
}
/// The pixel values at (x, y), one per band, into `values` (at most `capacity`); the band count, or -1.
static inline int cvips_pixel_at(VipsImage *in, int x, int y, double *values, int capacity) {
    double *vector = NULL;
    int count = 0;
    if (vips_getpoint(in, &vector, &count, x, y, NULL)) return -1;
    int copied = count < capacity ? count : capacity;
    for (int i = 0; i < copied; i++) values[i] = vector[i];
    g_free(vector);
    return count;
}
/// The bounding box of what differs from `background` (one value per band) by more than `threshold`.
static inline int cvips_find_trim(VipsImage *in, int *left, int *top, int *width, int *height, double threshold,
                                  const double *background, int bands) {
    VipsArrayDouble *colour = vips_array_double_new(background, bands);
    int status = vips_find_trim(in, left, top, width, height, "threshold", threshold, "background", colour, NULL);
    vips_area_unref(VIPS_AREA(colour));
    return status;
}
/// The `width` x `height` part of the image that libvips' attention strategy finds most interesting.
static inline int cvips_smartcrop_attention(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_smartcrop(in, out, width, height, "interesting", VIPS_INTERESTING_ATTENTION, NULL);
}
/// The image placed at (x, y) on a width x height canvas of `background` (one value per band).
static inline int cvips_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height,
                              const double *background, int bands) {
    VipsArrayDouble *colour = vips_array_double_new(background, bands);
    int status = vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background", colour,
                            NULL);
    vips_area_unref(VIPS_AREA(colour));
    return status;
}
/// A width x height sRGB image with 4 uchar bands, every pixel (r, g, b, a) in 0...255.
static inline int cvips_solid(VipsImage **out, int width, int height, double r, double g, double b, double a) {
    VipsImage *black = NULL, *filled = NULL;
    double scale[4] = {0, 0, 0, 0};
    double colour[4] = {r, g, b, a};
    if (vips_black(&black, width, height, "bands", 4, NULL)) return -1;
    int status = vips_linear(black, &filled, scale, colour, 4, "uchar", TRUE, NULL);
    g_object_unref(black);
    if (status) return -1;
    status = vips_copy(filled, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(filled);
    return status;
}

// MARK: - Saving (strip drops EXIF/XMP; orientation is already applied on decode)

static inline int cvips_png_save(VipsImage *in, void **buffer, size_t *length, int compression, int palette,
                                 int strip) {
    return vips_pngsave_buffer(in, buffer, length, "compression", compression, "palette", palette, "strip", strip,
                               NULL);
}
static inline int cvips_jpeg_save(VipsImage *in, void **buffer, size_t *length, int quality, int interlace,
                                  int strip) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "interlace", interlace, "strip", strip, NULL);
}
/// A JPEG with a chosen layout, for tests and tools that need one: chroma subsampling on (4:2:0) or off (4:4:4),
/// and restart markers every `restart_interval` MCUs (0: none).
static inline int cvips_jpeg_save_layout(VipsImage *in, void **buffer, size_t *length, int quality, int interlace,
                                         int subsample, int restart_interval) {
    VipsForeignSubsample mode = subsample ? VIPS_FOREIGN_SUBSAMPLE_ON : VIPS_FOREIGN_SUBSAMPLE_OFF;
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "interlace", interlace, "strip", TRUE,
                                "subsample_mode", mode, "restart_interval", restart_interval, NULL);
}
static inline int cvips_gif_save(VipsImage *in, void **buffer, size_t *length) {
    return vips_gifsave_buffer(in, buffer, length, "strip", TRUE, NULL);
}
static inline int cvips_webp_save(VipsImage *in, void **buffer, size_t *length, int quality, int lossless) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "lossless", lossless, "strip", TRUE, NULL);
}
static inline int cvips_heif_save(VipsImage *in, void **buffer, size_t *length, int quality, int lossless, int av1) {
    VipsForeignHeifCompression compression =
        av1 ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1 : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC;
    return vips_heifsave_buffer(in, buffer, length, "Q", quality, "lossless", lossless, "compression", compression,
                                "strip", TRUE, NULL);
}
static inline int cvips_tiff_save(VipsImage *in, void **buffer, size_t *length) {
    return vips_tiffsave_buffer(in, buffer, length, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, "strip",
                                TRUE, NULL);
}
static inline int cvips_magick_save(VipsImage *in, void **buffer, size_t *length, const char *format) {
    return vips_magicksave_buffer(in, buffer, length, "format", format, "strip", TRUE, NULL);
}

#endif
