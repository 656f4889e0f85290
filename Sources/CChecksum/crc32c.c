#include "CChecksum.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#endif

// The reflected Castagnoli polynomial.
static const uint32_t polynomial = 0x82F63B78u;

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void fill_table(void) {
    for (uint32_t index = 0; index < 256; index++) {
        uint32_t value = index;
        for (int bit = 0; bit < 8; bit++) {
            value = (value & 1) ? (value >> 1) ^ polynomial : value >> 1;
        }
        table[index] = value;
    }
}

static uint32_t update_portable(uint32_t crc, const uint8_t *bytes, size_t length) {
    pthread_once(&table_once, fill_table);
    for (size_t index = 0; index < length; index++) {
        crc = table[(crc ^ bytes[index]) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t update_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length > 0 && ((uintptr_t)bytes & 7) != 0) {
        crc = _mm_crc32_u8(crc, *bytes++);
        length--;
    }
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = _mm_crc32_u64(wide, word);
        bytes += 8;
        length -= 8;
    }
    crc = (uint32_t)wide;
    while (length > 0) {
        crc = _mm_crc32_u8(crc, *bytes++);
        length--;
    }
    return crc;
}

static int has_hardware(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}
#elif defined(__aarch64__)
__attribute__((target("crc"))) static uint32_t update_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    while (length > 0) {
        crc = __crc32cb(crc, *bytes++);
        length--;
    }
    return crc;
}

static int has_hardware(void) {
#ifdef HWCAP_CRC32
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
    return 0;
#endif
}
#else
static uint32_t update_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    return update_portable(crc, bytes, length);
}

static int has_hardware(void) { return 0; }
#endif

static int hardware = -1;
static pthread_once_t hardware_once = PTHREAD_ONCE_INIT;

static void detect_hardware(void) { hardware = has_hardware(); }

uint32_t kf_crc32c(const void *bytes, size_t length) {
    pthread_once(&hardware_once, detect_hardware);
    uint32_t crc = 0xFFFFFFFFu;
    crc = hardware ? update_hardware(crc, bytes, length) : update_portable(crc, bytes, length);
    return crc ^ 0xFFFFFFFFu;
}

uint32_t kf_crc32c_portable(const void *bytes, size_t length) {
    return update_portable(0xFFFFFFFFu, bytes, length) ^ 0xFFFFFFFFu;
}
