#!/bin/sh
# bench.sh: every benchmark figure in one report (`make bench`).
#
# Runs each tools/bench-*.sh in turn.  Each prints its figures as lines
#   name: value unit
# (anything else is commentary).  This collects them into bench.txt (a text
# table) and bench.json (name, value, unit and the command that produced
# it).  Speed is measured here, never in tests.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
export BB_SRC="$SRC" BB_BUILD="${BB_BUILD:-$SRC/build}"
OUT_TXT=${BENCH_TXT:-$SRC/bench.txt}
OUT_JSON=${BENCH_JSON:-$SRC/bench.json}
RAW=$(mktemp)
status=0

for script in "$SRC"/tools/bench-*.sh; do
	[ -x "$script" ] || continue
	name=$(basename "$script" .sh)
	echo "== $name"
	if ! "$script" 2>&1 | tee "$RAW.$name"; then
		echo "!! $name failed"
		status=1
	fi
	printf '%s\t%s\n' "$name" "$script" >>"$RAW"
done

/usr/bin/python3 - "$RAW" "$OUT_TXT" "$OUT_JSON" <<'PYEOF'
import json, re, sys, os
raw, out_txt, out_json = sys.argv[1:4]
rows = []
for line in open(raw):
    name, script = line.rstrip("\n").split("\t")
    for l in open(raw + "." + name):
        m = re.match(r"^\s*([A-Za-z][\w .,/()=>-]*?):\s+(-?[0-9][0-9.]*)\s*(\S*)\s*$", l)
        if not m or l.lstrip().startswith("#"):
            continue
        try:
            value = float(m.group(2))
        except ValueError:      # "6.1.192" is a version, not a figure
            continue
        rows.append({"bench": name, "name": m.group(1), "value": value,
                     "unit": m.group(3), "command": os.path.relpath(script)})
w = max([len(r["name"]) for r in rows] + [10])
with open(out_txt, "w") as f:
    for r in rows:
        f.write("%-16s %-*s %12g %-6s (%s)\n" % (r["bench"], w, r["name"], r["value"], r["unit"], r["command"]))
json.dump({"figures": rows}, open(out_json, "w"), indent=1)
print("\n== report (%d figures): %s, %s" % (len(rows), out_txt, out_json))
print(open(out_txt).read(), end="")
PYEOF
[ $? = 0 ] || { echo "!! the report could not be written"; status=1; }
rm -f "$RAW" "$RAW".*
exit $status
