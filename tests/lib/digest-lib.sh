# digest-lib.sh: helpers for the mail tests (tests/t5*.sh), sourced after
# test-lib.sh.  A real SMTP server (Debian's python3-aiosmtpd) on a free
# loopback port, writing a maildir; a seeded database; a mail parser.

AIOSMTPD_PY=/usr/bin/python3
$AIOSMTPD_PY -c 'import aiosmtpd' 2>/dev/null || skip_all "python3-aiosmtpd is not installed"

SMTP_PORT=$(free_port)
# a loopback tracker nobody answers: the poster's attempts fail at once, and
# nothing ever leaves the machine
TRACKER_URL=http://127.0.0.1:$(free_port)
MAILDIR=$TMP/maildir	# aiosmtpd creates it (with new/ cur/ tmp/)

# smtp_start: start the server (again) on $SMTP_PORT.
smtp_start() {
	PYTHONPATH=$BB_SRC/tests/lib bg smtp $AIOSMTPD_PY -m aiosmtpd -n \
		-l 127.0.0.1:$SMTP_PORT -c smtp_sink.Sink "$MAILDIR"
	wait_port $SMTP_PORT 10
}

smtp_stop() {
	kill "$PID_smtp" 2>/dev/null && wait "$PID_smtp" 2>/dev/null
	return 0
}

# digest_config [extra lines on stdin]: config with the SCSI and Block lists.
digest_config() {
	write_config "$TMP/c.conf" <<-CONF
	[tracker]
	url = $TRACKER_URL/
	login = bugbridge@example.org
	retries = 0
	[web]
	listen = 127.0.0.1:$(free_port)
	base_url = http://127.0.0.1:8080/
	[smtp]
	url = smtp://127.0.0.1:$SMTP_PORT
	from = bugbridge <bugbridge@example.org>
	lists = SCSI=linux-scsi@vger.kernel.org, Block Layer=linux-block@vger.kernel.org
	timeout = 2
	backoff = 1
	[digest]
	hour = 0
	$(cat)
	CONF
}

# seed_db: a migrated database holding tests/data/digest-seed.sql.
seed_db() {
	bb --config "$TMP/c.conf" db migrate >/dev/null 2>&1 &&
	sqlite3 "$TMP/bugbridge.db" <"$BB_SRC/tests/data/digest-seed.sql"
}

# mail_count: messages in the maildir.
mail_count() {
	find "$MAILDIR/new" "$MAILDIR/cur" -type f 2>/dev/null | wc -l
}

# mail_wait N [SECONDS]: until the maildir holds N messages.
mail_wait() {
	_i=0; _max=$(( ${2:-10} * 10 ))
	while [ "$(mail_count)" -lt "$1" ] && [ $_i -lt $_max ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	[ "$(mail_count)" -ge "$1" ]
}

# mail_checks PYTHON-CODE: run checks written with tests/lib/mail_check.py
# (MAILDIR, DB and TRACKER are set for the code) and turn their lines into TAP.
mail_checks() {
	MAILDIR=$MAILDIR DB=$TMP/bugbridge.db TRACKER=$TRACKER_URL PYTHONPATH=$BB_SRC/tests/lib \
		python3 -c "import os, sqlite3, re
from mail_check import *
MAILDIR = os.environ['MAILDIR']
TRACKER = os.environ['TRACKER']
DB = sqlite3.connect(os.environ['DB'])
$1" >"$TMP/.checks" 2>&1
	_rc=$?
	while IFS= read -r _line; do
		case $_line in
		"ok: "*) ok "${_line#ok: }" ;;
		"not ok: "*) not_ok "${_line#not ok: }" ;;
		*) diag "$_line" ;;
		esac
	done <"$TMP/.checks"
	[ $_rc -eq 0 ] || not_ok "mail checks ran to the end (python exit $_rc)"
}
