// A JPEG at 1/8 scale from its DC coefficients (see include/CJPEGEighth.h).
//
// Baseline files: one scan, every block's AC codes skipped (or, for 4:2:0 chroma, decoded). Progressive files whose
// components all need only their DC at 1/8 (no 4:2:0 chroma): the DC scans are decoded, first and refinements, and
// the AC scans are passed over to their next marker without reading a code (libjpeg reads them all, into a
// coefficient buffer of the whole image it zeroes first: 44 MB for a 5120 x 2880 photo).
//
// The entropy-coded data is first copied without its stuffed zero bytes, one segment per restart interval, so that
// the bit reader can take 64 bits at any position with one load. An AC code is then skipped with one table lookup:
// for every code of up to LOOKUP_BITS bits the table holds the code's length plus the length of the value bits
// after it, and how far the symbol moves through the block (run + 1; 64 for end-of-block), which libjpeg's decoder
// takes as many steps to learn (it decodes each value). Longer codes are decoded the canonical way.
//
// Every read stays inside buffers this file allocated: the copied data is followed by enough zero bytes for the
// longest MCU the decoder can read before checking its position, and a segment that was read past its end, a
// code no table has, a marker out of place or a value out of range ends the decode with UNSUPPORTED, never with
// pixels (libjpeg then decodes the file and reports what is wrong).
#include "CJPEGEighth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOOKUP_BITS 11
#define LOOKUP_SIZE (1 << LOOKUP_BITS)
#define RUN_BITS 12
#define RUN_SIZE (1 << RUN_BITS)
// 10 blocks per MCU at most, 64 codes per block, 16 + 16 bits per code at most: what one MCU may read.
#define MCU_READ_LIMIT_BYTES (10 * 64 * 32 / 8)
#define PADDING_BYTES (MCU_READ_LIMIT_BYTES + 16)

typedef struct {
    int defined;
    uint8_t symbols[256];
    // Canonical decoding of codes longer than LOOKUP_BITS: the largest code of each length (-1: none), and where
    // that length's symbols start.
    int32_t max_code[17];
    int32_t first_code[17];
    int32_t first_symbol[17];
    // (length << 8) | symbol for codes of up to LOOKUP_BITS bits, 0 for longer ones.
    uint16_t fast[LOOKUP_SIZE];
    // AC: (code length + value bits) << 8 | steps through the block (run + 1, or 64 at the end of the block); 0 for
    // longer codes and for symbols baseline JPEG does not define.
    uint16_t ac_skip[LOOKUP_SIZE];
    // AC, several codes at once: every whole code (with its value bits) that fits in the next RUN_BITS bits, up to an
    // end-of-block. Bits 0-3: the bits they take (0: not even one fits); bits 4-10: their steps through the block
    // (run + 1 each, 16 for a run of zeros); bit 11: they end with an end-of-block.
    uint16_t ac_run[RUN_SIZE];
} HuffmanTable;

typedef struct {
    int id;
    int h, v;
    int quant_table;
    int dc_table, ac_table;
    int in_scan;
    // Samples per block across and down: 1 (the DC), or 2 for the chroma of 4:2:0, which libjpeg decodes at 1/8
    // scale with a 2 x 2 inverse DCT instead of upsampling it.
    int samples_per_block;
    // Blocks across and down in the scan's MCUs (padded to whole MCUs), and one sample per block.
    int blocks_wide, blocks_high;
    uint8_t *samples;
    // Progressive files: each block's DC coefficient as the scans so far sent it, and the bit the last DC scan
    // stopped at (-1: no DC scan yet).
    int32_t *dc;
    int dc_bits;
    // Progressive files: the bit each AC coefficient's last scan stopped at (-1: not sent yet). At 1/8 only the DC
    // is read, but libjpeg smooths the blocks of a file that never sends some AC coefficients to full precision
    // (a preview, a file cut at a scan boundary), DC included: such a file is left to libjpeg.
    int8_t ac_bits[64];
} Component;

// One scan's header: its components (indices into the frame's), their DC tables, spectral selection and successive
// approximation.
typedef struct {
    int count;
    int components[4];
    int start, end, high, low;
} Scan;

typedef struct {
    HuffmanTable dc[4], ac[4];
    int quant_defined[4];
    // In zig-zag order, as the coefficients come.
    int32_t quant[4][64];
    int width, height, precision, frame_seen, progressive, scans_started;
    // Only the headers are read (kf_jpeg_eighth_takes_frame): Huffman tables are checked, their lookups not built.
    int headers_only;
    int component_count;
    Component components[4];
    int restart_interval;
    int adobe_transform; // -1: no Adobe segment
    // For components with 2 x 2 samples per block: each coefficient's share (zig-zag order, dequantised) of the
    // mean of each 4 x 4 quarter of the block, which is what libjpeg's 2 x 2 inverse DCT computes.
    float quarter_weights[4][4][64];
    int has_jfif;
} Decoder;

static inline int read16(const uint8_t *p) { return (p[0] << 8) | p[1]; }

static inline uint64_t peek64(const uint8_t *buffer, uint64_t bit) {
    uint64_t value;
    memcpy(&value, buffer + (bit >> 3), 8);
    return __builtin_bswap64(value) << (bit & 7);
}

