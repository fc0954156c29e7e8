/*
 * html: escaping for the three places a string can land in a page, named
 * for the context like cgit's helpers.  Every string that came from the
 * tracker (summaries, comments, user names, component names) or from a
 * request reaches the page only through one of these; page code never
 * buf_addstr()s such text directly.
 *
 *   html_txt      element text:           <td>HERE</td>
 *   html_attr     a double-quoted value:  <a title="HERE">
 *   html_url_arg  one path segment or query value inside an href:
 *                 <a href="/component/HERE?x=HERE">; percent-encodes all
 *                 but unreserved characters, so the result is also safe
 *                 inside a quoted attribute.
 *
 * html_txt also serves XML text (the Atom feed): it escapes the five XML
 * special characters.  NULL is treated as "".  Control characters other than
 * tab and newline are dropped (they are invalid in XML and useless in HTML).
 */
#ifndef BB_HTML_H
#define BB_HTML_H

#include <stddef.h>
#include "buf.h"

void html_txt(struct buf *out, const char *s);
/* html_txt of at most max bytes of s (cut at a UTF-8 boundary), then "…". */
void html_txt_cut(struct buf *out, const char *s, size_t max);
void html_attr(struct buf *out, const char *s);
void html_url_arg(struct buf *out, const char *s);

#endif
