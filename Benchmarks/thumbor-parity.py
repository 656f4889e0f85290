"""thumbor-parity.sh's two steps, run with the thumbor venv's Python (it has Pillow).

  prepare DIR                          writes the originals: photo.jpg (a wallpaper photo scaled to 1600 px wide),
                                       portrait.jpg (it turned a quarter), alpha.png (a gradient, half transparent),
                                       frame.png (a nine-patch)
  compare THUMBOR KF ORIGIN_HOST       asks both servers for every URL and prints the table and a summary
"""
import io
import sys
import urllib.error
import urllib.request

from PIL import Image

CURVE = "curve([(0,0),(40,59),(255,255)],[(0,0),(128,150),(255,255)],[(0,10),(255,245)],[(0,0),(255,230)])"

# (path before the image, image, deterministic?)
CASES = [
    ("300x200", "photo.jpg", True),
    ("fit-in/300x300", "photo.jpg", True),
    ("0x200", "portrait.jpg", True),
    ("200x0", "portrait.jpg", True),
    ("300x0", "photo.jpg", True),
    ("adaptive-fit-in/300x200", "portrait.jpg", True),
    ("full-fit-in/300x200", "photo.jpg", True),
    ("-300x200", "photo.jpg", True),
    ("300x-200", "photo.jpg", True),
    ("100x100:900x700/300x200", "photo.jpg", True),
    ("300x200/left/top", "photo.jpg", True),
    ("300x200/right/bottom", "photo.jpg", True),
    ("3000x3000", "photo.jpg", True),
    ("fit-in/3000x3000", "photo.jpg", True),
    ("300x200/filters:no_upscale()", "photo.jpg", True),
    ("fit-in/3000x3000/filters:upscale()", "photo.jpg", True),
    ("300x200/filters:brightness(40)", "photo.jpg", True),
    ("300x200/filters:brightness(-40)", "photo.jpg", True),
    ("300x200/filters:contrast(40)", "photo.jpg", True),
    ("300x200/filters:contrast(-40)", "photo.jpg", True),
    ("300x200/filters:saturation(0.3)", "photo.jpg", True),
    ("300x200/filters:saturation(1.8)", "photo.jpg", True),
    ("300x200/filters:rgb(20,-20,10)", "photo.jpg", True),
    ("300x200/filters:colorize(50,0,100,ff0000)", "photo.jpg", True),
    ("300x200/filters:equalize()", "photo.jpg", True),
    ("300x200/filters:grayscale()", "photo.jpg", True),
    ("300x200/filters:blur(3)", "photo.jpg", True),
    ("300x200/filters:blur(8,3)", "photo.jpg", True),
    ("300x200/filters:sharpen(2,1,true)", "photo.jpg", True),
    ("300x200/filters:convolution(1;2;1;2;4;2;1;2;1,3,true)", "photo.jpg", True),
    ("300x200/filters:convolution(-1;-1;-1;-1;8;-1;-1;-1;-1,3,false)", "photo.jpg", True),
    ("300x200/filters:noise(30)", "photo.jpg", False),
    ("300x200/filters:" + CURVE, "photo.jpg", True),
    ("300x200/filters:proportion(0.5)", "photo.jpg", True),
    ("300x200/filters:stretch()", "photo.jpg", True),
    ("300x200/filters:rotate(90)", "photo.jpg", True),
    ("300x200/filters:round_corner(20,255,255,255)", "photo.jpg", True),
    ("300x200/filters:focal(1200x100:1500x400)", "photo.jpg", True),
    ("300x200/filters:max_age(60)", "photo.jpg", True),
    ("300x200/filters:quality(40)", "photo.jpg", True),
    ("300x200/filters:format(webp)", "photo.jpg", True),
    ("300x200/filters:format(png)", "photo.jpg", True),
    ("300x200/filters:format(heif)", "photo.jpg", True),
    ("300x200/filters:strip_exif()", "photo.jpg", True),
    ("fit-in/400x400/filters:fill(0000ff)", "photo.jpg", True),
    ("fit-in/400x400/filters:fill(auto)", "photo.jpg", True),
    ("fit-in/400x400/filters:fill(blur)", "photo.jpg", True),
    ("fit-in/400x400/filters:fill(ff0000,true)", "alpha.png", True),
    ("fit-in/400x400/filters:fill(ff0000)", "alpha.png", True),
    ("200x150/filters:background_color(ff0000)", "alpha.png", True),
    ("200x150", "alpha.png", True),
    ("300x200/filters:max_bytes(8000)", "photo.jpg", True),
    ("300x200/filters:watermark(ORIGIN/alpha.png,10,10,50)", "photo.jpg", True),
    ("300x200/filters:watermark(ORIGIN/alpha.png,center,-10p,30,20,none)", "photo.jpg", True),
    ("300x200/filters:watermark(ORIGIN/alpha.png,repeat,repeat,40,10,10)", "photo.jpg", True),
    ("300x200/filters:watermark(ORIGIN/alpha.png,-20,repeat,0,none,25)", "photo.jpg", True),
    ("fit-in/300x300/filters:fill(blur)", "portrait.jpg", True),
    ("300x200/filters:frame(ORIGIN/frame.png)", "photo.jpg", True),
]