// The code at the top of `window` (of `available` bits): its symbol and length, or 0 when no code of up to
// `available` bits is there.
static int code_at(const HuffmanTable *table, const uint8_t *counts, uint32_t window, int available, int *symbol) {
    for (int length = 1; length <= available; length++) {
        if (!counts[length - 1]) continue;
        int32_t code = (int32_t)(window >> (available - length));
        if (code <= table->max_code[length] && code >= table->first_code[length]) {
            *symbol = table->symbols[table->first_symbol[length] + code - table->first_code[length]];
            return length;
        }
    }
    return 0;
}

static void build_runs(HuffmanTable *table, const uint8_t *counts) {
    for (uint32_t window = 0; window < RUN_SIZE; window++) {
        int used = 0, steps = 0, ends = 0;
        while (used < RUN_BITS && steps < 64) {
            int available = RUN_BITS - used, symbol;
            uint32_t rest = window & ((1u << available) - 1);
            int length = code_at(table, counts, rest, available, &symbol);
            if (!length) break;
            int run = symbol >> 4, size = symbol & 15;
            if (size == 0 && run == 0) {
                used += length;
                ends = 1;
                break;
            }
            if (size == 0 && run != 15) break;
            if (length + size > available) break;
            used += length + size;
            steps += size ? run + 1 : 16;
        }
        table->ac_run[window] = used ? (uint16_t)(used | (steps << 4) | (ends << 11)) : 0;
    }
}

// Builds a table from a DHT's 16 counts and its symbols (its lookups only when `lookups`); 0 when the counts
// over-fill the code space.
static int build_table(HuffmanTable *table, const uint8_t *counts, const uint8_t *symbols, int symbol_count,
                       int is_ac, int lookups) {
    memset(table, 0, sizeof(*table));
    memcpy(table->symbols, symbols, (size_t)symbol_count);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        int count = counts[length - 1];
        table->first_symbol[length] = index;
        table->first_code[length] = code;
        for (int i = 0; i < count; i++, index++, code++) {
            if (code >= (1 << length)) return 0;
            if (!lookups || length > LOOKUP_BITS) continue;
            uint8_t symbol = symbols[index];
            uint16_t entry = 0;
            if (is_ac) {
                int run = symbol >> 4, size = symbol & 15;
                if (size == 0 && run == 0) entry = (uint16_t)((length << 8) | 64);
                else if (size == 0 && run == 15) entry = (uint16_t)((length << 8) | 16);
                else if (size == 0) entry = 0; // undefined in baseline: the slow path refuses it
                else entry = (uint16_t)(((length + size) << 8) | (run + 1));
            }
            int shift = LOOKUP_BITS - length;
            for (int fill = code << shift; fill < (code + 1) << shift; fill++) {
                table->fast[fill] = (uint16_t)((length << 8) | symbol);
                if (is_ac) table->ac_skip[fill] = entry;
            }
        }
        table->max_code[length] = count ? code - 1 : -1;
        code <<= 1;
    }
    if (is_ac && lookups) build_runs(table, counts);
    table->defined = 1;
    return 1;
}

// The symbol of the code at `*bit` (canonically, for codes of any length), and moves past the code; -1 if none.
static int decode_slow(const HuffmanTable *table, const uint8_t *buffer, uint64_t *bit) {
    uint32_t bits = (uint32_t)(peek64(buffer, *bit) >> 48);
    for (int length = 1; length <= 16; length++) {
        int32_t code = (int32_t)(bits >> (16 - length));
        if (table->max_code[length] >= 0 && code <= table->max_code[length] && code >= table->first_code[length]) {
            *bit += (uint64_t)length;
            return table->symbols[table->first_symbol[length] + code - table->first_code[length]];
        }
    }
    return -1;
}

// Reads the DC difference of one block; returns 0 on a code no table has.
static inline int read_dc(const HuffmanTable *table, const uint8_t *buffer, uint64_t *bit, int32_t *difference) {
    uint64_t window = peek64(buffer, *bit);
    uint16_t entry = table->fast[window >> (64 - LOOKUP_BITS)];
    int size;
    if (entry) {
        *bit += entry >> 8;
        size = entry & 0xFF;
    } else {
        size = decode_slow(table, buffer, bit);
        if (size < 0) return 0;
    }
    if (size > 11) return 0;
    if (size == 0) {
        *difference = 0;
        return 1;
    }
    uint32_t value = (uint32_t)(peek64(buffer, *bit) >> (64 - size));
    *bit += (uint64_t)size;
    // A value whose top bit is clear stands for a negative difference.
    *difference = (value >> (size - 1)) ? (int32_t)value : (int32_t)value - (int32_t)((1u << size) - 1);
    return 1;
}

