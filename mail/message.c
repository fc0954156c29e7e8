/*
 * mail: composing RFC 5322 messages from UTF-8 text.  See mail.h.
 *
 * The one rule that matters for safety: header values are cleaned here,
 * whatever the caller passed, so a CR or LF from a bug summary can never end
 * the header block early or add a header.
 */
#include "message.h"
#include "base64.h"
#include "hex.h"

#include <string.h>
#include <sys/random.h>

/*
 * Decode one UTF-8 sequence at s: its length, with the code point in *cp,
 * or 0 when the bytes are not valid UTF-8 (overlong forms, surrogates and
 * values past U+10FFFF included).
 */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		len = 2; c &= 0x1f; min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3; c &= 0x0f; min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4; c &= 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Characters that must not survive into a line of mail text. */
static bool is_blank_or_control(unsigned cp)
{
	return cp <= 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
		cp == 0x2028 || cp == 0x2029 || cp == 0xfeff || cp == 0x85;
}

void mail_clean_text(struct buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = out->len;
	bool pending_blank = false;

	while (*p) {
		unsigned cp;
		size_t n = utf8_decode(p, &cp);

		if (!n) {
			cp = 0xfffd;
			n = 1;
		}
		if (is_blank_or_control(cp)) {
			pending_blank = true;
			p += n;
			continue;
		}
		if (pending_blank && out->len > start)
			buf_addch(out, ' ');
		pending_blank = false;
		if (cp == 0xfffd && n == 1)
			buf_addstr(out, "\xef\xbf\xbd");
		else
			buf_add(out, p, n);
		p += n;
	}
}

size_t mail_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

void mail_add_truncated(struct buf *out, const char *s, size_t width)
{
	size_t i = 0, cols = 0, keep_len = 0;

	if (mail_text_width(s) <= width) {
		buf_addstr(out, s);
		return;
	}
	if (!width)
		return;
	/* keep width - 1 characters and spend the last column on the ellipsis */
	while (s[i] && cols < width - 1) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		cols++;
		keep_len = i;
	}
	while (keep_len && s[keep_len - 1] == ' ')
		keep_len--;
	buf_add(out, s, keep_len);
	buf_addstr(out, "\xe2\x80\xa6");
}

void mail_add_date(struct buf *out, time_t t)
{
	static const char *const days[] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
	};
	static const char *const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
	};
	struct tm tm;

	gmtime_r(&t, &tm);
	buf_addf(out, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
		 tm.tm_min, tm.tm_sec);
}

/* Characters allowed unquoted in a Message-ID's left and right parts. */
static bool is_id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

static void add_id_part(struct buf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++)
		buf_addch(out, is_id_char(s[i]) ? s[i] : '-');
}

int mail_new_message_id(struct buf *out, const char *tag, const char *from, time_t now)
{
	unsigned char rnd[8];
	char hex[2 * sizeof(rnd) + 1];
	const char *at = strrchr(from, '@');
	const char *domain = at ? at + 1 : "localhost";
	size_t dlen = strcspn(domain, "> \t\r\n");

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	buf_addch(out, '<');
	add_id_part(out, tag, strlen(tag));
	buf_addf(out, ".%lld.", (long long)now);
	hex_encode(hex, rnd, sizeof(rnd));
	buf_addstr(out, hex);
	buf_addch(out, '@');
	if (dlen)
		add_id_part(out, domain, dlen);
	else
		buf_addstr(out, "localhost");
	buf_addch(out, '>');
	return 0;
}

static bool needs_encoding(const char *s)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p >= 0x80)
			return true;
	/* plain text that looks like an encoded-word would be decoded by readers */
	return strstr(s, "=?") != NULL;
}

/*
 * RFC 2047 encoded-words, one per folded line, each line within 76
 * characters (so each word within 75), split only between characters.
 * col is where the first word starts (after "Subject: ").
 */
static void add_encoded_words(struct buf *out, const char *s, size_t col)
{
	const unsigned char *p = (const unsigned char *)s;
	bool first = true;

	while (*p) {
		/* bytes of text whose base64 fits the line after "=?UTF-8?B?" "?=" */
		size_t room = col + 12 < 76 ? (76 - col - 12) / 4 * 3 : 3;
		size_t chunk = 0;

		while (p[chunk]) {
			size_t n = 1;

			while ((p[chunk + n] & 0xc0) == 0x80)
				n++;
			if (chunk + n > room && chunk)
				break;
			chunk += n;
		}
		if (!first)
			buf_addstr(out, "\r\n ");
		buf_addstr(out, "=?UTF-8?B?");
		base64_encode(out, p, chunk);
		buf_addstr(out, "?=");
		p += chunk;
		first = false;
		col = 1;
	}
}

