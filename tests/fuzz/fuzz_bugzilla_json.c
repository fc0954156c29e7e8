/*
 * Fuzz target: decoding Bugzilla answers (bugzilla_json.c) on arbitrary
 * text: every parser must refuse or accept without crashing or leaking.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bugzilla.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bz_bug_list bugs = { 0 };
	struct bz_comment_list comments = { 0 };
	struct bz_attachment_list atts = { 0 };
	struct bz_status_list statuses = { 0 };
	struct buf err = BUF_INIT, out = BUF_INIT;
	char *text = malloc(size + 1);
	long code, id;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	bz_parse_error(text, &code, &out);
	bz_parse_version(text, &out, &err);
	bz_parse_time(text, &out, &err);
	bz_parse_bugs(text, &bugs, &err);
	bz_parse_comments(text, 9370, &comments, &err);
	bz_parse_attachments(text, 9370, &atts, &err);
	bz_parse_attachment_map(text, &atts, &err);
	bz_parse_statuses(text, &statuses, &err);
	bz_parse_id(text, &id, &err);
	bz_bug_list_release(&bugs);
	bz_comment_list_release(&comments);
	bz_attachment_list_release(&atts);
	bz_status_list_release(&statuses);
	buf_release(&err);
	buf_release(&out);
	free(text);
	return 0;
}
