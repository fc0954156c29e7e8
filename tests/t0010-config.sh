#!/bin/sh
# The configuration file as operators use it: the example documents every
# key, env overrides, and secrets never printed.
. "$(dirname "$0")/lib/test-lib.sh"
plan 6

bb config example >"$TMP/example" 2>&1
if diff -u "$BB_SRC/bugbridge.conf.example" "$TMP/example" >"$TMP/diff"; then
	ok "bugbridge.conf.example is what 'bugbridge config example' prints"
else
	not_ok "bugbridge.conf.example is stale (regenerate: bugbridge config example)"
	diag "$(head -20 "$TMP/diff")"
fi
check "the example file loads as a config" bb --config "$BB_SRC/bugbridge.conf.example" config check --offline

printf 'tok-secret-9f3\n' >"$TMP/token"
write_config "$TMP/c.conf" <<EOF2
[tracker]
api_key = key-secret-4a1
[web]
token_file = $TMP/token
EOF2
out=$(bb --config "$TMP/c.conf" config show 2>&1)
unlike "config show never prints the API key" "$out" "key-secret-4a1"
like "config show says the key is set" "$out" "api_key = \(set\)"
out=$(BUGBRIDGE_TRACKER_URL=http://env.example bb --config "$TMP/c.conf" config show 2>&1)
like "environment overrides the file" "$out" "url = http://env.example"
bb --config "$TMP/c.conf" db migrate >/dev/null 2>&1
out=$(bb --config "$TMP/c.conf" status --json 2>&1; bb --config "$TMP/c.conf" status 2>&1)
unlike "status never prints secrets" "$out" "key-secret-4a1|tok-secret-9f3"
