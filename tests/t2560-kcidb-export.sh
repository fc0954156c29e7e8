#!/bin/sh
# `bugbridge job show ID --kcidb`: a finished job with a baseline becomes a
# KCIDB v5 document that an independent JSON-Schema validator (python3
# jsonschema, with the published schema's required fields, id and origin
# patterns and status values) accepts; unfinished jobs are refused.
. "$(dirname "$0")/lib/test-lib.sh"
python3 -c 'import jsonschema' 2>/dev/null || skip_all "python3-jsonschema not installed"
plan 7

write_config "$TMP/bb.conf" </dev/null
export BUGBRIDGE_CONFIG="$TMP/bb.conf"
bb db migrate >/dev/null 2>&1
sql "INSERT INTO candidates (id, bug_id, source, kind, name, sha256, content)
	VALUES (1, 9370, 'manual', 'patch', 'sr-fix.patch', 'abc', 'diff text');
INSERT INTO jobs (id, bug_id, candidate_id, with_baseline, state, verdict, change, accel,
	kernel_version, started_at, finished_at)
	VALUES (42, 9370, 1, 1, 'done', 'pass', 'FAIL->PASS', 'kvm', '6.1.158', 1796256000, 1796256432),
	(43, 9370, 1, 1, 'queued', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO job_stages (job_id, variant, stage, started_at, finished_at, status) VALUES
	(42, 'patched', 'build', 1796256010, 1796256310, 'ok'),
	(42, 'baseline', 'build', 1796256010, 1796256300, 'ok');
INSERT INTO test_results (job_id, variant, name, status) VALUES
	(42, 'baseline', 'sr-capacity', 'fail'), (42, 'patched', 'sr-capacity', 'pass'),
	(42, 'patched', 'sd-trim', 'skip');"

bb job show 42 --kcidb >"$TMP/out.json" 2>"$TMP/err"
is "export exits 0" "$?" 0
python3 - "$TMP/out.json" >"$TMP/check" 2>&1 <<'PYEOF'
import json, sys, jsonschema
origin = {"type": "string", "pattern": "^[a-z0-9_]+$"}
oid = {"type": "string", "pattern": "^[a-z0-9_]+:.*$"}
status = {"enum": ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]}
def obj(req, extra):
    props = {"id": oid, "origin": origin}
    props.update(extra)
    return {"type": "object", "required": req, "properties": props}
schema = {
    "type": "object", "required": ["version"],
    "properties": {
        "version": {"type": "object", "required": ["major", "minor"],
                    "properties": {"major": {"const": 5}, "minor": {"type": "integer"}}},
        "checkouts": {"type": "array", "items": obj(["id", "origin"], {
            "patchset_hash": {"type": "string", "pattern": "^$|^[0-9a-f]{64}$"},
            "valid": {"type": "boolean"}})},
        "builds": {"type": "array", "items": obj(["checkout_id", "id", "origin"], {
            "checkout_id": oid, "status": status, "duration": {"type": "number"},
            "architecture": {"type": "string", "pattern": "^[a-z0-9_]*$"}})},
        "tests": {"type": "array", "items": obj(["build_id", "id", "origin"], {
            "build_id": oid, "status": status, "path": {"type": "string"}})},
    },
}
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, schema)
t = {x["id"]: x for x in doc["tests"]}
print("valid", len(doc["checkouts"]), len(doc["builds"]),
      t["bugbridge:job42-baseline-sr-capacity"]["status"],
      t["bugbridge:job42-patched-sr-capacity"]["status"],
      t["bugbridge:job42-patched-sd-trim"]["status"],
      t["bugbridge:job42-patched-sr-capacity"]["path"])
PYEOF
out=$(cat "$TMP/check")
like "python jsonschema accepts the document" "$out" "^valid "
is "two checkouts and two builds (patched and baseline)" "$(echo "$out" | cut -d' ' -f2-3)" "2 2"
is "KCIDB status values: baseline FAIL, patched PASS, skipped SKIP" \
	"$(echo "$out" | cut -d' ' -f4-6)" "FAIL PASS SKIP"
is "test path is dot-separated under scsi" "$(echo "$out" | cut -d' ' -f7)" "scsi.sr-capacity"
bb job show 43 --kcidb >/dev/null 2>"$TMP/err43"
is "an unfinished job is refused" "$?" 1
like "saying why" "$(cat "$TMP/err43")" "not finished"
done_testing
