/*
 * html: context-named escapers.  See html.h.
 *
 * html_attr escapes the same set as html_txt: with the value always written
 * inside double quotes, escaping & < > " ' is sufficient, and one shared
 * routine means one thing to get right.
 */
#include "html.h"

#include <string.h>

static void escape_xml(struct buf *out, const char *s, size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep;

		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\r')
				continue;
			rep = "";	/* other control characters: dropped */
			break;
		}
		buf_add(out, s + start, i - start);
		buf_addstr(out, rep);
		start = i + 1;
	}
	buf_add(out, s + start, n - start);
}

void html_txt(struct buf *out, const char *s)
{
	if (s)
		escape_xml(out, s, strlen(s));
}

void html_txt_cut(struct buf *out, const char *s, size_t max)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (n <= max) {
		escape_xml(out, s, n);
		return;
	}
	/* Back up over UTF-8 continuation bytes so no character is split. */
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	escape_xml(out, s, n);
	buf_addstr(out, "\xe2\x80\xa6");
}

void html_attr(struct buf *out, const char *s)
{
	html_txt(out, s);
}

void html_url_arg(struct buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
			buf_addch(out, (char)c);
		} else {
			buf_addch(out, '%');
			buf_addch(out, hex[c >> 4]);
			buf_addch(out, hex[c & 15]);
		}
	}
}
