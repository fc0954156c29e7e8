#!/bin/sh
# bugbridge db migrate: creates exactly the schema/ tables, is idempotent,
# and refuses a database written by a newer bugbridge.
. "$(dirname "$0")/lib/test-lib.sh"
plan 8

write_config "$TMP/c.conf" </dev/null
out=$(bb --config "$TMP/c.conf" db migrate 2>&1)
is "migrate on a fresh path succeeds" "$?" 0
like "and says what it applied" "$out" "applied [0-9]+ migrations?; schema version"

# The reference: the schema files applied by sqlite3 itself.
for f in "$BB_SRC"/schema/[0-9]*.sql; do cat "$f"; done | sqlite3 "$TMP/ref.db"
sql ".schema" | grep -v '^$' >"$TMP/got"
sqlite3 "$TMP/ref.db" ".schema" | grep -v '^$' >"$TMP/want"
if diff -u "$TMP/want" "$TMP/got" >"$TMP/diff"; then ok "tables match schema/"; else
	not_ok "tables match schema/"; diag "$(head -30 "$TMP/diff")"; fi
is "journal mode is WAL" "$(sql 'PRAGMA journal_mode')" wal

sql .dump >"$TMP/before"
out=$(bb --config "$TMP/c.conf" db migrate 2>&1)
like "a second migrate says up to date" "$out" "up to date"
sql .dump >"$TMP/after"
check "a second migrate changes nothing" cmp "$TMP/before" "$TMP/after"

v=$(sql 'PRAGMA user_version')
sql "PRAGMA user_version = $((v + 1))"
out=$(bb --config "$TMP/c.conf" db migrate 2>&1); rc=$?
is "a newer database is refused" "$rc" 1
like "with a clear message" "$out" "newer than this bugbridge knows"
