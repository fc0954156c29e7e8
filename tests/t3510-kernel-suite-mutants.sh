#!/bin/sh
# t3510: no test that cannot fail.  For every mutant in
# kernel-patches/tools/mutants (a small throw-away breakage of the 6.1
# completion path), build linux-source-6.1 + harness + the mutant, boot the
# whole suite, and require that the tests the mutant targets say "not ok".
# One kernel build and one boot per mutant: slow, so opt-in with
# BUGBRIDGE_SLOW=1.  BB_MUTANTS="name ..." limits the run to some mutants.
. "$(dirname "$0")/lib/test-lib.sh"
KP=$BB_SRC/kernel-patches
. "$KP/tools/kdev-lib.sh"

[ "${BUGBRIDGE_SLOW:-0}" = 1 ] || skip_all "slow (a kernel build per mutant): set BUGBRIDGE_SLOW=1"
for need in qemu-system-x86_64 python3 patch flock gcc make; do
	command -v "$need" >/dev/null 2>&1 || skip_all "$need not installed"
done
[ -f "$KSRC_TARBALL" ] || skip_all "no $KSRC_TARBALL"
[ -x /bin/busybox ] || skip_all "no /bin/busybox"

MUTANTS=$KP/tools/mutants
wanted() { [ -z "${BB_MUTANTS:-}" ] || case " $BB_MUTANTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# First pass: the plan.
n=0 name=
while read -r key rest; do
	case $key in
	mutant) name=$rest ;;
	tests) wanted "$name" && for t in $rest; do n=$((n + 1)); done ;;
	esac
done <"$MUTANTS"
plan $n

kdev_setup || { echo "Bail out! kernel tree not ready"; exit 1; }

# run_mutant NAME "TESTS" BASE FILE OLD NEW
run_mutant() {
	_name=$1 _tests=$2 _base=$3 _file=$4 _old=$5 _new=$6
	_ok=1
	kdev_reset
	if [ -n "$_base" ]; then kdev_apply_series "$KP/$_base" || _ok=0; fi
	[ $_ok = 1 ] && { kdev_apply_series "$KP/harness" || _ok=0; }
	[ $_ok = 1 ] && { kdev_mutate "$_file" "$_old" "$_new" 2>"$TMP/mutate.log" || _ok=0; }
	[ $_ok = 1 ] && { kdev_build || _ok=0; }
	kdev_reset
	if [ $_ok = 1 ]; then
		python3 "$KP/tools/bbrun.py" --kernel "$KDEV/out/arch/x86/boot/bzImage" \
			--work "$TMP/run-$_name" >"$TMP/run-$_name.out" 2>&1
		python3 "$KP/tools/ktap-check.py" --names --parse-only "$TMP/run-$_name/ktap.txt" \
			>"$TMP/names-$_name" 2>&1
		_caught=$(sed -n 's/^not ok \([^ ]*\).*/\1/p' "$TMP/names-$_name" | tr '\n' ' ')
		# A targeted test with no result line at all (the kernel hung or
		# crashed before it finished) counts as not ok, as the runner says.
		for _t in $_tests; do
			grep -q "^\(not \)\{0,1\}ok $_t\( \|$\)" "$TMP/names-$_name" ||
				_caught="$_caught $_t(no result)"
		done
		diag "mutant $_name: not ok: ${_caught:-none}$(grep -q TIMEOUT "$TMP/run-$_name.out" && echo ' (timeout)')"
	else
		_caught=
		diag "mutant $_name: could not be built: $(cat "$TMP/mutate.log" 2>/dev/null)"
	fi
	for _t in $_tests; do
		case " $_caught " in
		*" $_t "*|*" $_t(no result) "*) ok "mutant $_name turns $_t not ok" ;;
		*) not_ok "mutant $_name turns $_t not ok" ;;
		esac
	done
}

name= tests= base= file= old= new=
flush() {
	[ -n "$name" ] && wanted "$name" && run_mutant "$name" "$tests" "$base" "$file" "$old" "$new"
	name= tests= base= file= old= new=
}
while IFS= read -r line; do
	key=${line%% *} rest=${line#* }
	case $key in
	mutant) flush; name=$rest ;;
	tests) tests=$rest ;;
	base) base=$rest ;;
	file) file=$rest ;;
	old) old=$rest ;;
	new) new=$rest ;;
	esac
done <"$MUTANTS"
flush

done_testing
