/*
 * smtp_check: what `bugbridge config check` asks the mail server (mail.h):
 * a session with nothing to send (smtp_noop), through the same URL, TLS
 * and AUTH settings a digest uses, and whether there is a list to mail.
 */
#include "mail.h"
#include "smtp.h"
#include "check.h"
#include "config.h"

#include <string.h>

void mail_check(struct check *c)
{
	struct buf reply = BUF_INIT;

	if (!strcmp(cfg_str("digest.every"), "never")) {
		check_skip(c, "smtp", "[digest] every = never: bugbridge sends no mail");
		return;
	}
	if (smtp_noop(&reply) == SMTP_SENT)
		check_ok(c, "smtp", "%s answers (%s)", cfg_str("smtp.url"), reply.ptr);
	else
		check_fail(c, "smtp", "%s: %s", cfg_str("smtp.url"), reply.ptr);
	if (!*cfg_str("smtp.to") && !*cfg_str("smtp.lists") && !cfg_bool("smtp.use_maintainers"))
		check_warn(c, "smtp lists", "none ([smtp] to, lists, use_maintainers): no digest"
			   " has anyone to go to");
	buf_release(&reply);
}