/*
 * Fold plain ASCII at blanks so that lines stay within 78 characters: the
 * blank before a word that would not fit becomes the fold.  A single long
 * word (a Message-ID) stays on the header's line.
 */
static void add_folded(struct buf *out, const char *s, size_t col)
{
	bool first = true;

	while (*s) {
		size_t word = strcspn(s, " ");

		if (!first) {
			if (col + 1 + word > 78) {
				buf_addstr(out, "\r\n ");
				col = 1;
			} else {
				buf_addch(out, ' ');
				col++;
			}
		}
		buf_add(out, s, word);
		col += word;
		s += word;
		if (*s == ' ')
			s++;
		first = false;
	}
}

void mail_add_header(struct buf *out, const char *name, const char *value)
{
	struct buf clean = BUF_INIT;

	mail_clean_text(&clean, value);
	buf_addf(out, "%s: ", name);
	if (needs_encoding(clean.ptr))
		add_encoded_words(out, clean.ptr, strlen(name) + 2);
	else
		add_folded(out, clean.ptr, strlen(name) + 2);
	buf_addstr(out, "\r\n");
	buf_release(&clean);
}

void mail_add_qp(struct buf *out, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n"), end = len, col = 0;

		if (end && p[end - 1] == '\r')
			end--;
		for (size_t i = 0; i < end; i++) {
			unsigned char c = p[i];
			bool last = i + 1 == end;
			char tok[4];

			if ((c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last)) {
				tok[0] = c;
				tok[1] = 0;
			} else {
				tok[0] = '=';
				tok[1] = "0123456789ABCDEF"[c >> 4];
				tok[2] = "0123456789ABCDEF"[c & 15];
				tok[3] = 0;
			}
			/* leave room for the soft break's "=" within 76 columns */
			if (col + strlen(tok) > 75) {
				buf_addstr(out, "=\r\n");
				col = 0;
			}
			buf_addstr(out, tok);
			col += strlen(tok);
		}
		buf_addstr(out, "\r\n");
		p += len;
		if (*p == '\n')
			p++;
	}
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* The body as-is, with CRLF line ends and a final line end. */
static void add_body_8bit(struct buf *out, const char *body)
{
	for (const char *p = body; *p; p++) {
		if (*p == '\r')
			continue;
		if (*p == '\n')
			buf_addch(out, '\r');
		buf_addch(out, *p);
	}
	if (out->len && out->ptr[out->len - 1] != '\n')
		buf_addstr(out, "\r\n");
}

void mail_compose(const struct mail *m, struct buf *out, bool readable)
{
	struct buf date = BUF_INIT;
	bool ascii = is_ascii(m->body);

	mail_add_date(&date, m->date);
	mail_add_header(out, "Date", date.ptr);
	mail_add_header(out, "From", m->from);
	mail_add_header(out, "To", m->to);
	mail_add_header(out, "Subject", m->subject);
	mail_add_header(out, "Message-ID", m->message_id);
	if (m->in_reply_to && *m->in_reply_to)
		mail_add_header(out, "In-Reply-To", m->in_reply_to);
	if (m->references && *m->references)
		mail_add_header(out, "References", m->references);
	if (m->list_id && *m->list_id)
		mail_add_header(out, "List-Id", m->list_id);
	buf_addstr(out, "Auto-Submitted: auto-generated\r\n");
	buf_addstr(out, "MIME-Version: 1.0\r\n");
	buf_addstr(out, "Content-Type: text/plain; charset=UTF-8; format=fixed\r\n");
	if (ascii || readable) {
		buf_addf(out, "Content-Transfer-Encoding: %s\r\n\r\n", ascii ? "7bit" : "8bit");
		add_body_8bit(out, m->body);
	} else {
		buf_addstr(out, "Content-Transfer-Encoding: quoted-printable\r\n\r\n");
		mail_add_qp(out, m->body);
	}
	buf_release(&date);
}

int mail_header_value(const char *msg, const char *name, struct buf *out)
{
	size_t nlen = strlen(name);
	const char *p = msg;

	while (*p && *p != '\r' && *p != '\n') {
		const char *eol = strchr(p, '\n');
		bool match = !strncasecmp(p, name, nlen) && p[nlen] == ':';

		if (match) {
			const char *v = p + nlen + 1;

			buf_reset(out);
			for (;;) {
				const char *end = eol ? eol : v + strlen(v);

				while (v < end && (*v == ' ' || *v == '\t'))
					v++;
				if (out->len && v < end)
					buf_addch(out, ' ');
				buf_add(out, v, end - v);
				if (out->len && out->ptr[out->len - 1] == '\r')
					buf_setlen(out, out->len - 1);
				if (!eol || (eol[1] != ' ' && eol[1] != '\t'))
					break;
				v = eol + 1;
				eol = strchr(v, '\n');
			}
			return 0;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return -1;
}
