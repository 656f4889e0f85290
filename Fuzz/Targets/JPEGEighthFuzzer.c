// libFuzzer entry for kf_jpeg_eighth_decode (Sources/CJPEGEighth, compiled alone with this file).
//
// Beyond "no crash" (AddressSanitizer sees every read and write, the input being libFuzzer's own buffer):
// - a decode succeeds or says UNSUPPORTED, and never leaves pixels behind when it does not succeed;
// - its image is 1 or 3 bands of at least 1 x 1 pixels, all of them readable;
// - the same bytes decode to the same pixels again;
// - a bound on the output's pixels below what it made gives TOO_LARGE.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "CJPEGEighth.h"

#define CHECK(condition) \
    do { \
        if (!(condition)) abort(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *pixels = NULL;
    int width = 0, height = 0, bands = 0;
    int status = kf_jpeg_eighth_decode(data, size, 0, &pixels, &width, &height, &bands);
    if (status != KF_JPEG_EIGHTH_OK) {
        CHECK(status == KF_JPEG_EIGHTH_UNSUPPORTED || status == KF_JPEG_EIGHTH_TOO_LARGE);
        CHECK(pixels == NULL);
        return 0;
    }
    CHECK(pixels != NULL && width >= 1 && height >= 1 && (bands == 1 || bands == 3));
    size_t count = (size_t)width * height * bands;
    unsigned sum = 0;
    for (size_t i = 0; i < count; i++) sum += pixels[i];
    (void)sum;

    uint8_t *again = NULL;
    int width2 = 0, height2 = 0, bands2 = 0;
    CHECK(kf_jpeg_eighth_decode(data, size, 0, &again, &width2, &height2, &bands2) == KF_JPEG_EIGHTH_OK);
    CHECK(width2 == width && height2 == height && bands2 == bands && memcmp(again, pixels, count) == 0);
    free(again);

    uint64_t made = (uint64_t)width * height;
    if (made > 1) {
        uint8_t *bounded = NULL;
        CHECK(kf_jpeg_eighth_decode(data, size, made - 1, &bounded, &width2, &height2, &bands2) ==
              KF_JPEG_EIGHTH_TOO_LARGE);
        CHECK(bounded == NULL);
    }
    free(pixels);
    return 0;
}
