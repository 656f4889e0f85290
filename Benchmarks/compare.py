#!/usr/bin/env python3
"""The side-by-side harness behind compare.sh: prepares the corpus, starts nginx, runs every entry interleaved
for a number of rounds, samples each run's memory, and prints a markdown table.

Peak RSS is the largest sum of resident memory over the process tree, sampled every 20 ms from /proc (a run with
worker processes counts them all), and never less than the kernel's peak for the largest single process.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COPIES = 5  # 24 photos x 5 = 120 jobs, each under its own name (a distinct file, URL and cache key)


def gnome_webp_photos():
    """GNOME's wallpapers (Debian's gnome-backgrounds): 14 WebP images of 4096 x 4096 and 2 of 256 x 256."""
    root = "/usr/share/backgrounds/gnome"
    return sorted(os.path.join(root, name) for name in os.listdir(root) if name.endswith(".webp")) \
        if os.path.isdir(root) else []


def corpus_photos():
    photos = []
    for root, _, files in os.walk("/usr/share/wallpapers"):
        if "/images" not in root:
            continue
        for name in files:
            path = os.path.join(root, name)
            if name.endswith(".jpg") and not os.path.islink(path) and os.path.getsize(path) > 20_000:
                photos.append(path)
    return sorted(photos)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_nginx(root, work, port):
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as file:
        file.write(f"""
