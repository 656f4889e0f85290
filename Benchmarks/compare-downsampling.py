"""pyvips side of compare-downsampling.sh: thumbnail_buffer on one file's bytes, pixels computed into memory
(as Kingfisher's result is). Prints the median milliseconds per image and the output size."""
import sys
import time

import pyvips

path, iterations, side = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pyvips.cache_set_max(0)
data = open(path, "rb").read()
samples = []
for _ in range(iterations):
    start = time.perf_counter()
    image = pyvips.Image.thumbnail_buffer(data, side, height=side, size="down").copy_memory()
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print(f"{samples[len(samples) // 2]:.2f} {image.width}x{image.height}")
