# benchlib.sh: what the kernel benchmarks share (sourced, not run: bench.sh
# runs only tools/bench-*.sh).  bench_setup CACHE wipes the scratch cache,
# makes $WORK (removed at exit) and a configuration there whose [runner]
# section ends with the lines on stdin; bb and q are the CLI and the
# database.  Needs SRC and BB_BUILD.
bench_setup() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/bbbench.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	rm -rf "$1"
	mkdir -p "$1"
	{
		printf '[db]\npath = %s/bb.db\n[log]\nlevel = warn\n' "$WORK"
		printf '[runner]\ncache_dir = %s\npatches_dir = %s/kernel-patches\n' "$1" "$SRC"
		cat
	} >"$WORK/bb.conf"
	export BUGBRIDGE_CONFIG="$WORK/bb.conf"
}
bb() { "$BB_BUILD/bugbridge" "$@"; }
q() { sqlite3 -batch -noheader "$WORK/bb.db" "$@"; }