worker_processes 2;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    types {{ image/jpeg jpg; }}
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
""")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    subprocess.run([nginx, "-c", conf, "-p", work], check=True)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return lambda: subprocess.run([nginx, "-c", conf, "-p", work, "-s", "stop"], check=False)
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nginx did not start; see " + work + "/nginx-error.log")


def tree_rss_kb(pid):
    """Resident memory of pid and its descendants, in KB."""
    children = {}
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    pending = [pid]
    while pending:
        current = pending.pop()
        pending.extend(children.get(current, []))
        try:
            with open(f"/proc/{current}/statm") as file:
                total += int(file.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
        except OSError:
            pass
    return total


def measure(command, shell=False):
    """Runs command; returns (seconds, peak RSS in MB, stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    # Pipes are read by threads so a chatty child never blocks on a full pipe.
    captured = {}
    readers = [threading.Thread(target=lambda key, stream: captured.__setitem__(key, stream.read()),
                                args=(key, stream)) for key, stream in (("out", process.stdout),
                                                                        ("err", process.stderr))]
    for reader in readers:
        reader.start()
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss_kb(process.pid))
        time.sleep(0.02)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    out, err = captured.get("out", ""), captured.get("err", "")
    if process.returncode != 0:
        sys.stderr.write(f"warning: {command if isinstance(command, str) else ' '.join(command[:3])}... "
                         f"exited {process.returncode}: {err.strip()[-300:]}\n")
    peak = max(peak, usage.ru_maxrss)  # the kernel's exact peak for the direct child
    return seconds, peak / 1024, out


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kf", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="run only the entries whose name contains this text")
    parser.add_argument("--workloads", default="abc", help="run only these workloads, e.g. c")
    parser.add_argument("--corpus", default="wallpapers", choices=["wallpapers", "gnome-webp"],
                        help="Debian's KDE wallpaper JPEGs (24), or GNOME's WebP wallpapers (16; workload a only)")
    args = parser.parse_args()

    photos = corpus_photos() if args.corpus == "wallpapers" else gnome_webp_photos()
    if not photos:
        sys.exit("no photos (apt-get install plasma-workspace-wallpapers, or gnome-backgrounds for gnome-webp)")
    extension = os.path.splitext(photos[0])[1]
    work = tempfile.mkdtemp(prefix="kf-compare-")
    os.chmod(work, 0o755)  # nginx's workers run as another user
    corpus = fresh(os.path.join(work, "corpus"))
    names = []
    for copy in range(COPIES):
        for index, photo in enumerate(photos):
            name = f"{copy}-{index:02d}{extension}"
            os.symlink(photo, os.path.join(corpus, name))
            names.append(name)
    files = [os.path.join(corpus, name) for name in names]
    port = free_port()
    stop_nginx = start_nginx(corpus, work, port)
    urls = [f"http://127.0.0.1:{port}/{name}" for name in names]
    url_file = os.path.join(work, "urls.txt")
    with open(url_file, "w") as file:
        file.write("\n".join(urls) + "\n")
    curl_config = os.path.join(work, "curl.cfg")
    jobs = len(names)
    out = os.path.join(work, "out")
    cache = os.path.join(work, "cache")
    aiohttp_anchor = os.path.join(HERE, "anchors", "aiohttp_pillow.py")
    pillow_anchor = os.path.join(HERE, "anchors", "pillow_thumbnails.py")
    thumb = ["--downsample", "256x256", "--format", "jpeg", "--quality", "80"]

    def curl_to(directory):
        with open(curl_config, "w") as file:
            for url, name in zip(urls, names):
                file.write(f'url = "{url}"\noutput = "{directory}/{name}"\n')
        return ["curl", "-s", "--parallel", "--parallel-max", "8", "-K", curl_config]

    entries = [
        ("a", "kf", lambda: [args.kf, "fetch", *files, *thumb, "--no-cache", "--output", fresh(out)]),
        ("a", "Pillow, process per core", lambda: [args.python, pillow_anchor, "--out", fresh(out), "--size", "256",
                                                  "--quality", "80", "--workers", str(os.cpu_count()), *files]),
        ("a", "vipsthumbnail", lambda: ["vipsthumbnail", "-s", "256x256", "-o", fresh(out) + "/%s.jpg[Q=80]",
                                        *files]),
        ("b", "kf (cold cache)", lambda: [args.kf, "fetch", *urls, *thumb, "--cache-dir", fresh(cache)]),
        ("b", "kf (warm cache, 2nd run)", lambda: [args.kf, "fetch", *urls, *thumb, "--cache-dir", cache]),
        ("b", "aiohttp + Pillow, 2 workers", lambda: [args.python, aiohttp_anchor, "--url-file", url_file, "--out",
                                                     fresh(out), "--size", "256", "--quality", "80", "--workers",
                                                     "2"]),
        ("b", "curl --parallel + vipsthumbnail", lambda: " ".join(curl_to(fresh(os.path.join(work, "dl"))))
         + f" && vipsthumbnail -s 256x256 -o {fresh(out)}/%s.jpg[Q=80] {work}/dl/*.jpg"),
        ("c", "kf --original", lambda: [args.kf, "fetch", *urls, "--original", "--cache-dir", fresh(cache)]),
        ("c", "kf prefetch --original", lambda: [args.kf, "prefetch", "--url-file", url_file, "--original",
                                                 "--cache-dir", fresh(cache)]),
        ("c", "curl --parallel --parallel-max 8", lambda: curl_to(fresh(os.path.join(work, "dl")))),
    ]
    if args.corpus != "wallpapers":
        entries = [entry for entry in entries if entry[0] == "a"]  # nginx serves JPEG types only
    entries = [entry for entry in entries if entry[0] in args.workloads]
    if args.only:
        entries = [entry for entry in entries if args.only in entry[1]]
    if not os.path.exists(aiohttp_anchor):
        entries = [entry for entry in entries if "aiohttp" not in entry[1]]
        sys.stderr.write("note: anchors/aiohttp_pillow.py is missing; that entry is skipped\n")

    print(f"== {len(photos)} photos x {COPIES} = {jobs} jobs, nginx on 127.0.0.1:{port}, {args.rounds} rounds, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", flush=True)
    results = {name: [] for _, name, _ in entries}
    try:
        for round_index in range(args.rounds):
            for workload, name, command in entries:
                built = command()
                seconds, rss, _ = measure(built, shell=isinstance(built, str))
                results[name].append((seconds, rss))
                print(f"round {round_index + 1} ({workload}) {name}: {jobs / seconds:.1f} images/s, "
                      f"{rss:.0f} MB", flush=True)
    finally:
        stop_nginx()

    print("\n| workload | entry | images/s (median) | peak RSS MB (max) | vs best non-kf |")
    print("|---|---|---:|---:|---:|")
    titles = {"a": "(a) local thumbnails", "b": "(b) fetch + thumbnail + cache", "c": "(c) fetch only"}
    for workload in "abc":
        rows = [(name, jobs / statistics.median(s for s, _ in results[name]), max(r for _, r in results[name]))
                for w, name, _ in entries if w == workload]
        best = max((rate for name, rate, _ in rows if not name.startswith("kf")), default=None)
        for name, rate, rss in rows:
            ratio = f"{rate / best:.2f}x" if best else "-"
            print(f"| {titles[workload]} | {name} | {rate:.1f} | {rss:.0f} | {ratio} |")
    if "kf (cold cache)" in results and "kf (warm cache, 2nd run)" in results:
        cold = statistics.median(s for s, _ in results["kf (cold cache)"])
        warm = statistics.median(s for s, _ in results["kf (warm cache, 2nd run)"])
        print(f"\nkf warm cache vs cold: {cold / warm:.1f}x faster")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
