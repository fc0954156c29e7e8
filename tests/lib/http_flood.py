#!/usr/bin/env python3
"""Flood a server with big request bodies and watch a process tree's memory.

usage: http_flood.py PORT CLIENTS BYTES ROOT_PID PATH...

CLIENTS threads each open a connection to 127.0.0.1:PORT and POST a body of
BYTES bytes to one of the PATHs (in turn): even-numbered clients announce it
with Content-Length, odd-numbered ones send it chunked (no length to refuse
it by).  Each keeps sending 64 KiB pieces as fast as the server takes them
until the server answers or the body is sent, then reads the status line.
Meanwhile the resident memory (VmRSS) of ROOT_PID and all its descendants is
sampled every 50 ms.

Prints one line per answer status ("413 12", "401 12", "none 0" for a
connection that ended without a status line), then "max_rss_kb N",
"start_rss_kb N" and "max_sent N" (the most body bytes one client got out).
"""
import os
import select
import socket
import sys
import threading
import time
from collections import Counter

PORT, CLIENTS, BYTES, ROOT = map(int, sys.argv[1:5])
PATHS = sys.argv[5:]
results = [None] * CLIENTS
done = threading.Event()


def tree(root):
    kids = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(pid))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def rss_kb(pids):
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/status" % p) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def client(i):
    path = PATHS[i % len(PATHS)]
    chunked = i % 2 == 1
    head = "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" % path
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else "Content-Length: %d\r\n\r\n" % BYTES
    piece = b"A" * 65536
    if chunked:
        piece = b"10000\r\n" + piece + b"\r\n"
    sent, status = 0, "none"
    try:
        s = socket.create_connection(("127.0.0.1", PORT), timeout=60)
        s.sendall(head.encode())
        while sent < BYTES:
            if select.select([s], [], [], 0)[0]:
                break
            s.sendall(piece)
            sent += 65536
        if chunked and sent >= BYTES:
            s.sendall(b"0\r\n\r\n")
    except OSError:
        pass
    try:
        s.settimeout(20)
        data = b""
        while b"\r\n" not in data:
            d = s.recv(4096)
            if not d:
                break
            data += d
        parts = data.split(b" ")
        if data.startswith(b"HTTP/") and len(parts) > 1:
            status = parts[1].decode()
    except OSError:
        pass
    finally:
        s.close()
    results[i] = (status, sent)


def sample(out):
    while not done.is_set():
        out[0] = max(out[0], rss_kb(tree(ROOT)))
        time.sleep(0.05)


start = rss_kb(tree(ROOT))
peak = [start]
sampler = threading.Thread(target=sample, args=(peak,))
sampler.start()
threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
done.set()
sampler.join()
for status, n in sorted(Counter(r[0] for r in results).items()):
    print(status, n)
print("max_rss_kb", peak[0])
print("start_rss_kb", start)
print("max_sent", max(r[1] for r in results))
