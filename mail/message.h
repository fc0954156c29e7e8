/*
 * message: RFC 5322 / MIME message composition, and the text hygiene that
 * makes tracker text safe to put in a mail.
 *
 * Everything that reaches a header goes through mail_clean_text() inside
 * mail_compose(), so no caller can smuggle a CR or LF into the header block
 * (header injection is impossible by construction, not by care).  Non-ASCII
 * header text is encoded per RFC 2047 (UTF-8, base64 encoded-words that
 * never split a character).  Bodies are UTF-8 text/plain; pure ASCII goes
 * as 7bit, anything else as quoted-printable, so the message is 7-bit clean
 * and survives any relay.
 *
 * Pure code over strings: no database, no network, no logging.  All output
 * goes into caller-owned bufs.
 */
#ifndef BB_MESSAGE_H
#define BB_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "buf.h"

/*
 * Append s to out made safe for one line of a mail: CR, LF, TAB and every
 * other control character become a space, runs of blanks become one,
 * leading and trailing blanks go, and invalid UTF-8 becomes U+FFFD.
 */
void mail_clean_text(struct buf *out, const char *s);

/* Columns s takes on a terminal: one per code point (s is valid UTF-8). */
size_t mail_text_width(const char *s);

/*
 * Append s (valid UTF-8, e.g. from mail_clean_text) cut to at most width
 * columns; when cut, it ends in "…" on a character boundary.
 */
void mail_add_truncated(struct buf *out, const char *s, size_t width);

/* RFC 5322 date of t in UTC: "Thu, 03 Dec 2026 09:15:02 +0000". */
void mail_add_date(struct buf *out, time_t t);

/*
 * A fresh, globally unique Message-ID "<tag.time.random@domain>" (with the
 * angle brackets); the domain is taken from the from address.  Call it once
 * and store the result: a resend must carry the same id.  -1 if no random
 * bytes could be had.
 */
int mail_new_message_id(struct buf *out, const char *tag, const char *from, time_t now);

/* Append "Name: value\r\n", value cleaned, RFC 2047-encoded if not ASCII and folded. */
void mail_add_header(struct buf *out, const char *name, const char *value);

/* Quoted-printable (RFC 2045) of UTF-8 text with LF or CRLF line ends. */
void mail_add_qp(struct buf *out, const char *text);

struct mail {
	const char *from;		/* address */
	const char *to;			/* address(es), comma-separated */
	const char *subject;		/* UTF-8 */
	const char *message_id;		/* "<...>" */
	const char *in_reply_to;	/* "<...>" or NULL */
	const char *references;		/* "<...> <...>" or NULL */
	const char *list_id;		/* "description <label.domain>" or NULL */
	time_t date;
	const char *body;		/* UTF-8 text, LF line ends */
};

/*
 * The whole message, CRLF line ends, into out (appended).  readable=true
 * gives the body as 8-bit text instead of quoted-printable, for showing a
 * message to a person (bugbridge digest --dry-run), never for sending.
 */
void mail_compose(const struct mail *m, struct buf *out, bool readable);

/*
 * The value of the first header `name` of a composed message (unfolded,
 * without the name), or -1 if there is none.
 */
int mail_header_value(const char *msg, const char *name, struct buf *out);

#endif
