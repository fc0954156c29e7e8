#!/bin/sh
# timecc.sh PROGRAM ARGS...: run a compiler or linker as make asked, and
# append "milliseconds output" to $COST_LOG (config-cost.sh's CC and LD).
t0=$(date +%s%N)
"$@"
rc=$?
t1=$(date +%s%N)
obj=
prev=
for a; do
	[ "$prev" = -o ] && obj=$a
	prev=$a
done
case $obj in
''|/dev/null|/tmp/*) ;;
*) echo "$(( (t1 - t0) / 1000000 )) $obj" >>"$COST_LOG" ;;
esac
exit $rc
