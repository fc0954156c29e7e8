/*
 * Unit tests for lib/fault: the names round-trip (the jobs.fault column),
 * what a bare verdict says (rows from before the column; the migration's
 * backfill says the same), and which faults are retried or reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

static void test_names(void **state)
{
	(void)state;
	assert_null(fault_name(FAULT_NONE));
	assert_string_equal(fault_name(FAULT_PATCH), "patch");
	assert_string_equal(fault_name(FAULT_INFRA), "infra");
	assert_string_equal(fault_name(FAULT_OURS), "ours");
	for (int f = FAULT_PATCH; f <= FAULT_OURS; f++)
		assert_int_equal(fault_parse(fault_name((enum fault)f)), f);
	assert_int_equal(fault_parse(NULL), FAULT_NONE);
	assert_int_equal(fault_parse(""), FAULT_NONE);
	assert_int_equal(fault_parse("Patch"), FAULT_NONE);
}

static void test_of_verdict(void **state)
{
	static const char *const patch_made[] = {
		"apply-failed", "build-failed", "panic", "boot-timeout",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(patch_made) / sizeof(patch_made[0]); i++) {
		assert_int_equal(fault_of_verdict(patch_made[i], true), FAULT_PATCH);
		/* without a patch, the base kernel's own behaviour blames no one */
		assert_int_equal(fault_of_verdict(patch_made[i], false), FAULT_NONE);
	}
	assert_int_equal(fault_of_verdict("infra-error", true), FAULT_INFRA);
	assert_int_equal(fault_of_verdict("infra-error", false), FAULT_INFRA);
	assert_int_equal(fault_of_verdict("pass", true), FAULT_NONE);
	assert_int_equal(fault_of_verdict("fail", true), FAULT_NONE);
	assert_int_equal(fault_of_verdict(NULL, true), FAULT_NONE);
}

static void test_retried_and_reported(void **state)
{
	(void)state;
	assert_true(fault_retried(FAULT_INFRA));
	assert_false(fault_retried(FAULT_OURS));
	assert_false(fault_retried(FAULT_PATCH));
	assert_false(fault_retried(FAULT_NONE));
	assert_true(fault_no_result(FAULT_INFRA));
	assert_true(fault_no_result(FAULT_OURS));
	assert_false(fault_no_result(FAULT_PATCH));
	assert_false(fault_no_result(FAULT_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_of_verdict),
		cmocka_unit_test(test_retried_and_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
