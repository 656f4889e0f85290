#!/usr/bin/env bash
# Writes the fuzzers' shared seed corpus, Fuzz/Corpus/: small files of every format the parsers read, made with
# libvips' `vips` command (Debian's libvips-tools), and odd files written byte by byte (python3, standard library
# only): cut-short, damaged and header-only files, the layouts the parsers branch on. Each file is < 50 KB.
# The committed corpus is this script's output; run it again only to change the seeds.
set -euo pipefail
cd "$(dirname "$0")"
command -v vips >/dev/null || { echo "needs vips (apt-get install libvips-tools)" >&2; exit 1; }
out=Corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out"

# A textured RGB and grey image, and one with alpha.
noise() {  # NAME WIDTH HEIGHT SIGMA: 8-bit Gaussian noise, one band
    vips gaussnoise "$work/$1.f.v" "$2" "$3" --mean 128 --sigma "$4"
    vips cast "$work/$1.f.v" "$work/$1.v" uchar
}
for band in r g b a; do noise "$band" 64 48 50; done
vips bandjoin "$work/r.v $work/g.v $work/b.v" "$work/rgb.v"
vips bandjoin "$work/rgb.v $work/a.v" "$work/rgba.v"
noise odd.r 37 23 60
vips bandjoin "$work/odd.r.v $work/odd.r.v $work/odd.r.v" "$work/odd.v"
noise nine 9 9 40

# JPEG: progressive in the layouts ProgressiveJPEGDCStream branches on, and baseline.
vips copy "$work/rgb.v" "$out/progressive-420.jpg[Q=50,interlace,strip]"
vips copy "$work/rgb.v" "$out/progressive-444.jpg[Q=50,interlace,subsample_mode=off,strip]"
vips copy "$work/rgb.v" "$out/progressive-420-restart.jpg[Q=40,interlace,restart_interval=2,strip]"
vips copy "$work/r.v" "$out/progressive-grey.jpg[Q=50,interlace,strip]"
vips copy "$work/odd.v" "$out/progressive-37x23.jpg[Q=60,interlace,strip]"
vips copy "$work/nine.v" "$out/progressive-9x9.jpg[Q=80,interlace,strip]"
vips copy "$work/rgb.v" "$out/progressive-optimized.jpg[Q=30,interlace,optimize_coding,strip]"
vips copy "$work/rgb.v" "$out/baseline-420.jpg[Q=50,strip]"
vips copy "$work/r.v" "$out/baseline-grey-exif.jpg[Q=50]"

# PNG, GIF, WebP (lossy VP8, lossless VP8L, VP8X with alpha), TIFF, HEIF, AVIF.
vips copy "$work/rgb.v" "$out/rgb.png"
vips copy "$work/rgba.v" "$out/rgba-interlaced.png[interlace]"
vips copy "$work/rgb.v" "$out/palette.png[palette]"
vips copy "$work/r.v" "$out/grey.png"
vips copy "$work/odd.v" "$out/noise.gif"
vips copy "$work/rgb.v" "$out/lossy.webp[Q=40]"
vips copy "$work/rgb.v" "$out/lossless.webp[lossless]"
vips copy "$work/rgba.v" "$out/alpha-vp8x.webp[Q=40]"
vips copy "$work/nine.v" "$out/grey.tif"
vips copy "$work/nine.v" "$out/tiny.heic[Q=30]"
vips copy "$work/nine.v" "$out/tiny.avif[Q=30]"

# Odd files, byte by byte.
python3 - "$out" <<'PY'
import struct, sys, zlib, os
out = sys.argv[1]
def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
def read(name):
    with open(os.path.join(out, name), "rb") as f:
        return f.read()

def bmp(dib_size, width, height, pixels=b""):
    if dib_size == 12:
        dib = struct.pack("<IHHHH", 12, width, height, 1, 24)
    else:
        dib = struct.pack("<IiiHHIIiiII", dib_size, width, height, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
        dib += bytes(dib_size - len(dib))
    offset = 14 + len(dib)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + dib + pixels
row = lambda w: bytes((w * 3 + 3) // 4 * 4)
write("bmp-core.bmp", bmp(12, 4, 3, row(4) * 3))
write("bmp-info-topdown.bmp", bmp(40, 5, -2, row(5) * 2))
write("bmp-v5.bmp", bmp(124, 3, 3, row(3) * 3))
write("bmp-huge-declared.bmp", bmp(40, 100000, 100000, b""))
write("bmp-unknown-dib.bmp", bmp(40, 2, 2, row(2) * 2)[:14] + struct.pack("<I", 20) + bytes(16))

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
signature = b"\x89PNG\r\n\x1a\n"
write("png-header-only-20000.png", signature + chunk(b"IHDR", struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0)))
write("png-cut.png", read("rgb.png")[:30])

write("gif87a-header.gif", b"GIF87a" + struct.pack("<HH", 300, 200) + b"\x00\x00\x00")
write("webp-vp8x-header.webp", b"RIFF" + struct.pack("<I", 22) + b"WEBPVP8X" + struct.pack("<I", 10) + bytes(4)
      + (4999).to_bytes(3, "little") + (2999).to_bytes(3, "little"))
write("webp-cut.webp", b"RIFF0000WEBPVP8X")
write("ftyp-heic.heic", struct.pack(">I", 24) + b"ftypheic" + bytes(4) + b"mif1heic")
write("ftyp-avis-long-box.avif", struct.pack(">I", 4096) + b"ftypmsf1" + bytes(4) + b"iso8avis")
write("ftyp-unknown.mp4", struct.pack(">I", 20) + b"ftypisom" + bytes(4) + b"mp41")
write("tiff-be-header.tif", b"MM\x00\x2a" + bytes(4))

write("svg-plain.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>')
write("svg-bom-decl-doctype.svg", "\ufeff".encode() + b'<?xml version="1.0"?>\n<!-- c -->\n'
      b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n  <svg/>')
write("html-with-svg.html", b"<!doctype html><HTML><body><svg></svg></body></html>")
write("empty", b"")
write("jpeg-soi-only.jpg", b"\xff\xd8\xff")
write("zeros", bytes(64))

# Progressive JPEGs damaged the ways ProgressiveJPEGDCStream must refuse or survive.
jpeg = read("progressive-444.jpg")
scans = [i for i in range(len(jpeg) - 1) if jpeg[i] == 0xFF and jpeg[i + 1] == 0xDA]
write("progressive-dc-only.jpg", jpeg[:scans[1]] + b"\xff\xd9")           # cut after its DC scan
write("progressive-cut.jpg", jpeg[: len(jpeg) // 2])                      # no EOI
write("progressive-fill-bytes.jpg", jpeg[:scans[0]] + b"\xff\xff\xff" + jpeg[scans[0]:])
sof = jpeg.index(b"\xff\xc2")
write("progressive-12bit.jpg", jpeg[: sof + 4] + b"\x0c" + jpeg[sof + 5 :])
write("progressive-sof-last-component-cut.jpg", jpeg[: sof + 12])
PY
ls -la "$out" | awk 'NR > 1 && $5 > 51200 { print "too large:", $9; bad = 1 } END { exit bad }'
echo "$(ls "$out" | wc -l) seeds in Fuzz/$out, $(du -sk "$out" | cut -f1) KB"