def prepare(directory):
    import glob

    photos = sorted(p for p in glob.glob("/usr/share/wallpapers/*/contents/images/*.jpg"))
    photo = Image.open(photos[0]).convert("RGB")
    photo = photo.resize((1600, round(1600 * photo.height / photo.width)), Image.LANCZOS)
    photo.save(f"{directory}/photo.jpg", quality=92)
    photo.transpose(Image.ROTATE_90).save(f"{directory}/portrait.jpg", quality=92)
    alpha = Image.new("RGBA", (400, 300))
    alpha.putdata([(x * 255 // 399, y * 255 // 299, 128, 255 if x < 200 else 0) for y in range(300) for x in range(400)])
    alpha.save(f"{directory}/alpha.png")
    # A 32 x 32 nine-patch: columns and rows 11-20 stretch, the content sits 8 pixels in from each side; inside, a
    # dark blue frame 8 pixels wide around a transparent middle.
    patch = Image.new("RGBA", (32, 32), (0, 0, 0, 0))
    for i in range(11, 21):
        for edge in ((i, 0), (0, i)):
            patch.putpixel(edge, (0, 0, 0, 255))
    for i in range(9, 23):
        for edge in ((i, 31), (31, i)):
            patch.putpixel(edge, (0, 0, 0, 255))
    for y in range(1, 31):
        for x in range(1, 31):
            inside = 9 <= x <= 22 and 9 <= y <= 22
            patch.putpixel((x, y), (0, 0, 0, 0) if inside else (20, 40, 120 + 4 * x % 100, 255))
    patch.save(f"{directory}/frame.png")


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except Exception as error:  # a server that closed the connection, say
        return 0, str(error).encode()


def describe(body):
    try:
        image = Image.open(io.BytesIO(body))
        image.load()
        return image, image.format.lower()
    except Exception:
        return through_libvips(body)


def through_libvips(body):
    """What Pillow cannot open (HEIF without pillow-heif): libvips' command line converts it to PNG."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        source, png = os.path.join(directory, "result"), os.path.join(directory, "result.png")
        with open(source, "wb") as file:
            file.write(body)
        try:
            loader = subprocess.run(["vipsheader", "-f", "vips-loader", source], capture_output=True, text=True,
                                    timeout=60).stdout.strip()
            subprocess.run(["vips", "copy", source, png], check=True, capture_output=True, timeout=60)
            image = Image.open(png)
            image.load()
        except Exception:
            return None, "-"
    return image, loader.replace("load", "").replace("_buffer", "").replace("_source", "") or "?"


def rendering(image):
    """64 x 64 RGB; transparency shown over mid grey, so both are compared as a browser would show them."""
    image = image.convert("RGBA")
    grey = Image.new("RGBA", image.size, (128, 128, 128, 255))
    return Image.alpha_composite(grey, image).convert("RGB").resize((64, 64), Image.BILINEAR)


def difference(a, b):
    pa, pb = rendering(a).tobytes(), rendering(b).tobytes()
    return sum(abs(x - y) for x, y in zip(pa, pb)) / len(pa)


def compare(thumbor, kf, origin):
    print("| URL | thumbor | kf | thumbor size | kf size | thumbor format | kf format | difference |")
    print("|---|---:|---:|---|---|---|---|---:|")
    summary = {"urls": 0, "status": 0, "size": 0, "format": 0, "close": 0, "deterministic": 0}
    for path, name, deterministic in CASES:
        path = path.replace("ORIGIN", origin)
        url = f"/unsafe/{path}/{origin}/{name}"
        (ts, tb), (ks, kb) = fetch(thumbor + url), fetch(kf + url)
        (ti, tf), (ki, kf_format) = describe(tb), describe(kb)
        tsize = f"{ti.width}x{ti.height}" if ti else "-"
        ksize = f"{ki.width}x{ki.height}" if ki else "-"
        same_size = ti is not None and ki is not None and abs(ti.width - ki.width) <= 1 and abs(ti.height - ki.height) <= 1
        mad = difference(ti, ki) if same_size else None
        summary["urls"] += 1
        summary["status"] += ts == ks
        summary["size"] += same_size or (ti is None and ki is None)
        summary["format"] += tf == kf_format
        if deterministic and mad is not None:
            summary["deterministic"] += 1
            summary["close"] += mad < 10
        shown = "-" if mad is None else f"{mad:.1f}" + ("" if deterministic else " (random)")
        print(f"| `{url.replace(origin, 'ORIGIN')}` | {ts} | {ks} | {tsize} | {ksize} | {tf} | {kf_format} | {shown} |")
    print()
    print(f"urls={summary['urls']} same_status={summary['status']} same_size={summary['size']} "
          f"same_format={summary['format']} difference_under_10={summary['close']}/{summary['deterministic']}")


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    else:
        compare(*sys.argv[2:5])