// Skips the 63 AC coefficients of one block; returns 0 on a code no table has or a symbol baseline does not define.
static inline int skip_ac(const HuffmanTable *table, const uint8_t *buffer, uint64_t *bit) {
    uint64_t position = *bit;
    // The 57 or more bits from `position` on, and how many of them the codes below took: reloaded before fewer
    // than 27 (the longest code with its value bits) are left.
    uint64_t window = peek64(buffer, position);
    int used = 0;
    int k = 1;
    while (k < 64) {
        if (used > 30) {
            position += (uint64_t)used;
            window = peek64(buffer, position);
            used = 0;
        }
        uint16_t many = table->ac_run[(window << used) >> (64 - RUN_BITS)];
        int steps = (many >> 4) & 127;
        // Whole codes at once while the block cannot end inside them (each code is read only while k < 64).
        if (many && k + steps < 64) {
            used += many & 15;
            k += steps;
            if (many & 0x800) break;
            continue;
        }
        uint16_t entry = table->ac_skip[(window << used) >> (64 - LOOKUP_BITS)];
        if (entry) {
            used += entry >> 8;
            k += entry & 0xFF;
            continue;
        }
        position += (uint64_t)used;
        used = 0;
        int symbol = decode_slow(table, buffer, &position);
        if (symbol < 0) return 0;
        int run = symbol >> 4, size = symbol & 15;
        if (size == 0) {
            if (run == 0) break;
            if (run != 15) return 0;
            k += 16;
        } else {
            position += (uint64_t)size;
            k += run + 1;
        }
        window = peek64(buffer, position);
    }
    *bit = position + (uint64_t)used;
    return 1;
}

// Decodes the 63 AC coefficients of one block and adds each one's share to the means of the block's quarters.
static inline int decode_ac_quarters(const HuffmanTable *table, const uint8_t *buffer, uint64_t *bit,
                                     float (*weights)[64], float *sums) {
    uint64_t position = *bit;
    for (int k = 1; k < 64; k++) {
        uint16_t entry = table->fast[peek64(buffer, position) >> (64 - LOOKUP_BITS)];
        int symbol;
        if (entry) {
            position += entry >> 8;
            symbol = entry & 0xFF;
        } else {
            symbol = decode_slow(table, buffer, &position);
            if (symbol < 0) return 0;
        }
        int run = symbol >> 4, size = symbol & 15;
        if (size == 0) {
            if (run == 0) break;
            if (run != 15) return 0;
            k += 15;
            continue;
        }
        uint32_t value = (uint32_t)(peek64(buffer, position) >> (64 - size));
        position += (uint64_t)size;
        int32_t coefficient = (value >> (size - 1)) ? (int32_t)value : (int32_t)value - (int32_t)((1u << size) - 1);
        // A run past the last coefficient lands on it, as in libjpeg; the block then ends.
        k += run;
        if (k > 63) k = 63;
        for (int quarter = 0; quarter < 4; quarter++) sums[quarter] += (float)coefficient * weights[quarter][k];
    }
    *bit = position;
    return 1;
}

// The weights decode_ac_quarters uses for a quantisation table. An 8 x 8 inverse DCT averaged over a 4 x 4 quarter
// keeps only the frequencies 0, 1, 3, 5 and 7 in each direction (the even ones sum to zero over four samples).
static void make_quarter_weights(float (*weights)[64], const int32_t *quant) {
    static const uint8_t zigzag[64] = {
        0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
        41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
        30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};
    double mean_cos[2][8];
    for (int frequency = 0; frequency < 8; frequency++) {
        for (int half = 0; half < 2; half++) {
            double sum = 0;
            for (int x = 4 * half; x < 4 * half + 4; x++) sum += cos((2 * x + 1) * frequency * M_PI / 16);
            mean_cos[half][frequency] = sum / 4;
        }
    }
    for (int k = 0; k < 64; k++) {
        int u = zigzag[k] % 8, v = zigzag[k] / 8;
        double cu = u ? 1 : M_SQRT1_2, cv = v ? 1 : M_SQRT1_2;
        for (int quarter = 0; quarter < 4; quarter++) {
            double share = cu * cv / 4 * mean_cos[quarter & 1][u] * mean_cos[quarter >> 1][v];
            weights[quarter][k] = (float)(share * quant[k]);
        }
    }
}

