# Sourced by the benchmark scripts that serve Debian's wallpaper photos from loopback.
#
#   install_missing PACKAGE...    # apt-get installs them (as root, or through sudo), updating the lists if needed
#   require_wallpaper_origin [COMMAND:PACKAGES]...
#                                 # installs the photos, nginx and curl where missing, and PACKAGES (space-separated)
#                                 # for each COMMAND not found
#   build_kf_release [PRODUCT...] # builds kf (release) under $ROOT, and the PRODUCTs kf runs (kf-gallery,
#                                 # kf-view), and sets KF to it (KF_BINARY=PATH: uses that kf instead, e.g. another
#                                 # commit's build for an A/B; its helpers are the ones beside it)
#   link_wallpapers DIR [COPIES]  # links the photos (JPEGs over 20 KB, under */images/) into DIR as NN.jpg, or
#                                 # C-NN.jpg for each of COPIES copies when COPIES > 1
#   free_port                     # prints a free TCP port on 127.0.0.1
#   wait_for URL [PREFIX...]      # returns once URL answers 2xx (30 s at most); PREFIX runs curl (e.g. in a
#                                 # network namespace: ip netns exec NS)

install_missing() {
    [ $# -gt 0 ] || return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get install -y "$@" >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y "$@" >/dev/null; }
}

require_wallpaper_origin() {
    local need=() pair
    [ -d /usr/share/wallpapers ] || need+=(plasma-workspace-wallpapers)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
    command -v curl >/dev/null || need+=(curl)
    for pair in "$@"; do
        # shellcheck disable=SC2206  # PACKAGES splits on spaces on purpose
        command -v "${pair%%:*}" >/dev/null || need+=(${pair#*:})
    done
    install_missing "${need[@]}"
}

build_kf_release() {
    if [ -n "${KF_BINARY:-}" ]; then
        KF="$KF_BINARY"
        echo "== kf: $KF"
        return
    fi
    local product
    for product in kf "$@"; do
        echo "== building $product (release)"
        (cd "$ROOT" && swift build -c release --product "$product" 2>&1 | grep -E "error|Build" | tail -2)
    done
    KF="$(cd "$ROOT" && swift build -c release --show-bin-path)/kf"
}

link_wallpapers() {
    python3 - "$1" "${2:-1}" <<'PY'
import os, sys
directory, copies = sys.argv[1], int(sys.argv[2])
photos = sorted(
    os.path.join(root, name)
    for root, _, files in os.walk("/usr/share/wallpapers") if "/images" in root
    for name in files
    if name.endswith(".jpg") and not os.path.islink(os.path.join(root, name))
    and os.path.getsize(os.path.join(root, name)) > 20_000)
for copy in range(copies):
    for index, photo in enumerate(photos):
        name = f"{index:02d}.jpg" if copies == 1 else f"{copy}-{index:02d}.jpg"
        os.symlink(photo, os.path.join(directory, name))
PY
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for() {
    local url=$1
    shift
    for _ in $(seq 300); do "$@" curl -sf -o /dev/null "$url" && return 0; sleep 0.1; done
    echo "no answer from $1" >&2
    return 1
}
