// libvips is loaded when Kingfisher first needs it, not when the program starts.
//
// Linking libvips makes the dynamic loader map and relocate its ~100 libraries before main: about 25 ms of every
// run, even of one that never touches a pixel (docs/benchmarks-history.md).
// So the wrappers in CVips.h call libvips and GLib through pointers looked up with dlsym in libvips (and the
// libraries it brings) on first use: each name below, when called, is redirected by a function-like macro. A
// program that never touches pixels never loads libvips.
//
// The list is every libvips and GLib function CVips.h calls, its macros expanded: a program that includes
// CVips.h, takes the address of every cvips_ function and links without libvips names exactly these as
// undefined. A function used other than by a call must get a wrapper (as g_object_unref does in CVips.h).
#ifndef CVIPS_SYMBOLS_H
#define CVIPS_SYMBOLS_H

#include <dlfcn.h>
#include <stdlib.h>

// libvips' soname for every 8.x release (Swift reads it too, for its error message).
#define CVIPS_LIBRARY_NAME "libvips.so.42"

/// libvips, loaded (once per process: dlopen counts) on first use; NULL when it cannot be loaded.
static inline void *cvips_library(void) {
    static void *handle;
    void *loaded = __atomic_load_n(&handle, __ATOMIC_ACQUIRE);
    if (!loaded) {
        loaded = dlopen(CVIPS_LIBRARY_NAME, RTLD_LAZY | RTLD_GLOBAL);
        if (loaded) __atomic_store_n(&handle, loaded, __ATOMIC_RELEASE);
    }
    return loaded;
}

/// The address of `name` in libvips or a library it loaded, looked up once per call site. Kingfisher calls into
/// libvips only once it was loaded (VipsRuntime checks first): a missing library or function here is a bug, or a
/// libvips older than the headers built against, and stops the process as an unresolved symbol would.
static inline void *cvips_symbol(const char *name, void **slot) {
    void *address = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (address) return address;
    void *library = cvips_library();
    address = library ? dlsym(library, name) : NULL;
    if (!address) abort();
    __atomic_store_n(slot, address, __ATOMIC_RELEASE);
    return address;
}

// Declared in vips/vector.h, which vips/vips.h does not include.
gboolean vips_vector_isenabled(void);
void vips_vector_set_enabled(gboolean enabled);

#define CVIPS_CALL(name) ((__typeof__(&name))({ static void *cvips_slot; cvips_symbol(#name, &cvips_slot); }))

