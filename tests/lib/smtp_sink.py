# smtp_sink: the aiosmtpd handler the mail tests (tests/t5*.sh) run as a
# real SMTP server:
#
#   /usr/bin/python3 -m aiosmtpd -n -l 127.0.0.1:PORT -c smtp_sink.Sink MAILDIR
#
# It stores every accepted message in MAILDIR (aiosmtpd's Mailbox handler)
# unless MAILDIR/reply exists: then it answers DATA with that file's first
# line ("451 4.3.0 try later", "550 5.7.1 refused") and stores nothing.
# If MAILDIR/kill-pid exists, it stores the message, then SIGKILLs that
# process (once) before answering: the sender dies after the server took
# the message and before it could record that.
import os
import signal

from aiosmtpd.handlers import Mailbox


class Sink(Mailbox):
    async def handle_DATA(self, server, session, envelope):
        path = os.path.join(self.mail_dir, "reply")
        if os.path.exists(path):
            with open(path) as f:
                return f.readline().strip()
        reply = await super().handle_DATA(server, session, envelope)
        kill = os.path.join(self.mail_dir, "kill-pid")
        if os.path.exists(kill):
            with open(kill) as f:
                pid = int(f.readline())
            os.unlink(kill)
            os.kill(pid, signal.SIGKILL)
        return reply