static inline uint8_t clamp_sample(int32_t value) {
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

// Reads the segments from `p` (a marker) up to the next scan or the end of the image; returns a pointer to that
// marker, or NULL on a segment this decoder does not take or doubts.
static const uint8_t *read_segments(Decoder *d, const uint8_t *p, const uint8_t *end) {
    for (;;) {
        if (end - p < 2 || p[0] != 0xFF) return NULL;
        while (end - p >= 2 && p[1] == 0xFF) p++; // fill bytes before a marker
        if (end - p < 2) return NULL;
        int marker = p[1];
        if (marker == 0xDA || marker == 0xD9) return d->frame_seen ? p : NULL;
        if (end - p < 4) return NULL;
        int segment = read16(p + 2);
        if (segment < 2 || end - p < 2 + segment) return NULL;
        const uint8_t *body = p + 4;
        int body_length = segment - 2;
        switch (marker) {
        case 0xC0:
        case 0xC1:   // baseline, extended sequential (Huffman)
        case 0xC2: { // progressive (Huffman)
            if (d->frame_seen || body_length < 6) return NULL;
            d->frame_seen = 1;
            d->progressive = marker == 0xC2;
            d->precision = body[0];
            d->height = read16(body + 1);
            d->width = read16(body + 3);
            d->component_count = body[5];
            if (d->precision != 8 || d->width == 0 || d->height == 0) return NULL;
            if (d->component_count != 1 && d->component_count != 3) return NULL;
            if (body_length != 6 + 3 * d->component_count) return NULL;
            for (int c = 0; c < d->component_count; c++) {
                Component *component = &d->components[c];
                component->id = body[6 + 3 * c];
                component->h = body[7 + 3 * c] >> 4;
                component->v = body[7 + 3 * c] & 15;
                component->quant_table = body[8 + 3 * c];
                if (component->h < 1 || component->h > 4 || component->v < 1 || component->v > 4) return NULL;
                if (component->quant_table > 3) return NULL;
                for (int other = 0; other < c; other++) {
                    if (d->components[other].id == component->id) return NULL;
                }
            }
            break;
        }
        case 0xC4: { // Huffman tables
            const uint8_t *q = body, *stop = body + body_length;
            while (q < stop) {
                if (stop - q < 17) return NULL;
                int table_class = q[0] >> 4, id = q[0] & 15;
                if (table_class > 1 || id > 3) return NULL;
                int count = 0;
                for (int i = 0; i < 16; i++) count += q[1 + i];
                if (count > 256 || stop - q < 17 + count) return NULL;
                HuffmanTable *table = table_class ? &d->ac[id] : &d->dc[id];
                if (!build_table(table, q + 1, q + 17, count, table_class, !d->headers_only)) return NULL;
                q += 17 + count;
            }
            break;
        }
        case 0xDB: { // quantisation tables
            // libjpeg keeps a component's table from its first scan on: a table changed later is refused here.
            if (d->scans_started) return NULL;
            const uint8_t *q = body, *stop = body + body_length;
            while (q < stop) {
                int wide = q[0] >> 4, id = q[0] & 15;
                int size = wide ? 128 : 64;
                if (wide > 1 || id > 3 || stop - q < 1 + size) return NULL;
                for (int k = 0; k < 64; k++) d->quant[id][k] = wide ? read16(q + 1 + 2 * k) : q[1 + k];
                d->quant_defined[id] = 1;
                q += 1 + size;
            }
            break;
        }
        case 0xDD: // restart interval
            if (body_length != 2) return NULL;
            d->restart_interval = read16(body);
            break;
        case 0xE0: // JFIF
            if (body_length >= 5 && memcmp(body, "JFIF\0", 5) == 0) d->has_jfif = 1;
            break;
        case 0xEE: // Adobe: its transform flag says whether three components are YCbCr
            if (body_length >= 12 && memcmp(body, "Adobe", 5) == 0) d->adobe_transform = body[11];
            break;
        default:
            // Any other frame type (lossless, arithmetic, hierarchical) or a marker without a length.
            if ((marker >= 0xC3 && marker <= 0xCF) || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) ||
                marker == 0x01) {
                return NULL;
            }
            break;
        }
        p += 2 + segment;
    }
}

// Reads the scan header at `p` (its SOS marker) into `scan`, checking it as libjpeg does before it reads the scan
// (an error there fails libjpeg's whole decode); returns a pointer to the scan's entropy-coded data, or NULL.
static const uint8_t *read_scan_header(Decoder *d, const uint8_t *p, const uint8_t *end, Scan *scan) {
    if (end - p < 4) return NULL;
    int segment = read16(p + 2);
    if (segment < 3 || end - p < 2 + segment) return NULL;
    const uint8_t *body = p + 4;
    int count = body[0];
    if (count < 1 || count > d->component_count || segment != 6 + 2 * count) return NULL;
    memset(scan, 0, sizeof(*scan));
    scan->count = count;
    for (int i = 0; i < count; i++) {
        int id = body[1 + 2 * i], tables = body[2 + 2 * i];
        int found = -1;
        for (int c = 0; c < d->component_count; c++) {
            if (d->components[c].id == id) found = c;
        }
        for (int other = 0; other < i; other++) {
            if (scan->components[other] == found) found = -1;
        }
        if (found < 0) return NULL;
        Component *component = &d->components[found];
        scan->components[i] = found;
        component->dc_table = tables >> 4;
        component->ac_table = tables & 15;
        if (component->dc_table > 3 || component->ac_table > 3) return NULL;
        if (!d->quant_defined[component->quant_table]) return NULL;
    }
    const uint8_t *selection = body + 1 + 2 * count;
    scan->start = selection[0];
    scan->end = selection[1];
    scan->high = selection[2] >> 4;
    scan->low = selection[2] & 15;
    for (int i = 0; i < count; i++) {
        const Component *component = &d->components[scan->components[i]];
        int needs_dc = scan->start == 0 && scan->high == 0, needs_ac = scan->start > 0 || !d->progressive;
        if (needs_dc && !d->dc[component->dc_table].defined) return NULL;
        if (needs_ac && !d->ac[component->ac_table].defined) return NULL;
    }
    if (!d->progressive) {
        if (count != d->component_count || scan->start != 0 || scan->end != 63 || scan->high || scan->low) {
            return NULL;
        }
    } else {
        // libjpeg's "bad progression" errors.
        int dc = scan->start == 0;
        if (dc ? scan->end != 0 : (scan->end < scan->start || scan->end > 63 || count != 1)) return NULL;
        if ((scan->high && scan->low != scan->high - 1) || scan->low > 13) return NULL;
    }
    d->scans_started = 1;
    return body + segment - 2;
}

