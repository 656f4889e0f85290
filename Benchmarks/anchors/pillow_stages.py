#!/usr/bin/env python3
"""Pillow's twin of StageTimer: per image, the fastest of ROUNDS runs of draft + thumbnail (LANCZOS) and of a JPEG
encode at quality 80, summed over the images, on one core.

    pillow_stages.py ROUNDS SIDE FILE...        (SIDE 0: a full decode, no thumbnail)
"""
import io
import sys
import time

from PIL import Image


def main():
    rounds, side, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    files = [open(path, "rb").read() for path in paths]
    decode = [float("inf")] * len(files)
    encode = [float("inf")] * len(files)
    for _ in range(rounds):
        for index, data in enumerate(files):
            start = time.perf_counter()
            image = Image.open(io.BytesIO(data))
            if side > 0:
                image.draft("RGB", (side, side))
                image = image.convert("RGB")
                image.thumbnail((side, side), Image.Resampling.LANCZOS)
            else:
                image.load()
            decode[index] = min(decode[index], time.perf_counter() - start)
            start = time.perf_counter()
            image.save(io.BytesIO(), "JPEG", quality=80)
            encode[index] = min(encode[index], time.perf_counter() - start)
    print("decode %.3f ms, encode %.3f ms, total %.3f ms (%d images, sums of per-image minima over %d rounds)"
          % (sum(decode) * 1e3, sum(encode) * 1e3, (sum(decode) + sum(encode)) * 1e3, len(files), rounds))


if __name__ == "__main__":
    main()
