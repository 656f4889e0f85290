// A JPEG decoded at 1/8 scale from its DC coefficients: every 8 x 8 block becomes one pixel. A baseline file's AC
// coefficients are skipped by their code lengths without being decoded to values (libjpeg decodes each one and then
// drops it), except 4:2:0 chroma's, which libjpeg turns into 2 x 2 pixels per block and so does this; a progressive
// file's AC scans are passed over unread. Only what this handles for certain is taken: 8-bit Huffman JPEGs, grey or
// YCbCr, sampling factors 1, 2 or 4, baseline with one scan or progressive without 4:2:0 chroma. Anything else
// returns KF_JPEG_EIGHTH_UNSUPPORTED and the caller decodes the file with libjpeg, which also reports every error: a
// damaged file is never decoded here.
#ifndef CJPEGEIGHTH_H
#define CJPEGEIGHTH_H

#include <stddef.h>
#include <stdint.h>

#define KF_JPEG_EIGHTH_OK 0
/// Not a file this decoder takes (arithmetic-coded, 12-bit, CMYK, RGB, progressive with 4:2:0 chroma, a baseline
/// file of several scans, a restart or table this reader doubts, damaged or cut short): decode it with libjpeg.
#define KF_JPEG_EIGHTH_UNSUPPORTED 1
/// The output would need more than `max_pixels` pixels, or memory could not be had.
#define KF_JPEG_EIGHTH_TOO_LARGE 2

/// The 1/8-scale pixels of a JPEG: `*out_width` = width / 8 and `*out_height` = height / 8, rounded down, at least
/// 1 (libvips' size for a 1/8 load), `*out_bands` 1 (grey) or 3 (sRGB, from YCbCr as JFIF defines it; subsampled
/// chroma repeated as libjpeg does at 1/8). The pixels are malloc'd, rows packed; free them with free().
/// `max_pixels` bounds the output (0: no bound).
int kf_jpeg_eighth_decode(const uint8_t *data, size_t length, uint64_t max_pixels, uint8_t **out_pixels,
                          int *out_width, int *out_height, int *out_bands);

/// Whether the decoder takes `data`'s kind of frame, from its headers up to the first scan (1) or not (0). A file it
/// takes may still be refused by kf_jpeg_eighth_decode when its scans are damaged, cut short or incomplete.
int kf_jpeg_eighth_takes_frame(const uint8_t *data, size_t length);

#endif
