# mail_check: read the test maildir with Python's email package and report
# checks as lines the shell turns into TAP ("ok: what" / "not ok: what").
#
#   from mail_check import messages, check, body_of
import email
import email.policy
import mailbox
import sys


def messages(maildir):
    """Every stored message, parsed with the strict default policy."""
    box = mailbox.Maildir(maildir, factory=None, create=False)
    out = []
    for key in sorted(box.keys()):
        with box.get_file(key) as f:
            out.append(email.message_from_binary_file(f, policy=email.policy.default))
    return out


def raw_messages(maildir):
    box = mailbox.Maildir(maildir, factory=None, create=False)
    out = []
    for key in sorted(box.keys()):
        with box.get_file(key) as f:
            out.append(f.read())
    return out


def to_list(msgs, address):
    return [m for m in msgs if address in str(m["To"])]


def body_of(msg):
    return msg.get_content()


def check(what, cond, detail=""):
    if cond:
        print("ok: " + what)
    else:
        print("not ok: " + what)
        for line in str(detail).splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()
