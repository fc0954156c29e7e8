#!/usr/bin/env python3
"""Count where strings occur in the files a process holds open (run as root).

usage: fdscan.py PID STRING...

Reads every regular file behind /proc/PID/fd/* (as the process could, from
its descriptors) and prints "STRING COUNT" per string, then a line
"files: PATH..." naming what was read.  What a process that was taken
over can read of its files, without opening one, is at most this.
"""
import os
import stat
import sys

pid, needles = int(sys.argv[1]), [s.encode() for s in sys.argv[2:]]
counts = dict.fromkeys(needles, 0)
paths = []
fds = "/proc/%d/fd" % pid
for fd in sorted(os.listdir(fds), key=int):
    link = os.path.join(fds, fd)
    try:
        if not stat.S_ISREG(os.stat(link).st_mode):
            continue
        with open(link, "rb") as f:
            data = f.read()
    except OSError:
        continue
    paths.append(os.readlink(link))
    for n in needles:
        counts[n] += data.count(n)
for n in needles:
    print(n.decode(), counts[n])
print("files:", " ".join(sorted(set(paths))))
