#!/usr/bin/env python3
"""Count where strings occur in a process's memory (run as root).

usage: memscan.py PID STRING...

Reads every readable mapping of /proc/PID/maps through /proc/PID/mem
(regions of 1 GiB and more are reserved address space, such as a
sanitizer's shadow, and are skipped) and prints "STRING COUNT" per string.
A string that straddles two 16 MiB reads is still found (the reads
overlap by the longest string's length).
"""
import sys

pid, needles = int(sys.argv[1]), [s.encode() for s in sys.argv[2:]]
counts = dict.fromkeys(needles, 0)
overlap = max(len(n) for n in needles)
STEP = 16 << 20
with open("/proc/%d/maps" % pid) as maps, open("/proc/%d/mem" % pid, "rb", 0) as mem:
    for line in maps:
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split("-"))
        if "r" not in fields[1] or end - start >= 1 << 30:
            continue
        at = start
        while at < end:
            size = min(STEP + overlap, end - at)
            try:
                mem.seek(at)
                data = mem.read(size)
            except (OSError, ValueError):
                break
            for n in needles:
                # count only matches that start inside this step
                i = data.find(n)
                while i != -1 and i < STEP:
                    counts[n] += 1
                    i = data.find(n, i + 1)
            at += STEP
for n in needles:
    print(n.decode(), counts[n])
