#!/bin/sh
# The stand-in tracker answers like the real Bugzilla 5.2: every recorded
# exchange in ../shared/bugzilla/recordings is replayed in order against a
# freshly seeded bz-standin and compared field by field (status, error code,
# keys at every level, JSON types, deterministic values); see
# tests/tracker/compare-recordings.py.
. "$(dirname "$0")/lib/test-lib.sh"

REC=$BB_SHARED/bugzilla/recordings
[ -d "$REC" ] || skip_all "no recordings in $REC"

port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
if ! wait_port "$port"; then
	plan 1
	not_ok "bz-standin starts"
	diag "$(cat "$TMP/standin.log")"
	exit 1
fi
python3 "$BB_SRC/tests/tracker/compare-recordings.py" "http://127.0.0.1:$port" "$REC"
