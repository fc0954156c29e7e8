#!/bin/sh
# The documentation's links resolve: README.md, docs/*.md and
# kernel-patches/README.md pass tools/check-links.py, and the check is not
# blind: a copy with a link to a file that is gone, an anchor that names no
# heading (in another file and in its own), or a link in a file of docs/
# added later, fails naming the file and line.  README.md stays a map: at
# most 250 lines.
. "$(dirname "$0")/lib/test-lib.sh"
plan 11

check "the tree's links resolve" "$BB_SRC/tools/check-links.py" "$BB_SRC"
lines=$(wc -l <"$BB_SRC/README.md")
check "README.md is at most 250 lines ($lines)" test "$lines" -le 250
links=$(grep -o '](docs/[a-z-]*\.md)' "$BB_SRC/README.md" | sort -u | wc -l)
docs=$(ls "$BB_SRC"/docs/*.md | wc -l)
is "README.md links every file of docs/" "$links" "$docs"

copy="$TMP/src"
mkdir -p "$copy"
(cd "$BB_SRC" && cp --parents -t "$copy" README.md docs/*.md kernel-patches/README.md \
	tests/tracker/README.md)
mkdir -p "$copy/kernel-patches/mutants" "$copy/tests/tracker"

# a file that is gone
rm "$copy/docs/scaling.md"
out=$("$BB_SRC/tools/check-links.py" "$copy" 2>&1)
is "a link to a removed file fails the check" "$?" 1
like "naming the file and line that links it" "$out" \
	'^check-links: docs/configuration\.md:[0-9]+: link to "scaling\.md": no such file$'
cp "$BB_SRC/docs/scaling.md" "$copy/docs/"

# an anchor into another file whose heading was renamed
sed -i 's/^## Known limits$/## Limits known/' "$copy/kernel-patches/README.md"
out=$("$BB_SRC/tools/check-links.py" "$copy" 2>&1)
is "a renamed heading fails the check" "$?" 1
like "naming the anchor" "$out" \
	'^check-links: docs/limits\.md:[0-9]+: link to "\.\./kernel-patches/README\.md#known-limits": no heading "#known-limits" in kernel-patches/README\.md$'
cp "$BB_SRC/kernel-patches/README.md" "$copy/kernel-patches/"

# an anchor in the same file, across a line break in the link's text
sed -i 's/^## Untrusted patches and kernels$/## Untrusted input/' "$copy/docs/security.md"
out=$("$BB_SRC/tools/check-links.py" "$copy" 2>&1)
like "an in-file anchor is checked too" "$out" \
	'^check-links: docs/security\.md:[0-9]+: link to "#untrusted-patches-and-kernels": no heading'
cp "$BB_SRC/docs/security.md" "$copy/docs/"

# a new file in docs/ is read without being listed anywhere
printf '# New\n\nSee [the API](api.md#no-such-part) and [code](`x`).\n' >"$copy/docs/new.md"
out=$("$BB_SRC/tools/check-links.py" "$copy" 2>&1)
like "a file added to docs/ is checked" "$out" \
	'^check-links: docs/new\.md:3: link to "api\.md#no-such-part": no heading'
rm "$copy/docs/new.md"

# links inside code are not links
printf '# New\n\n```\n[a](gone.md)\n```\n`[b](gone.md)`\n' >"$copy/docs/new.md"
check "links inside code blocks and spans are not checked" "$BB_SRC/tools/check-links.py" "$copy"
rm "$copy/docs/new.md"
check "and the repaired copy passes again" "$BB_SRC/tools/check-links.py" "$copy"
done_testing
