# kdev-lib.sh: a cached linux-source-6.1 tree for tests, sourced by
# tests/t35*-kernel-*.sh.
#
# The tree lives in $KDEV (default ${BUGBRIDGE_CACHE:-${XDG_CACHE_HOME:-
# $HOME/.cache}/bugbridge}/kdev), never in the repository: KDEV/linux is the
# extracted source, KDEV/out the one build directory (incremental, ccache).
# Variants are made by applying patch series to the tree and undone right
# after the build; KDEV/applied is the undo stack, so a run that died half
# way is cleaned up by the next.  KDEV/lock serialises users of the cache.
#
#   kdev_setup                 extract once, lock, undo leftovers
#   kdev_apply_series DIR      apply DIR/series with patch -p1
#   kdev_mutate FILE OLD NEW   replace OLD by NEW (\n, \t escapes) in FILE
#   kdev_reset                 undo everything applied since kdev_setup
#   kdev_build                 build bzImage of the current tree (KDEV/out)
# Every function returns non-zero on failure with the reason on stderr.

# The caller sets KP to the kernel-patches directory.
KDEV=${KDEV:-${BUGBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bugbridge}/kdev}
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

kdev_setup() {
	mkdir -p "$KDEV" || return 1
	exec 9>"$KDEV/lock"
	flock 9 || return 1
	if [ ! -f "$KDEV/linux/.bb-extracted" ]; then
		rm -rf "$KDEV/linux" "$KDEV/linux.tmp"
		mkdir -p "$KDEV/linux.tmp" &&
		tar -xJf "$KSRC_TARBALL" -C "$KDEV/linux.tmp" --strip-components=1 &&
		touch "$KDEV/linux.tmp/.bb-extracted" &&
		mv "$KDEV/linux.tmp" "$KDEV/linux" || return 1
	fi
	kdev_reset
}

kdev_apply_series() {
	_dir=$1
	while IFS= read -r _p || [ -n "$_p" ]; do
		case $_p in ''|'#'*) continue ;; esac
		_p=${_p%% *}
		if ! patch -d "$KDEV/linux" -p1 -s -f --dry-run \
			-i "$_dir/$_p" >"$KDEV/patch.log" 2>&1; then
			cat "$KDEV/patch.log" >&2
			echo "kdev: $_dir/$_p does not apply" >&2
			return 1
		fi
		patch -d "$KDEV/linux" -p1 -s -f --no-backup-if-mismatch \
			-i "$_dir/$_p" >/dev/null 2>&1 || return 1
		printf 'patch %s\n' "$_dir/$_p" >>"$KDEV/applied"
	done <"$_dir/series"
}

kdev_mutate() {
	_f=$KDEV/linux/$1
	cp "$_f" "$_f.bb-orig" || return 1
	printf 'file %s\n' "$1" >>"$KDEV/applied"
	python3 - "$_f" "$2" "$3" <<'EOF' || return 1
import sys
path, old, new = sys.argv[1:]
import re
esc = lambda s: re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)
old, new = esc(old), esc(new)
text = open(path).read()
if old not in text:
    sys.exit("kdev: mutant text not found in %s" % path)
open(path, "w").write(text.replace(old, new))
EOF
}

kdev_reset() {
	[ -f "$KDEV/applied" ] || return 0
	tac "$KDEV/applied" | while read -r _kind _arg; do
		case $_kind in
		patch) patch -d "$KDEV/linux" -p1 -s -f -R --no-backup-if-mismatch \
			-i "$_arg" >/dev/null 2>&1 ||
			{ echo "kdev: cannot undo $_arg: the tree will be extracted again" >&2
			  rm -f "$KDEV/linux/.bb-extracted"; } ;;
		file) mv "$KDEV/linux/$_arg.bb-orig" "$KDEV/linux/$_arg" &&
			touch "$KDEV/linux/$_arg" ;;	# newer than the mutant's objects
		esac
	done
	rm -f "$KDEV/applied"
}

kdev_build() {
	"$KP/tools/build-kernel.sh" "$KDEV/linux" "$KDEV/out" "$@" >"$KDEV/build.log" 2>&1 ||
		{ tail -30 "$KDEV/build.log" >&2; return 1; }
}
