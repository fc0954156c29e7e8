#!/bin/sh
# The stand-in tracker's behaviour beyond the recorded exchanges: search
# filters, history new_since, private comments and attachments, private
# bugs, users' groups, reopening, all-or-nothing
# multi-bug updates, last_change_time bumps, concurrent writers.
. "$(dirname "$0")/lib/test-lib.sh"
plan 32

BOT=botkey0123456789abcdefghijABCDEFGHIJ0001
ADM=admkey0123456789abcdefghijABCDEFGHIJ0000
port=$(free_port)
bg standin "$BB_BUILD/bz-standin" --listen "127.0.0.1:$port" --db "$TMP/standin.db" \
	--seed "$BB_SRC/tests/data/tracker-seed.json"
wait_port "$port" || { not_ok "bz-standin starts"; exit 1; }
B=http://127.0.0.1:$port/rest

ids() { curl -s "$B/bug?include_fields=id&$1" | python3 -c '
import json, sys
print(" ".join(str(b["id"]) for b in json.load(sys.stdin)["bugs"]))'; }
put() { curl -s -X PUT -H 'Content-Type: application/json' -d "$2" "$B/bug/$1?api_key=$BOT"; }
post() { curl -s -H 'Content-Type: application/json' -d "$2" "$B/$1?api_key=${3:-$BOT}"; }
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

is "search by summary substring, any case" "$(ids 'summary=BLK_MQ')" "9371"
is "search by whiteboard substring" "$(ids 'whiteboard=nothing-has-this')" ""
is "search by creator" "$(ids 'creator=user@example.com&order=bug_id')" "9370 9371 9372"
is "search by an unknown creator matches nothing" "$(ids 'creator=nobody@example.com')" ""
is "search by resolution (none set)" "$(ids 'resolution=FIXED')" ""
is "admin sees the private bug in a search" \
	"$(ids "product=Linux&component=SCSI&api_key=$ADM")" "9372 9373"
is "bad creation_time is 400/56" \
	"$(curl -s "$B/bug?creation_time=soon" | field 'd["code"]')" 56
is "limit/offset page through" "$(ids 'product=Linux&limit=1&offset=1&order=bug_id')" "9372"

# a field change bumps last_change_time and is in the history
sleep 1.1
before=$(curl -s "$B/bug/9371?include_fields=last_change_time" | field 'd["bugs"][0]["last_change_time"]')
put 9371 '{"whiteboard":"bugbridge:queued"}' >/dev/null
after=$(curl -s "$B/bug/9371?include_fields=last_change_time" | field 'd["bugs"][0]["last_change_time"]')
[ "$after" \> "$before" ]; is "a PUT bumps last_change_time ($before -> $after)" "$?" 0
is "history new_since before the change shows it" \
	"$(curl -s "$B/bug/9371/history?new_since=$before" | field 'd["bugs"][0]["history"][0]["changes"][0]["added"]')" \
	"bugbridge:queued"
is "history new_since at the change is strict (empty)" \
	"$(curl -s "$B/bug/9371/history?new_since=$after" | field 'len(d["bugs"][0]["history"])')" 0

# resolve, then reopen: the resolution is cleared
put 9371 '{"status":"RESOLVED","resolution":"INVALID"}' >/dev/null
out=$(put 9371 '{"status":"CONFIRMED"}')
is "reopening clears the resolution" \
	"$(printf '%s' "$out" | field 'd["bugs"][0]["changes"]["resolution"]["removed"]+"->"+d["bugs"][0]["changes"]["resolution"]["added"]')" \
	"INVALID->"
is "VERIFIED keeps the resolution" \
	"$(put 9371 '{"status":"RESOLVED","resolution":"FIXED"}' >/dev/null; put 9371 '{"status":"VERIFIED"}' | field 'sorted(d["bugs"][0]["changes"])')" \
	"['status']"

# several bugs in one PUT: an error on one leaves all unchanged
out=$(put 9370 '{"ids":[9370,9372],"whiteboard":"both","status":"NEW"}')
is "multi-bug PUT with a bad status fails (51)" "$(printf '%s' "$out" | field 'd["code"]')" 51
is "and changed neither bug" "$(ids 'whiteboard=both')" ""

# keywords: set replaces, remove removes; changes are sorted and joined
out=$(put 9372 '{"keywords":{"set":["patch","needinfo","regression"]}}')
is "keyword set: sorted, joined with ', '" \
	"$(printf '%s' "$out" | field 'd["bugs"][0]["changes"]["keywords"]["added"]')" \
	"needinfo, patch, regression"

# private comments need the insider (admin) group
out=$(post bug/9370/comment '{"comment":"secret","is_private":true}')
is "bot cannot add a private comment (113)" "$(printf '%s' "$out" | field 'd["code"]')" 113
post bug/9370/comment '{"comment":"secret","is_private":true}' $ADM >/dev/null
is "an anonymous reader does not see the private comment" \
	"$(curl -s "$B/bug/9370/comment" | field 'sum(c["text"]=="secret" for c in d["bugs"]["9370"]["comments"])')" 0
is "admin does" \
	"$(curl -s "$B/bug/9370/comment?api_key=$ADM" | field 'sum(c["text"]=="secret" for c in d["bugs"]["9370"]["comments"])')" 1

# private attachments and private bugs: only those who may see them do
out=$(post bug/9370/attachment '{"data":"c2VjcmV0Cg==","file_name":"p.diff","summary":"secret fix","content_type":"text/plain","is_private":true}' $ADM)
paid=$(printf '%s' "$out" | field 'd["ids"][0]')
is "the bot does not list a private attachment, nor its auto-comment" \
	"$(curl -s "$B/bug/9370/attachment?api_key=$BOT" | field "sum(a['id']==$paid for a in d['bugs']['9370'])") $(curl -s "$B/bug/9370/comment?api_key=$BOT" | field "sum(c['attachment_id']==$paid for c in d['bugs']['9370']['comments'])")" "0 0"
is "admin lists it, private (is_private 1)" \
	"$(curl -s "$B/bug/9370/attachment?api_key=$ADM" | field "[a['is_private'] for a in d['bugs']['9370'] if a['id']==$paid]")" "[1]"
is "the private bug's attachments and history are 102 for the bot" \
	"$(curl -s "$B/bug/9373/attachment?api_key=$BOT" | field 'd["code"]') $(curl -s "$B/bug/9373/history?api_key=$BOT" | field 'd["code"]')" "102 102"
is "and it cannot comment there (102)" \
	"$(post bug/9373/comment '{"comment":"hello"}' | field 'd["code"]')" 102
is "GET /rest/user: the bot sees its own groups" \
	"$(curl -s "$B/user?names=bot@example.com&api_key=$BOT" | field '[g["name"] for g in d["users"][0]["groups"]]')" \
	"['bz_canusewhines', 'canconfirm', 'editbugs']"
is "... not another account's (no groups member)" \
	"$(curl -s "$B/user?names=user@example.com&api_key=$BOT" | field '"groups" in d["users"][0]')" False
is "... which admin sees" \
	"$(curl -s "$B/user?names=bot@example.com&api_key=$ADM" | field '"editbugs" in [g["name"] for g in d["users"][0]["groups"]]')" True

# an attachment without a comment: the auto-comment has no blank line
out=$(post bug/9371/attachment '{"data":"aGVsbG8K","file_name":"h.txt","summary":"hello","content_type":"text/plain"}')
aid=$(printf '%s' "$out" | field 'd["ids"][0]')
is "attachment auto-comment without a comment" \
	"$(curl -s "$B/bug/9371/comment" | field "[c['text'] for c in d['bugs']['9371']['comments'] if c['attachment_id']==$aid][0]")" \
	"Created attachment $aid
hello"

# twelve concurrent comment POSTs all land, each once
pids=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	post bug/9372/comment "{\"comment\":\"parallel $i\"}" >"$TMP/par.$i" &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
n=$(for f in "$TMP"/par.*; do cat "$f"; echo; done | grep -c '^{"id":[0-9]*}$')
is "12 parallel comment POSTs all answered 201 {id}" "$n" 12
is "and stored once each" \
	"$(curl -s "$B/bug/9372/comment" | field 'len(set(c["text"] for c in d["bugs"]["9372"]["comments"] if c["text"].startswith("parallel ")))')" 12
# one comment by id
is "GET /rest/bug/comment/3: the attachment's auto-comment, count 2" \
	"$(curl -s "$B/bug/comment/3" | field 'd["comments"]["3"]["attachment_id"], d["comments"]["3"]["count"]')" \
	"(1, 2)"
is "an unknown comment id is 400/111" "$(curl -s "$B/bug/comment/99999" | field 'd["code"]')" 111

# the benchmark fixture: 10,000 more bugs, found by a narrow search
port2=$(free_port)
bg bench "$BB_BUILD/bz-standin" --quiet --listen "127.0.0.1:$port2" --db "$TMP/bench.db" \
	--seed "$BB_SRC/tests/data/tracker-bench-seed.json"
wait_port "$port2" 60
is "bench fixture: 10,000 bulk bugs in Linux/IDE" \
	"$(curl -s "http://127.0.0.1:$port2/rest/bug?product=Linux&component=IDE&include_fields=id" | field 'len(d["bugs"])')" \
	10000
done_testing
