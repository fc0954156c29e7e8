#!/usr/bin/env python3
"""bbrun.py: boot a kernel in QEMU (TCG) with the bugbridge guest suite.

A developer tool and the reference reading of suite/scenarios; the real
runner is C (runner/).  No shell is involved: every program is started with
an argv list.

  bbrun.py --kernel BZIMAGE --work DIR [--boot all] [--only NAME] [--cmdline T]...
           [--scenarios FILE] [--suite DIR] [--busybox /bin/busybox]
           [--accel tcg]

Writes DIR/initramfs.cpio.gz, DIR/images/*, DIR/console.log and DIR/ktap.txt
(the KTAP lines of the console) and prints the KTAP on stdout.  Exit status:
0 when the guest printed a complete KTAP report, 1 otherwise (crash, timeout,
missing results).  Whether tests passed is for the caller to judge.
"""
import argparse
import gzip
import io
import os
import re
import stat
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KP = os.path.dirname(HERE)


class Boot:
    def __init__(self, name):
        self.name = name
        self.images = []      # (name, size, fill)
        self.qemu = []
        self.cmdline = []
        self.tests = []
        self.timeout = 300
        self.applets = []
        self.controller = None


def parse_scenarios(path):
    """Parse the scenarios file; raise ValueError naming the line."""
    boots, cur, version = {}, None, None
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            toks = raw.split()
            if not toks or toks[0].startswith("#"):
                continue
            d, args = toks[0], toks[1:]
            where = "%s:%d" % (path, no)
            if d == "version":
                if args != ["1"]:
                    raise ValueError("%s: unsupported version" % where)
                version = 1
                continue
            if version is None:
                raise ValueError("%s: 'version 1' must come first" % where)
            if d == "boot":
                if len(args) != 1 or args[0] in boots:
                    raise ValueError("%s: bad boot" % where)
                cur = boots[args[0]] = Boot(args[0])
                continue
            if cur is None:
                raise ValueError("%s: '%s' outside a boot" % (where, d))
            if d == "image":
                if len(args) != 3 or not args[1].isdigit() or \
                        args[2] not in ("zero", "lba-pattern") or \
                        not re.fullmatch(r"[A-Za-z0-9_-]+", args[0]):
                    raise ValueError("%s: bad image" % where)
                cur.images.append((args[0], int(args[1]), args[2]))
            elif d == "qemu":
                cur.qemu.extend(args)
            elif d == "cmdline":
                cur.cmdline.extend(args)
            elif d == "test":
                if len(args) not in (1, 2) or args[1:] not in ([], ["emulated"]):
                    raise ValueError("%s: bad test" % where)
                cur.tests.append(args[0])
            elif d == "timeout":
                if len(args) != 1 or not args[0].isdigit():
                    raise ValueError("%s: bad timeout" % where)
                cur.timeout = int(args[0])
            elif d == "busybox-applets":
                cur.applets.extend(args)
            elif d == "controller":
                cur.controller = args[0]
            elif d in ("config", "selects"):
                pass        # the runner's choice of boots and config (controllers.c)
            else:
                raise ValueError("%s: unknown directive '%s'" % (where, d))
    return boots