// The marker that ends the entropy-coded data from `p` (stuffed bytes and restart markers are part of it), or NULL
// when the data runs out first.
static const uint8_t *skip_entropy_data(const uint8_t *p, const uint8_t *end) {
    for (;;) {
        const uint8_t *mark = memchr(p, 0xFF, (size_t)(end - p));
        if (!mark || end - mark < 2) return NULL;
        int code = mark[1];
        if (code == 0x00 || (code >= 0xD0 && code <= 0xD7)) {
            p = mark + 2;
            continue;
        }
        if (code == 0xFF) {
            p = mark + 1;
            continue;
        }
        return mark;
    }
}

// Copies the entropy-coded data without stuffed bytes; each restart interval starts a segment at a byte boundary.
// Returns the buffer (padded with zero bytes) and fills the segments' ends, or NULL on a marker out of place or
// data cut short.
static uint8_t *unstuff(const uint8_t *p, const uint8_t *end, size_t expected_segments, size_t *segment_ends,
                        const uint8_t **marker) {
    size_t capacity = (size_t)(end - p) + PADDING_BYTES;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) return NULL;
    size_t out = 0, segment = 0;
    int next_restart = 0;
    for (;;) {
        const uint8_t *mark = memchr(p, 0xFF, (size_t)(end - p));
        if (!mark) break; // cut short: no marker ends the scan
        memcpy(buffer + out, p, (size_t)(mark - p));
        out += (size_t)(mark - p);
        p = mark + 1;
        while (p < end && *p == 0xFF) p++;
        if (p >= end) break;
        int code = *p++;
        if (code == 0x00) {
            buffer[out++] = 0xFF;
            continue;
        }
        if (code >= 0xD0 && code <= 0xD7) {
            if (code != 0xD0 + next_restart || segment + 1 >= expected_segments) break;
            next_restart = (next_restart + 1) & 7;
            segment_ends[segment++] = out;
            continue;
        }
        // Any other marker ends the scan: it must end the last segment.
        if (segment + 1 != expected_segments) break;
        segment_ends[segment] = out;
        *marker = p - 2;
        memset(buffer + out, 0, PADDING_BYTES);
        return buffer;
    }
    free(buffer);
    return NULL;
}

// Before each unit (MCU, or block of a one-component scan): at the start of a restart interval after the first,
// checks the last interval read no further than its segment, moves to the next segment's start and resets the DC
// predictions. 0 if the last interval read past its end.
static inline int next_unit(const Decoder *d, const size_t *segment_ends, size_t *segment, uint64_t *bit,
                            long *left_in_interval, int32_t *predictions) {
    if (d->restart_interval && *left_in_interval == 0) {
        if (*bit > (uint64_t)segment_ends[*segment] * 8) return 0;
        *bit = (uint64_t)segment_ends[*segment] * 8;
        (*segment)++;
        *left_in_interval = d->restart_interval;
        memset(predictions, 0, 4 * sizeof(int32_t));
    }
    (*left_in_interval)--;
    return 1;
}

// Decodes every MCU into each component's samples; 0 if the data is not what the headers say.
static int decode_scan(Decoder *d, const uint8_t *buffer, const size_t *segment_ends, int mcus_wide, int mcus_high) {
    int32_t predictions[4] = {0, 0, 0, 0};
    uint64_t bit = 0;
    size_t segment = 0;
    long mcus = (long)mcus_wide * mcus_high, left_in_interval = d->restart_interval;
    for (long mcu = 0; mcu < mcus; mcu++) {
        if (!next_unit(d, segment_ends, &segment, &bit, &left_in_interval, predictions)) return 0;
        int mcu_x = (int)(mcu % mcus_wide), mcu_y = (int)(mcu / mcus_wide);
        for (int c = 0; c < d->component_count; c++) {
            Component *component = &d->components[c];
            const HuffmanTable *dc = &d->dc[component->dc_table], *ac = &d->ac[component->ac_table];
            int32_t quant = d->quant[component->quant_table][0];
            int blocks_h = d->component_count == 1 ? 1 : component->h;
            int blocks_v = d->component_count == 1 ? 1 : component->v;
            int per_block = component->samples_per_block, row_length = component->blocks_wide * per_block;
            for (int by = 0; by < blocks_v; by++) {
                for (int bx = 0; bx < blocks_h; bx++) {
                    int32_t difference;
                    if (!read_dc(dc, buffer, &bit, &difference)) return 0;
                    predictions[c] += difference;
                    if (predictions[c] < -32768 || predictions[c] > 32767) return 0;
                    size_t x = (size_t)mcu_x * blocks_h + bx, y = (size_t)mcu_y * blocks_v + by;
                    if (per_block == 1) {
                        if (!skip_ac(ac, buffer, &bit)) return 0;
                        // libjpeg's 1 x 1 inverse DCT: the dequantised DC over 8, rounded, plus the centre sample.
                        int64_t value = (((int64_t)predictions[c] * quant + 4) >> 3) + 128;
                        component->samples[y * row_length + x] = value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
                    } else {
                        float (*weights)[64] = d->quarter_weights[component->quant_table];
                        float sums[4];
                        for (int quarter = 0; quarter < 4; quarter++) {
                            sums[quarter] = (float)predictions[c] * weights[quarter][0];
                        }
                        if (!decode_ac_quarters(ac, buffer, &bit, weights, sums)) return 0;
                        for (int quarter = 0; quarter < 4; quarter++) {
                            float value = floorf(sums[quarter] + 128.5f);
                            uint8_t sample = value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
                            size_t row = 2 * y + (size_t)(quarter >> 1), column = 2 * x + (size_t)(quarter & 1);
                            component->samples[row * row_length + column] = sample;
                        }
                    }
                }
            }
        }
        if (bit > (uint64_t)segment_ends[segment] * 8) return 0;
    }
    return segment + 1 == (size_t)(d->restart_interval ? (mcus + d->restart_interval - 1) / d->restart_interval : 1);
}

