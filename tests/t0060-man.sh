#!/bin/sh
# The manual pages: mandoc's lint has nothing to say about them;
# bugbridge.conf(5) lists exactly the keys, in order, with the defaults and
# help that `bugbridge config example` prints, and a key added to the table
# shows up in it with nothing else edited; each program's page names the
# options its --help names, and no other; make install puts them in
# man1, man5 and man8.
. "$(dirname "$0")/lib/test-lib.sh"
plan 11

man="$BB_BUILD/man"
pages="bugbridge.1 bugbridge.conf.5 bugbridged.8 bugbridge-runner.8"
if command -v mandoc >/dev/null; then
	out=$(cd "$man" && mandoc -T lint $pages 2>&1)
	is "mandoc -T lint is clean on the four pages" "$out" ""
else
	not_ok "mandoc -T lint is clean on the four pages"; diag "no mandoc (make deps installs it)"
fi

# "section.key = default" and "section.key: help", from the example file ...
example_keys() {
	awk '/^\[/ { s = substr($0, 2, length($0) - 2); next }
	     /^# / && s { help = substr($0, 3); next }
	     / = / && s { k = $1; v = substr($0, index($0, " = ") + 3); if (v == "\"\"") v = ""
	                  print s "." k " = " v; print s "." k ": " help }'
}
# ... and from the page's source: ".Ss Bq SECTION", ".It Cm KEY No = Li \"\&VALUE\"" or
# "... = Qq", then the help's lines up to its first generated sentence.
page_keys() {
	awk 'function flush() { if (k != "") { sub(/ *$/, "", h); sub(/\.$/, "", h); print s "." k ": " h c }; k = "" }
	     function unesc(x) { gsub(/\\&/, "", x); gsub(/\\e/, "\\", x); gsub(/\\\(dq/, "\"", x); return x }
	     /^\.Ss Bq / { flush(); s = $3; next }
	     /^\.It Cm / { flush(); k = $3; v = ""
	                   if ($6 == "Li") { v = substr($0, index($0, "Li \"") + 4); sub(/"$/, "", v) }
	                   print s "." k " = " unesc(v); h = ""; c = ""; done = 0; enum = 0; next }
	     /^\.El/ { flush(); next }
	     k == "" { next }
	     /^One of$/ { enum = 1 }
	     /^(One of|A boolean|A comma-separated|A secret)/ { done = 1 }
	     enum && /^\.Ql / { x = $0; sub(/^\.Ql "/, "", x); sub(/" \.$/, "", x); c = ": " unesc(x); enum = 0 }
	     /^\./ { done = 1 }
	     !done { h = h unesc($0) " " }' "$1"
}
"$BB_BUILD/bugbridge" config example | example_keys >"$TMP/example"
page_keys "$man/bugbridge.conf.5" >"$TMP/page"
n=$(grep -c ' = ' "$TMP/example")
if cmp -s "$TMP/example" "$TMP/page"; then
	ok "bugbridge.conf(5) has the $n keys of 'config example', in order, with their defaults and help"
else
	not_ok "bugbridge.conf(5) has the keys of 'config example', in order, with their defaults and help"
	diag "$(diff -u "$TMP/example" "$TMP/page" | head -20)"
fi
test "$n" -gt 80; is "and that is every key (more than 80)" "$?" 0

# A key added to the table: the page the build writes has it.
cp "$BB_SRC/lib/config_keys.c" "$TMP/config_keys.c"
sed -i 's|^};$|\t{ "web", "drift_probe", CONF_INT, "7", NULL, 0, "a key added after the page was written" },\n};|' \
	"$TMP/config_keys.c"
${CC:-cc} -std=c17 -iquote "$BB_SRC/lib" -o "$TMP/conf-man" "$BB_SRC/tools/conf-man.c" "$TMP/config_keys.c"
"$TMP/conf-man" "$BB_SRC/man/bugbridge.conf.5.in" >"$TMP/drift.5"
like "a key added to lib/config_keys.c is in the page written from it" \
	"$(page_keys "$TMP/drift.5")" '^web\.drift_probe = 7$'

# Options: those --help names (of every subcommand, for bugbridge) are the
# page's .Fl ones.
help_opts() { grep -o -- '--[a-z][a-z-]*' | sort -u; }
page_opts() { grep -o '\(^\.\|[ ]\)Fl -[a-z][a-z-]*' "$1" | sed 's/.*Fl -/--/' | sort -u; }
{
	"$BB_BUILD/bugbridge" --help
	for c in db status config job digest; do "$BB_BUILD/bugbridge" $c --help; done
} 2>&1 | help_opts >"$TMP/help.bugbridge"
"$BB_BUILD/bugbridged" --help 2>&1 | help_opts >"$TMP/help.bugbridged"
"$BB_BUILD/bugbridge-runner" --help 2>&1 | help_opts >"$TMP/help.bugbridge-runner"
for p in bugbridge.1 bugbridged.8 bugbridge-runner.8; do
	prog=${p%.*}
	page_opts "$man/$p" >"$TMP/page.$prog"
	if cmp -s "$TMP/help.$prog" "$TMP/page.$prog"; then
		ok "$p names the $(wc -l <"$TMP/page.$prog") options '$prog --help' names"
	else
		not_ok "$p names the options '$prog --help' names"
		diag "$(diff -u "$TMP/help.$prog" "$TMP/page.$prog")"
	fi
done
# the commands: "db migrate | db version", "job add | show | ..." in --help
"$BB_BUILD/bugbridge" --help | python3 -c '
import re, sys
for line in sys.stdin:
    m = re.match(r"  ([a-z]+) ([a-z |]*?)(\[.*)?: ", line)
    if not m:
        continue
    subs = [w for w in m.group(2).split() if w not in ("|", m.group(1))]
    for s in subs or [""]:
        print((m.group(1) + " " + s).strip())' | sort -u >"$TMP/help.cmds"
python3 -c '
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"\.(?:It )?Cm ([a-z]+)(?: ([a-z]+))?(?: |$)", line)
    if m and m.group(1) not in ("true", "false"):
        print(" ".join(g for g in m.groups() if g))' "$man/bugbridge.1" | sort -u >"$TMP/page.cmds"
if cmp -s "$TMP/help.cmds" "$TMP/page.cmds"; then
	ok "bugbridge.1 describes the $(wc -l <"$TMP/page.cmds") commands of 'bugbridge --help'"
else
	not_ok "bugbridge.1 describes the commands of 'bugbridge --help'"
	diag "$(diff -u "$TMP/help.cmds" "$TMP/page.cmds")"
fi

root="$TMP/root"
make -s -C "$BB_SRC" O="$BB_BUILD" install DESTDIR="$root" PREFIX=/usr >"$TMP/install.log" 2>&1
is "make install succeeds" "$?" 0
is "and installs the four pages in their sections" \
	"$(cd "$root/usr/share/man" && ls man1 man5 man8 | grep '\.' | tr '\n' ' ')" \
	"bugbridge.1 bugbridge.conf.5 bugbridge-runner.8 bugbridged.8 "
cmp -s "$root/usr/share/man/man5/bugbridge.conf.5" "$man/bugbridge.conf.5"
is "the installed bugbridge.conf(5) is the generated one" "$?" 0
done_testing