def make_image(path, size, fill):
    with open(path, "wb") as f:
        if fill == "zero":
            f.truncate(size)
            return
        chunk = 1 << 20
        for base in range(0, size, chunk):
            n = min(chunk, size - base)
            first = base // 512
            f.write(b"".join(struct.pack("<Q", first + i) * 64
                             for i in range(n // 512)))


def cpio_newc(entries):
    """entries: (name, mode, data or None, rdev major, minor)."""
    out = io.BytesIO()
    ino = 1
    for name, mode, data, major, minor in entries + [("TRAILER!!!", 0, b"", 0, 0)]:
        data = data or b""
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join("%08X" % v for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, major, minor, len(nb), 0))
        out.write(hdr.encode() + nb)
        out.write(b"\0" * ((4 - (110 + len(nb)) % 4) % 4))
        out.write(data)
        out.write(b"\0" * ((4 - len(data) % 4) % 4))
        ino += 1
    return out.getvalue()


def build_initramfs(work, suite_dir, busybox):
    bindir = os.path.join(work, "bin")
    subprocess.run(["make", "-s", "-C", suite_dir, "O=" + bindir], check=True)
    rd = lambda p: open(p, "rb").read()
    d = stat.S_IFDIR | 0o755
    entries = [(n, d, None, 0, 0) for n in ("bin", "dev", "proc", "sys", "tmp", "mnt")]
    entries += [
        ("dev/console", stat.S_IFCHR | 0o600, None, 5, 1),
        ("init", stat.S_IFREG | 0o755, rd(os.path.join(suite_dir, "init")), 0, 0),
        ("bin/busybox", stat.S_IFREG | 0o755, rd(busybox), 0, 0),
        ("bin/bbsuite", stat.S_IFREG | 0o755, rd(os.path.join(bindir, "bbsuite")), 0, 0),
    ]
    path = os.path.join(work, "initramfs.cpio.gz")
    with open(path, "wb") as f:
        f.write(gzip.compress(cpio_newc(entries), 6, mtime=0))
    return path


KTAP_LINE = re.compile(r"^(KTAP version \d+|\d+\.\.\d+|(not )?ok \d+ .*|# .*)$")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--boot", default="all")
    ap.add_argument("--only")
    ap.add_argument("--cmdline", action="append", default=[],
                    help="a kernel command-line token more (bb_mutant=N)")
    ap.add_argument("--scenarios", default=os.path.join(KP, "suite", "scenarios"))
    ap.add_argument("--suite", default=os.path.join(KP, "suite"))
    ap.add_argument("--busybox", default="/bin/busybox")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--qemu", default="qemu-system-x86_64")
    a = ap.parse_args()

    boot = parse_scenarios(a.scenarios)[a.boot]
    work = os.path.abspath(a.work)
    os.makedirs(os.path.join(work, "images"), exist_ok=True)
    initrd = build_initramfs(work, os.path.abspath(a.suite), a.busybox)
    paths = {}
    for name, size, fill in boot.images:
        paths[name] = os.path.join(work, "images", name + ".img")
        make_image(paths[name], size, fill)
    qargs = [re.sub(r"@([A-Za-z0-9_-]+)@", lambda m: paths[m.group(1)], x)
             for x in boot.qemu]
    cmdline = ["console=ttyS0", "panic=-1", "oops=panic", "loglevel=7"] + boot.cmdline
    if a.only:
        cmdline.append("bbsuite.only=" + a.only)
    cmdline += a.cmdline
    log = os.path.join(work, "console.log")
    # the runner's machine: no default devices, no network (guest-no-network)
    argv = [a.qemu, "-accel", a.accel, "-m", "512", "-smp", "1", "-nodefaults",
            "-nic", "none", "-display", "none", "-no-reboot",
            "-kernel", os.path.abspath(a.kernel), "-initrd", initrd,
            "-append", " ".join(cmdline)] + qargs + \
           ["-serial", "file:" + log, "-monitor", "none"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=boot.timeout)
        timed_out = False
        qout = p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        timed_out, qout = True, ""
    wall = time.monotonic() - t0
    text = open(log, encoding="utf-8", errors="replace").read() \
        if os.path.exists(log) else ""
    ktap, started = [], False
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith("KTAP version"):
            started = True
        if started and KTAP_LINE.match(line):
            ktap.append(line)
    with open(os.path.join(work, "ktap.txt"), "w") as f:
        f.write("\n".join(ktap) + "\n")
    print("\n".join(ktap))
    m = re.search(r"^\[\s*([0-9.]+)\].*Run /init", text, re.M)
    print("# bbrun: wall %.1f s, /init at %s s guest time%s" %
          (wall, m.group(1) if m else "?", ", TIMEOUT" if timed_out else ""))
    if qout.strip():
        print("# qemu: " + qout.strip().replace("\n", "\n# qemu: "))
    plan = [l for l in ktap if re.match(r"^\d+\.\.\d+$", l)]
    results = [l for l in ktap if re.match(r"^(not )?ok \d+ ", l)]
    if timed_out or not plan or len(results) != int(plan[0].split("..")[1]):
        print("# bbrun: incomplete KTAP report (crash or timeout?)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
