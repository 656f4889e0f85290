#!/usr/bin/env python3
"""The anchor a Python user would write for "prefetch thumbnails": aiohttp downloads, Pillow decodes at a reduced
size (``draft``, JPEG's DCT scaling), shrinks to fit SIZE x SIZE (``thumbnail``) and saves a JPEG at QUALITY into a
directory. WORKERS processes split the URL list; each runs one event loop with CONCURRENCY downloads in flight and
decodes inline (the decode holds the loop, as simple scripts do).

Prints one JSON line: {"images": N, "seconds": S, "images_per_s": N/S, "failed": F}. Exit status 1 if any failed.

    aiohttp_pillow.py --url-file urls.txt --out /tmp/thumbs [--size 256] [--quality 80] [--workers 2]
                      [--concurrency 4]

Needs Debian's python3-aiohttp and python3-pil (run it with /usr/bin/python3).
"""
import argparse
import asyncio
import hashlib
import io
import json
import multiprocessing
import os
import sys
import time

import aiohttp
from PIL import Image


def thumbnail(body: bytes, size: int, quality: int, path: str) -> None:
    with Image.open(io.BytesIO(body)) as image:
        image.draft("RGB", (size, size))
        image = image.convert("RGB")
        image.thumbnail((size, size), Image.Resampling.LANCZOS)
        image.save(path, "JPEG", quality=quality)


async def fetch_all(urls, out, size, quality, concurrency):
    failed = 0
    limit = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(url):
            nonlocal failed
            async with limit:
                try:
                    async with session.get(url) as response:
                        response.raise_for_status()
                        body = await response.read()
                    name = hashlib.sha256(url.encode()).hexdigest() + ".jpg"
                    thumbnail(body, size, quality, os.path.join(out, name))
                except Exception as error:  # report, count, go on
                    print(f"failed {url}: {error}", file=sys.stderr)
                    failed += 1

        await asyncio.gather(*(one(url) for url in urls))
    return failed


def worker(job):
    urls, out, size, quality, concurrency = job
    return asyncio.run(fetch_all(urls, out, size, quality, concurrency))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url-file", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--quality", type=int, default=80)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4, help="downloads in flight per worker")
    args = parser.parse_args()

    with open(args.url_file) as handle:
        urls = [line.strip() for line in handle if line.strip()]
    os.makedirs(args.out, exist_ok=True)
    workers = max(1, args.workers)
    jobs = [(urls[i::workers], args.out, args.size, args.quality, args.concurrency) for i in range(workers)]

    started = time.perf_counter()
    with multiprocessing.Pool(workers) as pool:
        failed = sum(pool.map(worker, jobs))
    seconds = time.perf_counter() - started

    done = len(urls) - failed
    print(json.dumps({"images": done, "seconds": seconds, "images_per_s": done / seconds, "failed": failed}))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