#define g_free(...) CVIPS_CALL(g_free)(__VA_ARGS__)
#define g_get_monotonic_time(...) CVIPS_CALL(g_get_monotonic_time)(__VA_ARGS__)
#define g_log(...) CVIPS_CALL(g_log)(__VA_ARGS__)
#define g_log_set_handler(...) CVIPS_CALL(g_log_set_handler)(__VA_ARGS__)
#define g_object_class_find_property(...) CVIPS_CALL(g_object_class_find_property)(__VA_ARGS__)
#define g_object_get(...) CVIPS_CALL(g_object_get)(__VA_ARGS__)
#undef g_object_ref
#define g_object_ref(...) CVIPS_CALL(g_object_ref)(__VA_ARGS__)
#define g_object_set(...) CVIPS_CALL(g_object_set)(__VA_ARGS__)
#define g_object_set_data_full(...) CVIPS_CALL(g_object_set_data_full)(__VA_ARGS__)
#define g_object_unref(...) CVIPS_CALL(g_object_unref)(__VA_ARGS__)
#define g_snprintf(...) CVIPS_CALL(g_snprintf)(__VA_ARGS__)
#define g_type_check_instance_cast(...) CVIPS_CALL(g_type_check_instance_cast)(__VA_ARGS__)
#define vips_add(...) CVIPS_CALL(vips_add)(__VA_ARGS__)
#define vips_area_unref(...) CVIPS_CALL(vips_area_unref)(__VA_ARGS__)
#define vips_array_double_new(...) CVIPS_CALL(vips_array_double_new)(__VA_ARGS__)
#define vips_array_double_newv(...) CVIPS_CALL(vips_array_double_newv)(__VA_ARGS__)
#define vips_arrayjoin(...) CVIPS_CALL(vips_arrayjoin)(__VA_ARGS__)
#define vips_autorot(...) CVIPS_CALL(vips_autorot)(__VA_ARGS__)
#define vips_bandjoin2(...) CVIPS_CALL(vips_bandjoin2)(__VA_ARGS__)
#define vips_bandjoin_const1(...) CVIPS_CALL(vips_bandjoin_const1)(__VA_ARGS__)
#define vips_black(...) CVIPS_CALL(vips_black)(__VA_ARGS__)
#define vips_blob_new(...) CVIPS_CALL(vips_blob_new)(__VA_ARGS__)
#define vips_cache_operation_buildp(...) CVIPS_CALL(vips_cache_operation_buildp)(__VA_ARGS__)
#define vips_cache_set_max(...) CVIPS_CALL(vips_cache_set_max)(__VA_ARGS__)
#define vips_cast_uchar(...) CVIPS_CALL(vips_cast_uchar)(__VA_ARGS__)
#define vips_colourspace(...) CVIPS_CALL(vips_colourspace)(__VA_ARGS__)
#define vips_colourspace_issupported(...) CVIPS_CALL(vips_colourspace_issupported)(__VA_ARGS__)
#define vips_composite2(...) CVIPS_CALL(vips_composite2)(__VA_ARGS__)
#define vips_conv(...) CVIPS_CALL(vips_conv)(__VA_ARGS__)
#define vips_convsep(...) CVIPS_CALL(vips_convsep)(__VA_ARGS__)
#define vips_copy(...) CVIPS_CALL(vips_copy)(__VA_ARGS__)
#define vips_embed(...) CVIPS_CALL(vips_embed)(__VA_ARGS__)
#define vips_enum_nick(...) CVIPS_CALL(vips_enum_nick)(__VA_ARGS__)
#define vips_error(...) CVIPS_CALL(vips_error)(__VA_ARGS__)
#define vips_error_buffer_copy(...) CVIPS_CALL(vips_error_buffer_copy)(__VA_ARGS__)
#define vips_extract_area(...) CVIPS_CALL(vips_extract_area)(__VA_ARGS__)
#define vips_extract_band(...) CVIPS_CALL(vips_extract_band)(__VA_ARGS__)
#define vips_fail_on_get_type(...) CVIPS_CALL(vips_fail_on_get_type)(__VA_ARGS__)
#define vips_find_trim(...) CVIPS_CALL(vips_find_trim)(__VA_ARGS__)
#define vips_flatten(...) CVIPS_CALL(vips_flatten)(__VA_ARGS__)
#define vips_flip(...) CVIPS_CALL(vips_flip)(__VA_ARGS__)
#define vips_format_sizeof_unsafe(...) CVIPS_CALL(vips_format_sizeof_unsafe)(__VA_ARGS__)
#define vips_gaussblur(...) CVIPS_CALL(vips_gaussblur)(__VA_ARGS__)
#define vips_gaussmat(...) CVIPS_CALL(vips_gaussmat)(__VA_ARGS__)
#define vips_gaussnoise(...) CVIPS_CALL(vips_gaussnoise)(__VA_ARGS__)
#define vips_getpoint(...) CVIPS_CALL(vips_getpoint)(__VA_ARGS__)
#define vips_gifsave_buffer(...) CVIPS_CALL(vips_gifsave_buffer)(__VA_ARGS__)
#define vips_heifsave_buffer(...) CVIPS_CALL(vips_heifsave_buffer)(__VA_ARGS__)
#define vips_icc_transform(...) CVIPS_CALL(vips_icc_transform)(__VA_ARGS__)
#define vips_image_get_array_int(...) CVIPS_CALL(vips_image_get_array_int)(__VA_ARGS__)
#define vips_image_get_bands(...) CVIPS_CALL(vips_image_get_bands)(__VA_ARGS__)
#define vips_image_get_blob(...) CVIPS_CALL(vips_image_get_blob)(__VA_ARGS__)
#define vips_image_get_format(...) CVIPS_CALL(vips_image_get_format)(__VA_ARGS__)
#define vips_image_get_height(...) CVIPS_CALL(vips_image_get_height)(__VA_ARGS__)
#define vips_image_get_int(...) CVIPS_CALL(vips_image_get_int)(__VA_ARGS__)
#define vips_image_get_interpretation(...) CVIPS_CALL(vips_image_get_interpretation)(__VA_ARGS__)
#define vips_image_get_orientation(...) CVIPS_CALL(vips_image_get_orientation)(__VA_ARGS__)
#define vips_image_get_page_height(...) CVIPS_CALL(vips_image_get_page_height)(__VA_ARGS__)
#define vips_image_get_typeof(...) CVIPS_CALL(vips_image_get_typeof)(__VA_ARGS__)
#define vips_image_get_width(...) CVIPS_CALL(vips_image_get_width)(__VA_ARGS__)
#define vips_image_hasalpha(...) CVIPS_CALL(vips_image_hasalpha)(__VA_ARGS__)
#define vips_image_new_from_memory(...) CVIPS_CALL(vips_image_new_from_memory)(__VA_ARGS__)
#define vips_image_new_from_memory_copy(...) CVIPS_CALL(vips_image_new_from_memory_copy)(__VA_ARGS__)
#define vips_image_new_matrix_from_array(...) CVIPS_CALL(vips_image_new_matrix_from_array)(__VA_ARGS__)
#define vips_image_new_memory(...) CVIPS_CALL(vips_image_new_memory)(__VA_ARGS__)
#define vips_image_pipelinev(...) CVIPS_CALL(vips_image_pipelinev)(__VA_ARGS__)
#define vips_image_remove(...) CVIPS_CALL(vips_image_remove)(__VA_ARGS__)
#define vips_image_set_array_int(...) CVIPS_CALL(vips_image_set_array_int)(__VA_ARGS__)
#define vips_image_set_blob_copy(...) CVIPS_CALL(vips_image_set_blob_copy)(__VA_ARGS__)
#define vips_image_set_double(...) CVIPS_CALL(vips_image_set_double)(__VA_ARGS__)
#define vips_image_set_int(...) CVIPS_CALL(vips_image_set_int)(__VA_ARGS__)
#define vips_image_write_prepare(...) CVIPS_CALL(vips_image_write_prepare)(__VA_ARGS__)
#define vips_image_write_to_memory(...) CVIPS_CALL(vips_image_write_to_memory)(__VA_ARGS__)
#define vips_init(...) CVIPS_CALL(vips_init)(__VA_ARGS__)
#define vips_insert(...) CVIPS_CALL(vips_insert)(__VA_ARGS__)
#define vips_jpegsave_buffer(...) CVIPS_CALL(vips_jpegsave_buffer)(__VA_ARGS__)
#define vips_linear(...) CVIPS_CALL(vips_linear)(__VA_ARGS__)
#define vips_magicksave_buffer(...) CVIPS_CALL(vips_magicksave_buffer)(__VA_ARGS__)
#define vips_multiply(...) CVIPS_CALL(vips_multiply)(__VA_ARGS__)
#define vips_object_get_type(...) CVIPS_CALL(vips_object_get_type)(__VA_ARGS__)
#define vips_object_unref_outputs(...) CVIPS_CALL(vips_object_unref_outputs)(__VA_ARGS__)
#define vips_operation_new(...) CVIPS_CALL(vips_operation_new)(__VA_ARGS__)
#define vips_pngsave_buffer(...) CVIPS_CALL(vips_pngsave_buffer)(__VA_ARGS__)
#define vips_premultiply(...) CVIPS_CALL(vips_premultiply)(__VA_ARGS__)
#define vips_recomb(...) CVIPS_CALL(vips_recomb)(__VA_ARGS__)
#define vips_region_image(...) CVIPS_CALL(vips_region_image)(__VA_ARGS__)
#define vips_region_new(...) CVIPS_CALL(vips_region_new)(__VA_ARGS__)
#define vips_region_prepare_to(...) CVIPS_CALL(vips_region_prepare_to)(__VA_ARGS__)
#define vips_resize(...) CVIPS_CALL(vips_resize)(__VA_ARGS__)
#define vips_rot(...) CVIPS_CALL(vips_rot)(__VA_ARGS__)
#define vips_rshift_const1(...) CVIPS_CALL(vips_rshift_const1)(__VA_ARGS__)
#define vips_smartcrop(...) CVIPS_CALL(vips_smartcrop)(__VA_ARGS__)
#define vips_svgload_buffer(...) CVIPS_CALL(vips_svgload_buffer)(__VA_ARGS__)
#define vips_thumbnail_buffer(...) CVIPS_CALL(vips_thumbnail_buffer)(__VA_ARGS__)
#define vips_thumbnail_image(...) CVIPS_CALL(vips_thumbnail_image)(__VA_ARGS__)
#define vips_tiffsave_buffer(...) CVIPS_CALL(vips_tiffsave_buffer)(__VA_ARGS__)
#define vips_type_find(...) CVIPS_CALL(vips_type_find)(__VA_ARGS__)
#define vips_unpremultiply(...) CVIPS_CALL(vips_unpremultiply)(__VA_ARGS__)
#define vips_vector_isenabled(...) CVIPS_CALL(vips_vector_isenabled)(__VA_ARGS__)
#define vips_vector_set_enabled(...) CVIPS_CALL(vips_vector_set_enabled)(__VA_ARGS__)
#define vips_version(...) CVIPS_CALL(vips_version)(__VA_ARGS__)
#define vips_version_string(...) CVIPS_CALL(vips_version_string)(__VA_ARGS__)
#define vips_webpsave_buffer(...) CVIPS_CALL(vips_webpsave_buffer)(__VA_ARGS__)

#endif
