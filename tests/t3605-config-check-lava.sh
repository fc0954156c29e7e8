#!/bin/sh
# `bugbridge config check` with [runner] backend = lava, against a real LAVA
# 2023.01 lab (lava-lib.sh; no kernel is booted): the lab answers, the token
# is valid and whose, its devices of the type are healthy on an online
# worker, and the artifact URL answers from here: a probe file put in
# artifacts_dir is fetched back at artifacts_url, or bugbridged's dashboard
# answers at [web] base_url.  A wrong token, a device type the lab lacks, an
# artifacts_url that does not serve artifacts_dir and a lab that is down
# each give their line and exit 1.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
. "$(dirname "$0")/lib/lava-lib.sh"
lava_require

lava_up || { echo "Bail out! no LAVA lab"; exit 1; }
mkdir -p "$TMP/art"
CONF=$TMP/c.conf
lava_conf() {
	write_config "$CONF" <<-EOF
	[runner]
	backend = lava
	[lava]
	url = $LAVA
	token_file = $LAVA_TOKEN_FILE
	$(cat)
	EOF
}
# lava_lines [ENV=VALUE...]: config check's lava lines in $out, its status in $rc
lava_lines() {
	out=$(env "$@" "$BB_BUILD/bugbridge" --config "$CONF" config check 2>/dev/null)
	rc=$?
	out=$(printf '%s\n' "$out" | grep '^[a-zA-Z]* *lava')
}

# artifacts_dir served as a file:// URL on this host (as t3610's runner uses it)
lava_conf <<EOF
artifacts_dir = $TMP/art
artifacts_url = file://$TMP/art
EOF
lava_lines
like "the lab answers, with its version" "$out" "^ok    lava: $LAVA answers \(LAVA 20[0-9.]+"
like "the token is valid, and whose" "$out" "^ok    lava token: valid, admin's$"
like "its qemu devices are healthy on an online worker" "$out" \
	"^ok    lava devices: [0-9]+ of type 'qemu', [1-9][0-9]* healthy on an online worker$"
like "a file put in artifacts_dir is fetched back at artifacts_url" "$out" \
	"^ok    lava artifacts: a file put in $TMP/art is fetched at file://$TMP/art from here"
is "no probe file is left behind" "$(ls -A "$TMP/art")" ""
unlike "no lava line failed" "$out" "^FAIL"

lava_lines BUGBRIDGE_LAVA_TOKEN=not-a-valid-token-0123456789
is "a wrong token: exit 1" "$rc" 1
like "its line" "$out" "^FAIL  lava token: HTTP 40[13]: .*[Ii]nvalid token"
like "and the devices are not asked" "$out" "^skip  lava devices: the token was refused$"
lava_lines BUGBRIDGE_LAVA_DEVICE_TYPE=no-such-board
like "a device type the lab lacks: its line" "$out" \
	"^FAIL  lava devices: none of type 'no-such-board' \(\[lava\] device_type\)$"
closed=$(free_port)
lava_lines BUGBRIDGE_LAVA_ARTIFACTS_URL=http://127.0.0.1:$closed/art
is "an artifacts_url that does not serve artifacts_dir: exit 1" "$rc" 1
like "its line" "$out" \
	"^FAIL  lava artifacts: a file put in $TMP/art is not at http://127\.0\.0\.1:$closed/art from here: .*Couldn't connect"

# bugbridged serves the artifacts: its dashboard must answer at [web] base_url
lava_runner_up </dev/null
CONF=$TMP/bb.conf
lava_lines
like "bugbridged's dashboard answers at base_url" "$out" \
	"^ok    lava artifacts: bugbridged's dashboard answers at http://127\.0\.0\.1:$WEB_PORT/ from here"
lava_lines BUGBRIDGE_WEB_BASE_URL=http://127.0.0.1:$LAVA_PORT
like "a base_url where another server answers: its line" "$out" \
	"^FAIL  lava artifacts: http://127\.0\.0\.1:$LAVA_PORT/ answers, but not as bugbridge's dashboard"

lava_web_stop
lava_lines
is "the lab down: exit 1" "$rc" 1
like "its line" "$out" "^FAIL  lava: cannot GET '$LAVA/api/v0\.2/system/version/'"
lava_web_start

plan $_tap_n
done_testing
