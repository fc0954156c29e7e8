# lava-lib.sh: a real LAVA 2023.01 lab (Debian 12's lava-server and
# lava-dispatcher) for the runner's LAVA tests.  Source after test-lib.sh.
# There is no systemd: the test starts every piece itself and stops them at
# exit (see ../shared/LAVA-NOTES.md for the facts behind each step).
#
#   lava_require        skip_all unless root and the packages are there
#   lava_up             PostgreSQL (started if down, stopped again at exit),
#                       the one-time lab setup (an admin and its API token,
#                       worker bb-worker, device bb-qemu01 of type qemu with
#                       no_kvm and no NIC), then gunicorn, the publisher, the
#                       scheduler and the worker; returns once the worker is
#                       online.  $LAVA is the server's URL, $LAVA_TOKEN_FILE
#                       holds the API token.
#   lava_web_stop / lava_web_start   take the web/API down and up again
#   lava_worker_stop / lava_worker_start   the worker (its device goes with it)
#   lava_api PATH       GET $LAVA/api/v0.2/PATH with the token
#
# The device dictionary replaces the qemu template's options block: the
# stock one gives every guest "-net nic ... -net user"; this one gives
# "-nic none", so a guest in this lab has no network at all.

LAVA_STATE=/var/lib/lava-server/bugbridge-test
LAVA_DEVICE=bb-qemu01
LAVA_WORKER=bb-worker

lava_require() {
	[ "$(id -u)" -eq 0 ] || skip_all "LAVA tests need root (they start PostgreSQL and lava-worker)"
	command -v lava-server >/dev/null && command -v lava-worker >/dev/null &&
		command -v gunicorn3 >/dev/null && command -v pg_ctlcluster >/dev/null ||
		skip_all "no lava-server/lava-dispatcher (tools/deps.sh installs them)"
}

_lava_pg_up() {
	if pg_lsclusters -h 2>/dev/null | awk '$1 == 15 && $2 == "main" { print $4 }' | grep -q online; then
		return 0
	fi
	pg_ctlcluster 15 main start || return 1
	LAVA_PG_STARTED=1
}

# The lab's one-time setup; its tokens are kept in $LAVA_STATE.
_lava_setup_once() {
	[ -s "$LAVA_STATE/api-token" ] && [ -s "$LAVA_STATE/worker-token" ] && return 0
	mkdir -p "$LAVA_STATE" && chmod 700 "$LAVA_STATE"
	lava-server manage users details admin >/dev/null 2>&1 ||
		lava-server manage users add --superuser --staff \
			--passwd "$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')" admin || return 1
	lava-server manage tokens add --user admin >"$LAVA_STATE/api-token" || return 1
	lava-server manage workers details "$LAVA_WORKER" >/dev/null 2>&1 ||
		lava-server manage workers add "$LAVA_WORKER" >/dev/null || return 1
	lava-server manage workers details "$LAVA_WORKER" |
		sed -n 's/^token *: *//p' >"$LAVA_STATE/worker-token"
	lava-server manage device-types add qemu >/dev/null 2>&1
	lava-server manage devices details "$LAVA_DEVICE" >/dev/null 2>&1 ||
		lava-server manage devices add --device-type qemu --worker "$LAVA_WORKER" \
			"$LAVA_DEVICE" || return 1
	lava-server manage devices update --health GOOD "$LAVA_DEVICE" >/dev/null
}

