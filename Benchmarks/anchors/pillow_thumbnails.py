#!/usr/bin/env python3
"""The Python anchor for local thumbnails: Pillow in a pool of worker processes (one per core by default).

    pillow_thumbnails.py --out DIR [--size 256] [--quality 80] [--workers 2] FILE...

Each file is opened with JPEG draft mode (DCT scaling, Pillow's shrink-on-load), thumbnailed to fit SIZE x SIZE
and saved as JPEG at QUALITY. Prints one JSON line: images, failed, seconds, images_per_s.
"""
import argparse
import json
import os
import sys
import time
from multiprocessing import Pool

from PIL import Image


def thumbnail(job):
    path, out_dir, size, quality = job
    try:
        with Image.open(path) as image:
            image.draft("RGB", (size, size))
            image = image.convert("RGB")
            image.thumbnail((size, size), Image.Resampling.LANCZOS)
            name = os.path.splitext(os.path.basename(path))[0] + ".jpg"
            image.save(os.path.join(out_dir, name), "JPEG", quality=quality)
        return True
    except Exception as error:  # report and go on, as the other entries do
        print(f"error: {path}: {error}", file=sys.stderr)
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--quality", type=int, default=80)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    start = time.perf_counter()
    jobs = [(path, args.out, args.size, args.quality) for path in args.files]
    with Pool(args.workers) as pool:
        results = pool.map(thumbnail, jobs, chunksize=1)
    seconds = time.perf_counter() - start
    done = sum(results)
    print(json.dumps({"images": done, "failed": len(results) - done, "seconds": seconds,
                      "images_per_s": done / seconds}))


if __name__ == "__main__":
    main()
