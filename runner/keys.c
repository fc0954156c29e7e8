/*
 * keys: what names a job's seeds and its cached baseline results in the
 * cache.  Every key hashes content (the base, its kernel version, the
 * compiler, the bytes of each file that goes in by its name in
 * kernel-patches), never a path, so that the same kernel-patches under
 * another prefix or after an upgrade that changed nothing find the same
 * seeds (issue 33), and any change of content finds none.
 */
#include "keys.h"
#include "run.h"
#include "paths.h"
#include "kplan.h"
#include "lava.h"
#include "buf.h"
#include "config.h"
#include "xalloc.h"
#include "sha256.h"
#include "hex.h"

#include <stdlib.h>
#include <string.h>

static char *hex_of(struct sha256 *ctx)
{
	unsigned char d[SHA256_LEN];
	char *hex = xmalloc(65);

	sha256_final(ctx, d);
	hex_encode(hex, d, 8);	/* 64 bits name a cache entry well enough */
	return hex;
}

/* A file of kernel-patches, by its name there: its bytes, never where it lives. */
static void hash_patches_file(struct sha256 *ctx, struct run *r, const char *name)
{
	struct buf path = BUF_INIT;

	buf_addf(&path, "%s/%s", r->patches_dir, name);
	hash_file(ctx, name, path.ptr);
	buf_release(&path);
}

/* The seed's key from what goes into the kernel, the gcov seed's and the suite's from it. */
void runner_keys_make(struct run *r)
{
	struct sha256 ctx;
	struct buf name = BUF_INIT;
	const char *variant = cfg_str("runner.config_variant");

	sha256_init(&ctx);
	sha256_update(&ctx, r->job->base, strlen(r->job->base) + 1);
	sha256_update(&ctx, r->kernel_version, strlen(r->kernel_version) + 1);
	sha256_update(&ctx, r->compiler, strlen(r->compiler) + 1);
	hash_patches_file(&ctx, r, "configs/base.config");
	buf_addf(&name, "configs/%s.config", variant);
	hash_patches_file(&ctx, r, name.ptr);
	for (int i = 0; i < r->nharness; i++)
		hash_file(&ctx, r->harness[i].name, r->harness[i].path);
	r->seed_key = hex_of(&ctx);

	sha256_init(&ctx);
	sha256_update(&ctx, r->seed_key, strlen(r->seed_key) + 1);
	hash_patches_file(&ctx, r, "configs/gcov.config");
	r->seed_key_gcov = hex_of(&ctx);

	sha256_init(&ctx);
	sha256_update(&ctx, r->seed_key, strlen(r->seed_key) + 1);
	hash_file(&ctx, "bbsuite", r->suite_bin);
	hash_patches_file(&ctx, r, "suite/init");
	hash_patches_file(&ctx, r, "suite/scenarios");
	sha256_update(&ctx, cfg_str("runner.flake_retries"), strlen(cfg_str("runner.flake_retries")));
	if (lava_enabled())	/* a lab's results are its own: never mixed with local ones */
		sha256_update(&ctx, cfg_str("lava.device_type"), strlen(cfg_str("lava.device_type")));
	r->suite_key = hex_of(&ctx);
	buf_release(&name);
}

/*
 * A job whose config grew for its patch (kplan.h) compares with a baseline
 * built with the same options: its cached baseline results are its own.
 * Its builds start from the standard seed and are never kept as seeds.
 */
void runner_keys_grown(struct run *r)
{
	struct sha256 ctx;

	if (!kplan_grown(r))
		return;
	sha256_init(&ctx);
	sha256_update(&ctx, r->suite_key, strlen(r->suite_key) + 1);
	sha256_update(&ctx, r->plan->base_fragment.ptr, r->plan->base_fragment.len);
	free(r->suite_key);
	r->suite_key = hex_of(&ctx);
}
