#!/bin/sh
# t4100: a real browser (Debian's headless Chromium) loads the overview,
# /component/SCSI and /bug/9370; screenshots are kept as artifacts in
# tests/artifacts/t4100/ (git-ignored), and the page text is checked
# through the DOM the browser built: hostile tracker text must be text,
# never elements.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/web-lib.sh"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip_all "no chromium at $CHROMIUM"
ART="$BB_SRC/tests/artifacts/t4100"
mkdir -p "$ART"

plan 15
web_start </dev/null || { not_ok "bugbridged serves the dashboard"; diag "$(cat "$TMP/bbd.log")"; exit 1; }
ok "bugbridged serves the dashboard"

# browser MODE PATH OUT: MODE is --dump-dom or --screenshot=FILE.
browser() {
	_profile=$(mktemp -d "$TMP/chromium.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$_profile" --window-size=1280,1400 \
		"$1" "$WEB$2" 2>>"$TMP/chromium.log"
}

for p in / /component/SCSI /bug/9370; do
	name=$(printf '%s' "$p" | tr '/' '_' | sed 's/^_$/_overview/; s/^_//')
	rm -f "$ART/$name.png"
	browser --screenshot="$ART/$name.png" "$p" >/dev/null
	check "screenshot of $p saved ($ART/$name.png)" \
		python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(not (d[:8]==b"\x89PNG\r\n\x1a\n" and len(d)>10000))' "$ART/$name.png"
done

dom=$(browser --dump-dom / | tee "$ART/overview.dom.html" | tr '\n' ' ')
like "overview DOM: components table" "$dom" '<a href="/product/IO%2FStorage/SCSI">SCSI</a>'
like "overview DOM: queue with the running job" "$dom" 'running: build'
like "overview DOM: the stylesheet is linked" "$dom" '<link rel="stylesheet" href="/style.css">'

dom=$(browser --dump-dom /component/SCSI | tee "$ART/component_SCSI.dom.html" | tr '\n' ' ')
like "component DOM: both open SCSI bugs" "$dom" 'href="/bug/9370".*href="/bug/9371"'
like "component DOM: hostile summary is text" "$dom" 'lost completion &lt;script&gt;alert\(1\)&lt;/script&gt; &amp;'

dom=$(browser --dump-dom /bug/9370 | tee "$ART/bug_9370.dom.html" | tr '\n' ' ')
like "bug DOM: heading" "$dom" '<h1>Bug 9370: sd: lost completion &lt;script&gt;'
unlike "bug DOM: no script element was created" "$dom" '<script'
unlike "bug DOM: no img element was created" "$dom" '<img'
like "bug DOM: test cases" "$dom" 'scsi_completion_basic'
like "bug DOM: posts with state" "$dom" 'held'

# The stylesheet the browser fetched is the embedded one.
like "the embedded stylesheet is served" "$(raw /style.css)" 'font: 15px/1.45 system-ui'
done_testing
