// The floor under a cold `kf serve` request: the CPU libvips itself needs to make the same result from the same
// original bytes, called from C on one thread. Built and run by Benchmarks/serve-floor.sh:
//   serve_floor MODE REQUESTS START FILE...
// Request i (from START, as Benchmarks/serve-vs-thumbor.sh's wrk script numbers them) takes photo i % FILES, JPEG or
// WebP by turns, at the width 256 - (i / (2 x FILES)) % 250 inside a height of 256 (what `fit-in/WxH` asks), then
// the encode at quality 80 with the metadata stripped. MODE says how the photo shrinks:
//   thumbnail  vips_thumbnail_buffer, libvips' own thumbnail (it leaves at least a factor of 2 to its resize)
//   shrink     libjpeg's DCT scaling to the smallest 1/2, 1/4 or 1/8 that still covers the box, then
//              vips_thumbnail_image: the least decoding libvips can do for the same result
// The files are read into memory first (kf serve's originals are in its disk cache, in the page cache).
// Prints one line per format: requests, CPU milliseconds per request (the process's), output bytes per request.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <vips/vips.h>

static double process_cpu_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 5 || VIPS_INIT(argv[0])) {
        fprintf(stderr, "usage: serve_floor thumbnail|shrink REQUESTS START FILE...\n");
        return 2;
    }
    int shrink_mode = strcmp(argv[1], "shrink") == 0;
    argv++;
    argc--;
    // One worker: the process's CPU clock then counts all of it, without the overhead of idle parallelism.
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    long requests = atol(argv[1]), start = atol(argv[2]);
    int files = argc - 3;
    gchar **data = g_new(gchar *, files);
    gsize *lengths = g_new(gsize, files);
    for (int f = 0; f < files; f++) {
        if (!g_file_get_contents(argv[3 + f], &data[f], &lengths[f], NULL)) return 1;
    }
    double cpu[2] = {0, 0};
    double bytes[2] = {0, 0};
    long counts[2] = {0, 0};
    for (long n = 0; n < requests; n++) {
        long i = start + n;
        int photo = (int)(i % files);
        int webp = (int)((i / files) % 2);
        int width = 256 - (int)((i / (2L * files)) % 250);
        double before = process_cpu_ms();
        VipsImage *thumbnail = NULL;
        int failed;
        if (shrink_mode) {
            VipsImage *header = NULL, *loaded = NULL;
            failed = vips_jpegload_buffer(data[photo], lengths[photo], &header, NULL);
            int shrink = 1;
            if (!failed) {
                // The box's scale for this photo, and the largest DCT scaling that keeps the photo at least that big.
                double scale = fmin((double)width / header->Xsize, 256.0 / header->Ysize);
                while (shrink < 8 && scale * shrink * 2 <= 1.0) shrink *= 2;
                g_object_unref(header);
                failed = vips_jpegload_buffer(data[photo], lengths[photo], &loaded, "shrink", shrink, "access",
                                              VIPS_ACCESS_SEQUENTIAL, NULL);
            }
            if (!failed) {
                failed = vips_thumbnail_image(loaded, &thumbnail, width, "height", 256, "size", VIPS_SIZE_DOWN, NULL);
                g_object_unref(loaded);
            }
        } else {
            failed = vips_thumbnail_buffer(data[photo], lengths[photo], &thumbnail, width, "height", 256, "size",
                                           VIPS_SIZE_DOWN, NULL);
        }
        if (failed) {
            fprintf(stderr, "%s: %s\n", argv[3 + photo], vips_error_buffer());
            return 1;
        }
        void *out = NULL;
        size_t length = 0;
        failed = webp ? vips_webpsave_buffer(thumbnail, &out, &length, "Q", 80, "strip", TRUE, NULL)
                          : vips_jpegsave_buffer(thumbnail, &out, &length, "Q", 80, "strip", TRUE, NULL);
        if (failed) {
            fprintf(stderr, "%s: %s\n", argv[3 + photo], vips_error_buffer());
            return 1;
        }
        g_object_unref(thumbnail);
        g_free(out);
        cpu[webp] += process_cpu_ms() - before;
        bytes[webp] += length;
        counts[webp]++;
    }
    const char *names[2] = {"jpeg", "webp"};
    for (int k = 0; k < 2; k++) {
        if (counts[k] == 0) continue;
        printf("%s\t%ld\t%.2f\t%.0f\n", names[k], counts[k], cpu[k] / counts[k], bytes[k] / counts[k]);
    }
    printf("all\t%ld\t%.2f\t%.0f\n", counts[0] + counts[1], (cpu[0] + cpu[1]) / (counts[0] + counts[1]),
           (bytes[0] + bytes[1]) / (counts[0] + counts[1]));
    return 0;
}
