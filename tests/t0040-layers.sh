#!/bin/sh
# The folders' edges (tools/layers) hold: the layer check passes on the
# tree, and a deliberately added forbidden include (web/ including a
# tracker header; cli/ including an inner mail header) makes both the check
# (one line naming the file and the header) and the build fail.
. "$(dirname "$0")/lib/test-lib.sh"
plan 9

check "the layer check passes on the tree" "$BB_SRC/tools/check-layers.sh" "$BB_SRC"

# A copy of the sources to break (only what the check and one compile need).
copy="$TMP/src"
mkdir -p "$copy"
(cd "$BB_SRC" && git ls-files -z -- Makefile tools lib tracker triage mail web runner cli \
	server | xargs -0 cp --parents -t "$copy")

sed -i '0,/#include "html.h"/s//#include "html.h"\n#include "bugzilla.h"/' "$copy/web/page_bug.c"
out=$("$copy/tools/check-layers.sh" "$copy" 2>&1)
is "web/ including a tracker header fails the check" "$?" 1
is "with one line" "$(printf '%s\n' "$out" | wc -l)" 1
like "naming the file, the header and the edge" "$out" \
	'^web/page_bug\.c: includes tracker/bugzilla\.h: web may not use tracker \(tools/layers\)$'
make -s -C "$copy" O="$TMP/build" "$TMP/build/obj/web/page_bug.o" >"$TMP/cc.log" 2>&1
is "the build refuses it too (web/ compiles without tracker/ on its path)" "$?" 2
like "the compiler names the header" "$(cat "$TMP/cc.log")" "bugzilla\.h: No such file"

cp "$BB_SRC/web/page_bug.c" "$copy/web/page_bug.c"
sed -i '0,/#include "mail.h"/s//#include "mail.h"\n#include "smtp.h"/' "$copy/cli/cmd_digest.c"
out=$("$copy/tools/check-layers.sh" "$copy" 2>&1)
is "an inner header of an allowed folder fails the check" "$?" 1
like "naming the public header instead" "$out" \
	'^cli/cmd_digest\.c: includes mail/smtp\.h: only mail/mail\.h is public$'

cp "$BB_SRC/cli/cmd_digest.c" "$copy/cli/cmd_digest.c"
check "and the repaired copy passes again" "$copy/tools/check-layers.sh" "$copy"
done_testing
