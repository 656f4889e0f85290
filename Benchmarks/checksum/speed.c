// Times the disk cache's checksum (Sources/CChecksum) over a buffer the size of the compare corpus.
// Built and run by Benchmarks/checksum-speed.sh.
#include "CChecksum.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    size_t megabytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 128;
    size_t length = megabytes << 20;
    unsigned char *buffer = malloc(length);
    if (!buffer) return 1;
    for (size_t i = 0; i < length; i++) buffer[i] = (unsigned char)(i * 31 + (i >> 13));
    double best = 1e9, best_portable = 1e9;
    uint32_t crc = 0, portable = 0;
    for (int round = 0; round < 5; round++) {
        double start = now();
        crc = kf_crc32c(buffer, length);
        double middle = now();
        portable = kf_crc32c_portable(buffer, length);
        double end = now();
        if (middle - start < best) best = middle - start;
        if (end - middle < best_portable) best_portable = end - middle;
    }
    printf("CRC-32C of %zu MB: %.1f ms (%.1f GB/s); table only: %.1f ms; %s\n", megabytes, best * 1e3,
           length / best / 1e9, best_portable * 1e3, crc == portable ? "same value" : "VALUES DIFFER");
    free(buffer);
    return crc == portable ? 0 : 1;
}
