/*
 * Fuzz target: HTTP routing and every page and API handler, on a small
 * seeded in-memory database.  Input: "METHOD /path\n" then the body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "http.h"
#include "log.h"

static struct db db;

static const char seed[] =
	"INSERT INTO bugs (id, product, component, status, summary, creator, last_change_time)"
	" VALUES (9370, 'IO/Storage', 'SCSI', 'UNCONFIRMED', '<script>x</script> & \"q\"',"
	" 'user@example.com', '2026-12-03T08:00:00Z');"
	"INSERT INTO comments (id, bug_id, count, author, time, text)"
	" VALUES (1, 9370, 0, 'user@example.com', '2026-12-03T08:00:00Z', 'desc');"
	"INSERT INTO candidates (id, bug_id, source, kind, name, sha256, content)"
	" VALUES (1, 9370, 'manual', 'patch', 'fix.patch', 'abc', 'diff');"
	"INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, change, log_dir)"
	" VALUES (1, 9370, 1, 'done', 'pass', 'FAIL->PASS', '/nonexistent');"
	"INSERT INTO jobs (id, bug_id, state, stage) VALUES (2, 9370, 'running', 'build');"
	"INSERT INTO test_results (job_id, name, status) VALUES (1, 'sr-capacity', 'pass');";

static int setup(void)
{
	struct buf err = BUF_INIT;
	struct config c;
	int applied;

	log_open("/dev/null", LOG_ERROR);
	config_init(&c);
	config_install(&c);
	if (db_open(&db, ":memory:", &err) || db_migrate(&db, &applied, &err) ||
	    db_exec(&db, seed))
		abort();
	buf_release(&err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct http_response resp = { .status = 200, .body = BUF_INIT, .fd = -1 };
	struct http_request req = { 0 };
	char *text = malloc(size + 1), *nl, *sp;

	if (!ready)
		ready = !setup();
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	sp = strchr(text, ' ');
	if (!sp)
		goto out;
	*sp = '\0';
	req.method = text;
	req.path = sp + 1;
	req.body = nl ? nl + 1 : "";
	req.body_len = strlen(req.body);
	req.db = &db;
	http_route(&req, &resp);
	buf_release(&resp.body);
	if (resp.fd >= 0)
		close(resp.fd);
	for (int i = 0; i < resp.nheaders; i++) {
		free(resp.headers[i].name);
		free(resp.headers[i].value);
	}
out:
	free(text);
	return 0;
}