// Decodes one DC scan of a progressive file into its components' DC coefficients: the first (`high` 0: a difference
// from the previous block's, point-transformed by `low` bits) or a refinement (one more bit of each). One component:
// its blocks in raster order; several: whole MCUs. 0 if the data is not what the headers say.
static int decode_dc_scan(Decoder *d, const Scan *scan, const uint8_t *buffer, const size_t *segment_ends,
                          size_t segments, int mcus_wide, int mcus_high, int max_h, int max_v) {
    int32_t predictions[4] = {0, 0, 0, 0};
    uint64_t bit = 0;
    size_t segment = 0;
    int units_wide = mcus_wide, units_high = mcus_high;
    if (scan->count == 1) {
        const Component *component = &d->components[scan->components[0]];
        int width = (d->width * component->h + max_h - 1) / max_h;
        int height = (d->height * component->v + max_v - 1) / max_v;
        units_wide = (width + 7) / 8;
        units_high = (height + 7) / 8;
    }
    long units = (long)units_wide * units_high, left_in_interval = d->restart_interval;
    for (long unit = 0; unit < units; unit++) {
        if (!next_unit(d, segment_ends, &segment, &bit, &left_in_interval, predictions)) return 0;
        int unit_x = (int)(unit % units_wide), unit_y = (int)(unit / units_wide);
        for (int i = 0; i < scan->count; i++) {
            Component *component = &d->components[scan->components[i]];
            int blocks_h = scan->count == 1 ? 1 : component->h, blocks_v = scan->count == 1 ? 1 : component->v;
            for (int by = 0; by < blocks_v; by++) {
                for (int bx = 0; bx < blocks_h; bx++) {
                    size_t x = (size_t)unit_x * blocks_h + bx, y = (size_t)unit_y * blocks_v + by;
                    int32_t *coefficient = &component->dc[y * component->blocks_wide + x];
                    if (scan->high == 0) {
                        int32_t difference;
                        if (!read_dc(&d->dc[component->dc_table], buffer, &bit, &difference)) return 0;
                        predictions[i] += difference;
                        if (predictions[i] < -32768 || predictions[i] > 32767) return 0;
                        *coefficient = predictions[i] * (1 << scan->low);
                    } else {
                        if (peek64(buffer, bit) >> 63) *coefficient |= 1 << scan->low;
                        bit++;
                    }
                }
            }
        }
        if (bit > (uint64_t)segment_ends[segment] * 8) return 0;
    }
    return segment + 1 == segments;
}

// A component's samples at the output's size, each repeated `factor_h` times across and `factor_v` times down (at
// 1/8 scale libjpeg upsamples without its triangle filter).
static uint8_t *upsample(const Component *component, int factor_h, int factor_v, int out_width, int out_height) {
    uint8_t *plane = malloc((size_t)out_width * out_height);
    if (!plane) return NULL;
    int in_width = component->blocks_wide * component->samples_per_block;
    int in_height = component->blocks_high * component->samples_per_block;
    for (int y = 0; y < out_height; y++) {
        int source_row = y / factor_v < in_height ? y / factor_v : in_height - 1;
        const uint8_t *in = component->samples + (size_t)source_row * in_width;
        uint8_t *out = plane + (size_t)y * out_width;
        if (factor_h == 1) {
            memcpy(out, in, (size_t)(out_width < in_width ? out_width : in_width));
            continue;
        }
        for (int x = 0; x < out_width; x++) out[x] = in[x / factor_h < in_width ? x / factor_h : in_width - 1];
    }
    return plane;
}

// Fills each component's samples from a baseline file's one scan at `p` (its SOS marker); 0 if it cannot.
static int decode_baseline(Decoder *d, const uint8_t *p, const uint8_t *end, int mcus_wide, int mcus_high) {
    Scan scan;
    const uint8_t *data = read_scan_header(d, p, end, &scan);
    if (!data) return 0;
    long mcus = (long)mcus_wide * mcus_high;
    size_t segments = d->restart_interval ? (size_t)((mcus + d->restart_interval - 1) / d->restart_interval) : 1;
    size_t *segment_ends = malloc(segments * sizeof(size_t));
    const uint8_t *marker = NULL;
    uint8_t *buffer = segment_ends ? unstuff(data, end, segments, segment_ends, &marker) : NULL;
    int decoded = buffer && decode_scan(d, buffer, segment_ends, mcus_wide, mcus_high);
    free(buffer);
    free(segment_ends);
    return decoded;
}

