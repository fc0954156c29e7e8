# smtp_tls_server: a real SMTP server (aiosmtpd) that insists on TLS and
# AUTH, for tests/t5050-digest-tls-auth.sh.
#
#   smtp_tls_server.py MODE PORT MAILDIR CERT KEY USER PASSWORD
#
# MODE starttls: plain SMTP that requires STARTTLS before AUTH and MAIL;
# MODE smtps: TLS from the first byte.  Accepted messages go to MAILDIR;
# every AUTH attempt is appended to MAILDIR/../auth.log as "ok USER" or
# "bad USER" (never the password).
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult, LoginPassword

mode, port, maildir, cert, key, user, password = sys.argv[1:8]
log = os.path.join(os.path.dirname(os.path.abspath(maildir)), "auth.log")
ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(cert, key)


def authenticator(server, session, envelope, mechanism, data):
    good = (isinstance(data, LoginPassword) and data.login.decode() == user
            and data.password.decode() == password)
    who = data.login.decode(errors="replace") if isinstance(data, LoginPassword) else "?"
    with open(log, "a") as f:
        f.write("%s %s %s\n" % ("ok" if good else "bad", mechanism, who))
    return AuthResult(success=good)


kwargs = dict(auth_required=True, authenticator=authenticator)
if mode == "starttls":
    controller = Controller(Mailbox(maildir), hostname="127.0.0.1", port=int(port),
                            tls_context=ctx, require_starttls=True, **kwargs)
else:
    controller = Controller(Mailbox(maildir), hostname="127.0.0.1", port=int(port),
                            ssl_context=ctx, auth_require_tls=False, **kwargs)
controller.start()
done = threading.Event()
signal.signal(signal.SIGTERM, lambda *a: done.set())
done.wait()
controller.stop()
