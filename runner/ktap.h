/*
 * ktap (pure): the KTAP results the guest suite prints, parsed out of a
 * console log (kernel lines, \r, interleaving all tolerated).
 */
#ifndef BB_KTAP_H
#define BB_KTAP_H

#include <stdbool.h>
#include <stddef.h>

enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };
struct ktap_test {
	int number;
	char *name;
	enum ktap_status status;
	char *reason;			/* after " # " */
	char *diag;			/* "# " lines before the result, joined */
};
struct ktap_result {
	bool seen_version;
	int planned;			/* -1: no plan line */
	struct ktap_test *tests;
	int ntests;
};
/* Parse a console log (kernel lines, \r, interleaving all tolerated). */
int ktap_parse(const char *text, size_t len, struct ktap_result *out);
void ktap_release(struct ktap_result *r);
const char *ktap_status_name(enum ktap_status s);

#endif
