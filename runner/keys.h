/*
 * keys: the seed's key, the gcov seed's and the suite's cached baseline
 * results' (r->seed_key, r->seed_key_gcov, r->suite_key), by content.
 */
#ifndef BB_RUNNER_KEYS_H
#define BB_RUNNER_KEYS_H

struct run;

/* After prepare has the base, kernel version, compiler, harness and suite. */
void runner_keys_make(struct run *r);
/* A job whose config grew (kplan.h): its baseline results keyed by its options. */
void runner_keys_grown(struct run *r);

#endif
