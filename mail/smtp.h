/*
 * smtp: hand one composed message to the configured mail server through
 * libcurl (smtp:// or smtps://, STARTTLS and AUTH from [smtp]).
 *
 * The caller owns the retry policy; smtp_send() only says which of three
 * things happened, with the server's last reply line for the record.  The
 * password (config_secret "smtp.password") is given to libcurl and nowhere
 * else: it is never logged and never part of a reply.
 */
#ifndef BB_SMTP_H
#define BB_SMTP_H

#include "buf.h"

enum smtp_result {
	SMTP_SENT,	/* the server accepted the message (250 after DATA) */
	SMTP_RETRY,	/* no connection, timeout, or a 4xx: try again later */
	SMTP_FAILED,	/* a 5xx: the server refused it for good */
};

/*
 * Send msg (CRLF line ends) from the envelope sender `from` to the
 * recipients `rcpts` (comma-separated; "Name <addr>" or addr).  reply gets
 * the server's last reply ("550 5.1.1 no such user") or what went wrong
 * locally.
 */
enum smtp_result smtp_send(const char *from, const char *rcpts, const char *msg,
			   struct buf *reply);

/*
 * A session with nothing to send (EHLO, STARTTLS and AUTH as configured,
 * NOOP, QUIT): does the server answer?  SMTP_SENT when it took the NOOP,
 * reply as for smtp_send().
 */
enum smtp_result smtp_noop(struct buf *reply);

#endif
