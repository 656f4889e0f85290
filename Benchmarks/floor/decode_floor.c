// The floor under Kingfisher's decode: libvips called from C, one thread, three ways of computing a JPEG's pixels
// into memory. Built and run by Benchmarks/stage-times.sh:
//   decode_floor FILE ITERATIONS
// Prints the best and mean time per decode over 5 rounds of ITERATIONS for:
//   copy_memory    vips_image_copy_memory (libvips' worker threads), Kingfisher's way before 2026-11-22
//   inline 4 MB    computed on this thread in strips of ~4 MB of output
//   inline 64 KB   computed on this thread in strips of ~64 KB (16 rows at least), Kingfisher's way now
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vips/vips.h>

// Kingfisher's own shim, so "inline" below is exactly the code the library ships (cvips_compute_in_memory).
#include "../../Sources/CVips/CVips.h"

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3 || VIPS_INIT(argv[0])) {
        fprintf(stderr, "usage: decode_floor FILE ITERATIONS\n");
        return 2;
    }
    vips_cache_set_max(0);
    gchar *data;
    gsize length;
    if (!g_file_get_contents(argv[1], &data, &length, NULL)) return 1;
    int iterations = atoi(argv[2]);
    const char *names[3] = {"copy_memory", "inline 4 MB", "inline 64 KB"};
    size_t strips[3] = {0, 4 << 20, 64 << 10};
    double best[3] = {1e9, 1e9, 1e9}, total[3] = {0, 0, 0};
    for (int round = 0; round < 5; round++) {
        for (int way = 0; way < 3; way++) {
            double start = seconds();
            for (int i = 0; i < iterations; i++) {
                VipsImage *loaded = NULL;
                if (vips_jpegload_buffer(data, length, &loaded, "access", VIPS_ACCESS_SEQUENTIAL, NULL)) return 1;
                VipsImage *pixels = way == 0 ? vips_image_copy_memory(loaded) : cvips_compute_in_memory(loaded, strips[way]);
                if (!pixels) return 1;
                g_object_unref(loaded);
                g_object_unref(pixels);
            }
            double each = (seconds() - start) / iterations;
            total[way] += each;
            if (each < best[way]) best[way] = each;
        }
    }
    for (int way = 0; way < 3; way++) {
        printf("%-13s best %6.1f us, mean %6.1f us\n", names[way], best[way] * 1e6, total[way] / 5 * 1e6);
    }
    return 0;
}
