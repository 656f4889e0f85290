#!/usr/bin/env python3
"""Writes the Pillow reference for the resize-quality test.

The input is the same formula as `ResizeQualityTests.photoLikePixels` in Swift (both compute it with libm's
sin/cos in double precision and round the same way), so no input file is needed. Pillow's LANCZOS filter
resizes it from 400x300 to 160x120 and the result is committed as
Tests/KingfisherTests/Reference/lanczos-160x120.png.

Run: pip install pillow && python3 scripts/make-resize-reference.py
"""
import math
import pathlib

from PIL import Image

WIDTH, HEIGHT = 400, 300


def clamp(value):
    return max(0, min(255, int(math.floor(value + 0.5))))


def photo_like_pixels():
    pixels = bytearray()
    for y in range(HEIGHT):
        for x in range(WIDTH):
            red = 127.5 + 120 * math.sin(x * 0.045 + y * 0.013)
            green = 127.5 + 120 * math.cos(x * 0.021 - y * 0.037)
            inside = (x - 200) ** 2 + (y - 150) ** 2 < 80 ** 2
            blue = (200 if inside else 50) + 25 * math.sin(x * 0.7) * math.cos(y * 0.5)
            pixels += bytes((clamp(red), clamp(green), clamp(blue)))
    return bytes(pixels)


def main():
    source = Image.frombytes("RGB", (WIDTH, HEIGHT), photo_like_pixels())
    reference = source.resize((160, 120), Image.LANCZOS)
    out = pathlib.Path(__file__).resolve().parent.parent / "Tests/KingfisherTests/Reference/lanczos-160x120.png"
    reference.save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
