#!/usr/bin/env python3
"""Opens N idle TCP connections to a server on loopback (sending nothing, holding them), and while they are
held asks GET /healthz once every 200 ms on a new connection. Prints one line:
  connections=N held=H healthz=OK/ASKED median_ms=M worst_ms=W
Bounded: it opens connections for at most --open-seconds, then probes for --probe-seconds, then closes all."""
import argparse, http.client, resource, socket, statistics, sys, time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--connections", type=int, required=True)
parser.add_argument("--open-seconds", type=float, default=30)
parser.add_argument("--probe-seconds", type=float, default=10)
args = parser.parse_args()

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
wanted = min(args.connections, hard - 64)

def healthz():
    start = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=2)
        connection.request("GET", "/healthz")
        ok = connection.getresponse().status == 200
        connection.close()
    except OSError:
        ok = False
    return ok, (time.monotonic() - start) * 1000

held = []
deadline = time.monotonic() + args.open_seconds
while len(held) < wanted and time.monotonic() < deadline:
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", args.port))
        held.append(s)
    except OSError:
        s.close()
        time.sleep(0.01)

answers = []
stop = time.monotonic() + args.probe_seconds
while time.monotonic() < stop:
    answers.append(healthz())
    time.sleep(0.2)

# How many of ours the server still holds open: a closed one reads end of stream at once.
still_open = 0
for s in held:
    s.setblocking(False)
    try:
        still_open += 0 if s.recv(1) == b"" else 1
    except BlockingIOError:
        still_open += 1
    except OSError:
        pass
    s.close()

ok = [ms for good, ms in answers if good]
print(
    f"connections={len(held)} still_open={still_open} healthz={len(ok)}/{len(answers)} "
    f"median_ms={statistics.median(ok) if ok else float('nan'):.1f} worst_ms={max(ms for _, ms in answers):.1f}"
)
