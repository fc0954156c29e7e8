#!/bin/sh
# A runner whose configuration no seed build fits builds the kernel in full
# (minutes): it says why, naming the ingredient that differs from the
# nearest seed, in its log and on the job page's build stage.  A seed it
# does use gets a record of what it was made from (<key>.parts), so later
# runners can be told.  Jobs are cancelled once the build starts: no full
# build is paid for here.
. "$(dirname "$0")/lib/test-lib.sh"
. "$(dirname "$0")/lib/runner-lib.sh"
runner_require

plan 14
port=$(free_port)
runner_setup <<EOF2
[web]
listen = 127.0.0.1:$port
[tracker]
url = http://127.0.0.1:9
poll_interval = 3600
[digest]
every = never
EOF2


# A runner configured like the cache's seed (t3010 made it, or this job
# does, on a cold cache): the seed's ingredients are recorded beside it.
id=$(bb job add --bug 9370 --none 2>/dev/null)
"$BB_BUILD/bugbridge-runner" --once >"$TMP/seeded.log" 2>&1 &
pid=$!
wait_stage $id boot
like "a fitting seed is used, or kept" "$(cat "$TMP/seeded.log")" \
	"patched: out/ seeded from $RUNNER_CACHE/seed/|kept $RUNNER_CACHE/seed/[0-9a-f]+ as the seed build"
key=$(sed -n -e "s|.*out/ seeded from $RUNNER_CACHE/seed/\([0-9a-f]*\)$|\1|p" \
	-e "s|.*kept $RUNNER_CACHE/seed/\([0-9a-f]*\) as the seed build.*|\1|p" "$TMP/seeded.log" | head -1)
like "and what it was made from is kept beside it" \
	"$(cat "$RUNNER_CACHE/seed/$key.parts" 2>/dev/null)" "config_variant	base [0-9a-f]+"
bb job cancel $id >/dev/null
wait $pid

# Another config variant: no seed fits, and the runner says which part differs.
id=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_CONFIG_VARIANT=kasan "$BB_BUILD/bugbridge-runner" --once >"$TMP/full.log" 2>&1 &
pid=$!
wait_stage $id build
like "the log says why the kernel is built in full" "$(cat "$TMP/full.log")" \
	"patched: no seed build to start from, so the kernel is built in full: no seed build for this configuration \(key [0-9a-f]+\); the nearest, $key, differs in \[runner\] config_variant \(kasan [0-9a-f]+ here, base [0-9a-f]+ in the seed\)"
is "the build stage says so too" \
	"$(sql "SELECT detail LIKE 'full build: no seed build for this configuration%config_variant (kasan%' FROM job_stages WHERE job_id = $id AND stage = 'build'")" 1
bg bbd "$BB_BUILD/bugbridged"
wait_port "$port" 20
like "and the job page shows it on the build stage" "$(curl -s "http://127.0.0.1:$port/job/$id" | tr '\n' ' ')" \
	"<td>build</td>.*full build: no seed build for this configuration \(key [0-9a-f]+\); the nearest, $key, differs in \[runner\] config_variant \(kasan"
bb job cancel $id >/dev/null
wait $pid
is "the runner exits 0 after the cancel" "$?" 0

# The same kernel-patches at another path (another checkout, another
# prefix, an upgrade that changed nothing): the key is made of the files'
# bytes, never of where they are, so the same seed serves (issue 33).
cp -a "$KP" "$TMP/kp"
id=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_PATCHES_DIR=$TMP/kp "$BB_BUILD/bugbridge-runner" --once >"$TMP/path.log" 2>&1 &
pid=$!
wait_stage $id boot
like "another checkout of the same content uses the same seed" "$(cat "$TMP/path.log")" \
	"patched: out/ seeded from $RUNNER_CACHE/seed/$key"
bb job cancel $id >/dev/null
wait $pid
is "the runner exits 0 after the cancel" "$?" 0

# A change of content there is another key, and the runner names the file.
printf '# a comment changes the bytes, not the kernel\n' >>"$TMP/kp/configs/base.config"
id=$(bb job add --bug 9370 --none 2>/dev/null)
BUGBRIDGE_RUNNER_PATCHES_DIR=$TMP/kp "$BB_BUILD/bugbridge-runner" --once >"$TMP/content.log" 2>&1 &
pid=$!
wait_stage $id build
like "changed content: the log names the file that differs" "$(cat "$TMP/content.log")" \
	"no seed build for this configuration \(key [0-9a-f]+\); the nearest, $key, differs in configs/base.config \([0-9a-f]+ here, [0-9a-f]+ in the seed\)"
bb job cancel $id >/dev/null
wait $pid
is "the runner exits 0 after the cancel" "$?" 0
done_testing
