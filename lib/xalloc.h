/*
 * xalloc: allocation that cannot fail, as git's wrapper.c does it.
 *
 * bugbridge has no useful way to go on when malloc fails: every caller
 * would abort.  These do it once, with a message naming the size, so the
 * code that uses them reads as if memory were infinite and no allocation
 * goes unchecked.  Size limits on untrusted input (a reply, a patch, a
 * console) are a different matter and belong to buf's cap, which fails
 * cleanly.
 */
#ifndef BB_XALLOC_H
#define BB_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
/* Also checks nmemb * size for overflow; xreallocarray(NULL, ...) allocates. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* ptr, or the out-of-memory death if it is NULL (for libraries' own allocators). */
void *xnonnull(void *ptr);

/*
 * Grow array v (of *alloc elements) so that it holds at least n; doubles,
 * starting at 8.  v is reassigned.
 */
#define XGROW(v, n, alloc) do { \
		if ((size_t)(n) > (size_t)(alloc)) { \
			(alloc) = (alloc) ? 2 * (alloc) : 8; \
			if ((size_t)(alloc) < (size_t)(n)) \
				(alloc) = (n); \
			(v) = xreallocarray((v), (alloc), sizeof(*(v))); \
		} \
	} while (0)

#endif
