#!/bin/sh
# /artifacts/<token>/<name>: what a LAVA worker fetches for one boot.  A
# live token of a running job serves its files byte for byte; the same URL
# is dead (404) once the runner withdraws the row, once the job is no longer
# running, or after the expiry.  Attacks: guessed, short and upper-case
# tokens, "..", slashes and encoded slashes in the name, a symlink planted
# in the directory, a directory instead of a file.  Every refusal is the
# same 404, so a probe cannot tell a dead token from a wrong one.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

plan 16
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard"

tok=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
old=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
done_tok=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
mkdir -p "$TMP/art/$tok/sub" "$TMP/art/$old" "$TMP/art/$done_tok"
head -c 100000 /dev/urandom >"$TMP/art/$tok/bzImage"
echo "initramfs" >"$TMP/art/$tok/initramfs.cpio"
echo "OUTSIDE-SECRET" >"$TMP/outside-secret"
ln -s "$TMP/outside-secret" "$TMP/art/$tok/evil.img"
echo old >"$TMP/art/$old/bzImage"
echo done >"$TMP/art/$done_tok/bzImage"
# job 3 is running in the seed, job 1 is done
sql "INSERT INTO artifacts (token, job_id, dir, expires_at) VALUES
	('$tok', 3, '$TMP/art/$tok', strftime('%s', 'now') + 600),
	('$old', 3, '$TMP/art/$old', strftime('%s', 'now') - 1),
	('$done_tok', 1, '$TMP/art/$done_tok', strftime('%s', 'now') + 600)"

curl -s -o "$TMP/got" "$WEB/artifacts/$tok/bzImage"
check "a live token serves the kernel byte for byte" cmp "$TMP/got" "$TMP/art/$tok/bzImage"
is "as a plain download" "$(headers "/artifacts/$tok/bzImage" | sed -n 's/^Content-Type: //Ip')" \
	"application/octet-stream"
is "and the initramfs beside it" "$(raw "/artifacts/$tok/initramfs.cpio")" "initramfs"
is "a file that is not there: 404" "$(status "/artifacts/$tok/nothing.img")" 404
is "a symlink planted in the directory: 404" "$(status "/artifacts/$tok/evil.img")" 404
unlike "and never its target" "$(raw "/artifacts/$tok/evil.img")" "OUTSIDE-SECRET"
is "a directory: 404" "$(status "/artifacts/$tok/sub")" 404
is "'..' as the name: 404" "$(status "/artifacts/$tok/..%2f..%2foutside-secret" --path-as-is)" 404
is "a path below the token: 404" "$(status "/artifacts/$tok/sub/x" --path-as-is)" 404
is "a guessed token: 404" "$(status "/artifacts/$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')/bzImage")" 404
is "the token in upper case: 404" \
	"$(status "/artifacts/$(printf '%s' "$tok" | tr a-f A-F)/bzImage")" 404
is "a prefix of the token: 404" "$(status "/artifacts/$(printf '%s' "$tok" | cut -c1-32)/bzImage")" 404
is "an expired token: 404" "$(status "/artifacts/$old/bzImage")" 404
is "a token of a job that is no longer running: 404" "$(status "/artifacts/$done_tok/bzImage")" 404
sql "DELETE FROM artifacts WHERE token = '$tok'"
is "withdrawn by the runner (the LAVA job ended): 404 at once" \
	"$(status "/artifacts/$tok/bzImage")" 404

done_testing
