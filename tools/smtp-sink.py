#!/usr/bin/python3
"""smtp-sink: a real SMTP server (aiosmtpd, from Debian) that appends every
accepted message to an mbox file.  Used by `make demo` and the mail tests.

  smtp-sink.py --listen 127.0.0.1:2525 --mbox FILE [--fail-first N] [--reject-5xx]

--fail-first N answers the first N transactions with 451 (try again later),
--reject-5xx answers every transaction with 554, to test the sender's retry
and failure paths against a real server.
"""
import argparse
import asyncio
import mailbox
import signal
import sys

from aiosmtpd.controller import Controller


class MboxHandler:
    def __init__(self, path, fail_first, reject):
        self.path = path
        self.fail_left = fail_first
        self.reject = reject

    async def handle_DATA(self, server, session, envelope):
        if self.reject:
            return "554 5.7.1 message rejected by test server"
        if self.fail_left > 0:
            self.fail_left -= 1
            return "451 4.3.0 try again later"
        box = mailbox.mbox(self.path)
        box.lock()
        try:
            msg = mailbox.mboxMessage(envelope.original_content)
            msg.set_from(envelope.mail_from or "MAILER-DAEMON")
            box.add(msg)
            box.flush()
        finally:
            box.unlock()
            box.close()
        print("accepted message from %s to %s" % (envelope.mail_from, ",".join(envelope.rcpt_tos)),
              flush=True)
        return "250 2.0.0 OK: queued"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listen", default="127.0.0.1:2525")
    ap.add_argument("--mbox", required=True)
    ap.add_argument("--fail-first", type=int, default=0)
    ap.add_argument("--reject-5xx", action="store_true")
    args = ap.parse_args()
    host, port = args.listen.rsplit(":", 1)
    handler = MboxHandler(args.mbox, args.fail_first, args.reject_5xx)
    ctl = Controller(handler, hostname=host, port=int(port))
    ctl.start()
    print("listening on %s:%s" % (host, port), flush=True)
    stop = asyncio.Event()
    loop = asyncio.new_event_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.run_until_complete(stop.wait())
    ctl.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