_lava_dictionary() {
	_d=/etc/lava-server/dispatcher-config/devices
	mkdir -p "$_d"
	cat >"$_d/$LAVA_DEVICE.jinja2" <<-'EOF'
	{% extends 'qemu.jinja2' %}
	{% set arch = 'x86_64' %}
	{% set no_kvm = True %}
	{% set memory = 512 %}
	{# bugbridge: the guest gets no network (the stock block adds -net nic -net user) #}
	{% block qemu_options %}
	          - -nographic
	          - -nic none
	          - -m {{ memory|default(512) }}
	          - -monitor {{ monitor|default('none') }}
	{% if extra_options %}
	          extra: {{ extra_options }}
	{% endif %}
	{% endblock qemu_options -%}
	EOF
	chown lavaserver:lavaserver "$_d/$LAVA_DEVICE.jinja2"
}

_lava_settings() {
	LAVA_EVENT_PORT=$(free_port)
	cat >/etc/lava-server/settings.d/50-bugbridge-test.yaml <<-EOF
	EVENT_NOTIFICATION: true
	INTERNAL_EVENT_SOCKET: ipc://$TMP/lava-events
	EVENT_SOCKET: tcp://127.0.0.1:$LAVA_EVENT_PORT
	EOF
	mkdir -p /var/log/lava-server
	touch /var/log/lava-server/lava-publisher.log
	chown lavaserver:lavaserver /var/log/lava-server/lava-publisher.log "$TMP"
	chmod 755 "$TMP"
}

lava_web_start() {
	bg lava_gunicorn gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver \
		--worker-class eventlet --workers 2 --bind "127.0.0.1:$LAVA_PORT"
	LAVA_WEB_PID=$PID_lava_gunicorn
	_i=0
	while [ $_i -lt 120 ]; do
		curl -sf -o /dev/null "$LAVA/api/v0.2/system/version/" && return 0
		sleep 0.5; _i=$((_i + 1))
	done
	return 1
}

lava_web_stop() {
	kill "$LAVA_WEB_PID" 2>/dev/null && wait "$LAVA_WEB_PID" 2>/dev/null
	_i=0
	while [ $_i -lt 50 ] && curl -s -o /dev/null "$LAVA/"; do sleep 0.2; _i=$((_i + 1)); done
}

lava_worker_start() {
	bg lava_worker lava-worker --url "$LAVA/" --name "$LAVA_WORKER" \
		--token "$(cat "$LAVA_STATE/worker-token")" --ping-interval 2 \
		--job-log-interval 1 --level DEBUG --log-file "$TMP/lava-worker.log"
	LAVA_WORKER_PID=$PID_lava_worker
}

lava_worker_stop() {
	kill "$LAVA_WORKER_PID" 2>/dev/null && wait "$LAVA_WORKER_PID" 2>/dev/null
}

lava_api() {
	curl -s -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "$LAVA/api/v0.2/$1"
}

# lava_json PATH EXPR: a field of an API answer (python's json, EXPR on `d`).
lava_json() {
	lava_api "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"
}

_lava_cleanup() {
	rm -f /etc/lava-server/settings.d/50-bugbridge-test.yaml
	[ "${LAVA_PG_STARTED:-0}" = 1 ] && pg_ctlcluster 15 main stop
}

lava_up() {
	trap 'bb_cleanup; _lava_cleanup' EXIT
	# one lab per machine: its device and worker are shared (prove -j)
	mkdir -p "$LAVA_STATE"
	exec 9>"$LAVA_STATE/lock"
	flock 9
	_lava_pg_up || return 1
	_lava_setup_once || { diag "LAVA setup failed"; return 1; }
	# a test killed mid-job leaves its LAVA job holding the device: end it
	for _j in $(runuser -u postgres -- psql lavaserver -tAc \
		"SELECT id FROM lava_scheduler_app_testjob WHERE state <> 5" 2>/dev/null); do
		lava-server manage jobs fail "$_j" >/dev/null 2>&1
	done
	_lava_dictionary
	_lava_settings
	LAVA_PORT=$(free_port)
	LAVA="http://127.0.0.1:$LAVA_PORT"
	LAVA_TOKEN_FILE=$LAVA_STATE/api-token
	lava_web_start || { diag "LAVA web did not start"; return 1; }
	bg lava_publisher runuser -u lavaserver -- lava-server manage lava-publisher \
		--host 127.0.0.1 --port "$(free_port)"
	bg lava_scheduler lava-server manage lava-scheduler \
		--event-url "tcp://127.0.0.1:$LAVA_EVENT_PORT"
	lava_worker_start
	_i=0
	while [ $_i -lt 120 ]; do
		[ "$(lava_json "workers/$LAVA_WORKER/" 'd["state"]' 2>/dev/null)" = Online ] &&
			[ "$(lava_json "devices/$LAVA_DEVICE/" 'd["state"]+d["health"]' 2>/dev/null)" != "" ] &&
			return 0
		sleep 0.5; _i=$((_i + 1))
	done
	diag "the LAVA worker did not come online"
	return 1
}

# lava_runner_up: runner_setup for the lab (the lines on stdin go to
# [runner] after "backend = lava", sections of their own after them), and
# a bugbridged that serves the artifacts and pages at $WEB_PORT with the
# tracker away.  Bails out if bugbridged does not start.
lava_runner_up() {
	WEB_PORT=$(free_port)
	{
		echo "backend = lava"
		cat
		cat <<EOF
[lava]
url = $LAVA
token_file = $LAVA_TOKEN_FILE
poll_interval = 1
[web]
listen = 127.0.0.1:$WEB_PORT
base_url = http://127.0.0.1:$WEB_PORT
[tracker]
url = http://127.0.0.1:9
poll_interval = 3600
[digest]
every = never
[triage]
stale_days = 0
EOF
	} >"$TMP/lava-runner.conf"
	runner_setup <"$TMP/lava-runner.conf"	# not in a pipe: it exports the config
	bg bbd bbd --config "$TMP/bb.conf"
	wait_port "$WEB_PORT" 20 || { echo "Bail out! bugbridged did not start"; exit 1; }
}