// Fills each component's samples from a progressive file's scans, from the first at `p` to the end of the image:
// the DC scans decoded, the AC scans passed over; 0 if it cannot.
static int decode_progressive(Decoder *d, const uint8_t *p, const uint8_t *end, int mcus_wide, int mcus_high,
                              int max_h, int max_v) {
    for (int c = 0; c < d->component_count; c++) {
        Component *component = &d->components[c];
        component->dc = calloc((size_t)component->blocks_wide * component->blocks_high, sizeof(int32_t));
        if (!component->dc) return 0;
        component->dc_bits = -1;
        memset(component->ac_bits, -1, sizeof(component->ac_bits));
    }
    while (p[1] != 0xD9) {
        if (p[1] != 0xDA) {
            p = read_segments(d, p, end);
            if (!p) return 0;
            continue;
        }
        Scan scan;
        const uint8_t *data = read_scan_header(d, p, end, &scan);
        if (!data) return 0;
        if (scan.start > 0) {
            // The one component's coefficients Ss..Se: a first scan of each, or its next bit down.
            Component *component = &d->components[scan.components[0]];
            for (int k = scan.start; k <= scan.end; k++) {
                if (component->ac_bits[k] != (scan.high == 0 ? -1 : scan.high)) return 0;
                component->ac_bits[k] = (int8_t)scan.low;
            }
            p = skip_entropy_data(data, end);
            if (!p) return 0;
            continue;
        }
        // A first DC scan comes once per component; each refinement takes the next bit down.
        for (int i = 0; i < scan.count; i++) {
            const Component *component = &d->components[scan.components[i]];
            if (scan.high == 0 ? component->dc_bits != -1 : component->dc_bits != scan.high) return 0;
        }
        long units;
        if (scan.count == 1) {
            const Component *component = &d->components[scan.components[0]];
            long width = ((long)d->width * component->h + max_h - 1) / max_h;
            long height = ((long)d->height * component->v + max_v - 1) / max_v;
            units = ((width + 7) / 8) * ((height + 7) / 8);
        } else {
            units = (long)mcus_wide * mcus_high;
        }
        size_t segments = d->restart_interval ? (size_t)((units + d->restart_interval - 1) / d->restart_interval) : 1;
        size_t *segment_ends = malloc(segments * sizeof(size_t));
        const uint8_t *marker = NULL;
        uint8_t *buffer = segment_ends ? unstuff(data, end, segments, segment_ends, &marker) : NULL;
        int decoded =
            buffer && decode_dc_scan(d, &scan, buffer, segment_ends, segments, mcus_wide, mcus_high, max_h, max_v);
        free(buffer);
        free(segment_ends);
        if (!decoded) return 0;
        for (int i = 0; i < scan.count; i++) d->components[scan.components[i]].dc_bits = scan.low;
        p = marker;
    }
    for (int c = 0; c < d->component_count; c++) {
        Component *component = &d->components[c];
        if (component->dc_bits != 0) return 0;
        for (int k = 1; k < 64; k++) {
            if (component->ac_bits[k] != 0) return 0;
        }
        int32_t quant = d->quant[component->quant_table][0];
        size_t count = (size_t)component->blocks_wide * component->blocks_high;
        for (size_t i = 0; i < count; i++) {
            // libjpeg's 1 x 1 inverse DCT, as for a baseline block.
            int64_t value = (((int64_t)component->dc[i] * quant + 4) >> 3) + 128;
            component->samples[i] = value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
        }
    }
    return 1;
}

// Reads the headers up to the first scan and checks the frame is one this decoder takes; returns that scan's
// marker, or NULL. Fills the largest sampling factors and each component's samples per block.
static const uint8_t *read_frame(Decoder *d, const uint8_t *data, size_t length, int *max_h, int *max_v) {
    d->adobe_transform = -1;
    const uint8_t *end = data + length;
    const uint8_t *scan = length >= 4 && data[0] == 0xFF && data[1] == 0xD8 ? read_segments(d, data + 2, end) : NULL;
    if (!scan || scan[1] != 0xDA) return NULL;
    if (d->component_count == 3) {
        // Three components are YCbCr unless an Adobe segment says otherwise or their ids spell R, G, B.
        if (d->adobe_transform == 0) return NULL;
        if (d->components[0].id == 'R' && d->components[1].id == 'G' && d->components[2].id == 'B') return NULL;
    }
    *max_h = 1;
    *max_v = 1;
    for (int c = 0; c < d->component_count; c++) {
        if (d->components[c].h > *max_h) *max_h = d->components[c].h;
        if (d->components[c].v > *max_v) *max_v = d->components[c].v;
    }
    for (int c = 0; c < d->component_count; c++) {
        Component *component = &d->components[c];
        if (*max_h % component->h || *max_v % component->v) return NULL;
        // libjpeg's rule for a component's inverse DCT size at 1/8: doubled while both subsampling factors allow.
        component->samples_per_block = 1;
        while (d->component_count > 1 && *max_h % (component->h * component->samples_per_block * 2) == 0 &&
               *max_v % (component->v * component->samples_per_block * 2) == 0) {
            component->samples_per_block *= 2;
        }
        // A progressive file's 4:2:0 chroma would need its AC scans.
        if (component->samples_per_block > (d->progressive ? 1 : 2)) return NULL;
    }
    return scan;
}

int kf_jpeg_eighth_takes_frame(const uint8_t *data, size_t length) {
    Decoder *d = calloc(1, sizeof(Decoder));
    if (!d) return 0;
    d->headers_only = 1;
    int max_h, max_v;
    int takes = read_frame(d, data, length, &max_h, &max_v) != NULL;
    free(d);
    return takes;
}

int kf_jpeg_eighth_decode(const uint8_t *data, size_t length, uint64_t max_pixels, uint8_t **out_pixels,
                          int *out_width, int *out_height, int *out_bands) {
    Decoder *d = calloc(1, sizeof(Decoder));
    if (!d) return KF_JPEG_EIGHTH_TOO_LARGE;
    int status = KF_JPEG_EIGHTH_UNSUPPORTED;
    uint8_t *planes[3] = {NULL, NULL, NULL}, *pixels = NULL;
    const uint8_t *end = data + length;
    int max_h, max_v;
    const uint8_t *scan = read_frame(d, data, length, &max_h, &max_v);
    if (!scan) goto done;
    for (int c = 0; c < d->component_count; c++) {
        Component *component = &d->components[c];
        if (component->samples_per_block == 2) {
            make_quarter_weights(d->quarter_weights[component->quant_table], d->quant[component->quant_table]);
        }
    }
    // libvips' 1/8-scale JPEG load is width / 8 by height / 8, rounded down (at least 1); the blocks of the last
    // column and row past that are decoded and left out.
    int out_w = d->width / 8 > 0 ? d->width / 8 : 1, out_h = d->height / 8 > 0 ? d->height / 8 : 1;
    if (max_pixels && (uint64_t)out_w * out_h > max_pixels) {
        status = KF_JPEG_EIGHTH_TOO_LARGE;
        goto done;
    }
    // One component: its own blocks in raster order (a non-interleaved scan); several: whole MCUs.
    int mcus_wide, mcus_high;
    if (d->component_count == 1) {
        mcus_wide = (d->width + 7) / 8;
        mcus_high = (d->height + 7) / 8;
        d->components[0].blocks_wide = mcus_wide;
        d->components[0].blocks_high = mcus_high;
    } else {
        mcus_wide = (d->width + 8 * max_h - 1) / (8 * max_h);
        mcus_high = (d->height + 8 * max_v - 1) / (8 * max_v);
        for (int c = 0; c < d->component_count; c++) {
            d->components[c].blocks_wide = mcus_wide * d->components[c].h;
            d->components[c].blocks_high = mcus_high * d->components[c].v;
        }
    }
    for (int c = 0; c < d->component_count; c++) {
        Component *component = &d->components[c];
        size_t per_block = (size_t)component->samples_per_block;
        component->samples = malloc((size_t)component->blocks_wide * component->blocks_high * per_block * per_block);
        if (!component->samples) {
            status = KF_JPEG_EIGHTH_TOO_LARGE;
            goto done;
        }
    }
    int decoded = d->progressive ? decode_progressive(d, scan, end, mcus_wide, mcus_high, max_h, max_v)
                                 : decode_baseline(d, scan, end, mcus_wide, mcus_high);
    if (!decoded) goto done;

    int bands = d->component_count;
    pixels = malloc((size_t)out_w * out_h * bands);
    if (!pixels) {
        status = KF_JPEG_EIGHTH_TOO_LARGE;
        goto done;
    }
    for (int c = 0; c < bands; c++) {
        Component *component = &d->components[c];
        int factor_h = bands == 1 ? 1 : max_h / (component->h * component->samples_per_block);
        int factor_v = bands == 1 ? 1 : max_v / (component->v * component->samples_per_block);
        planes[c] = upsample(component, factor_h, factor_v, out_w, out_h);
        if (!planes[c]) {
            status = KF_JPEG_EIGHTH_TOO_LARGE;
            goto done;
        }
    }
    size_t count = (size_t)out_w * out_h;
    if (bands == 1) {
        memcpy(pixels, planes[0], count);
    } else {
        // JFIF's YCbCr to RGB, in 16.16 fixed point.
        for (size_t i = 0; i < count; i++) {
            int32_t y = (int32_t)planes[0][i] << 16, cb = planes[1][i] - 128, cr = planes[2][i] - 128;
            pixels[3 * i] = clamp_sample((y + 91881 * cr + 32768) >> 16);
            pixels[3 * i + 1] = clamp_sample((y - 22554 * cb - 46802 * cr + 32768) >> 16);
            pixels[3 * i + 2] = clamp_sample((y + 116130 * cb + 32768) >> 16);
        }
    }
    *out_pixels = pixels;
    pixels = NULL;
    *out_width = out_w;
    *out_height = out_h;
    *out_bands = bands;
    status = KF_JPEG_EIGHTH_OK;
done:
    for (int c = 0; c < 4; c++) {
        free(d->components[c].samples);
        free(d->components[c].dc);
    }
    for (int c = 0; c < 3; c++) free(planes[c]);
    free(pixels);
    free(d);
    return status;
}
