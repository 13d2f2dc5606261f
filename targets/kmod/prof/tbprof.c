// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * A QEMU TCG plugin for scripts/kmod-profile: counts the guest instructions executed in every
 * translation block and writes "vaddr instructions-per-block instructions-executed" per block
 * to the file named by its outfile= argument when QEMU exits. Run it under -icount (one host
 * thread), where the counters need no atomics.
 *
 * The declarations below are the few entry points of QEMU's plugin API (version 1, as QEMU 7.2
 * exports them) this plugin calls; Debian ships no plugin header.
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
				    void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One block: where it starts, how many instructions it has, how many it ran in all. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t executed;
};

static GHashTable *blocks; /* key: vaddr with the block length in the top byte */
static GMutex lock;
static char outfile[512] = "tbprof.txt";

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t key = vaddr ^ ((uint64_t)n << 56);
	struct block *b;

	(void)id;
	g_mutex_lock(&lock);
	b = g_hash_table_lookup(blocks, &key);
	if (!b) {
		uint64_t *k = g_new(uint64_t, 1);

		*k = key;
		b = g_new0(struct block, 1);
		b->vaddr = vaddr;
		b->insns = n;
		g_hash_table_insert(blocks, k, b);
	}
	g_mutex_unlock(&lock);
	/* A block translated again (after a flush) adds to the same counter. */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->executed, n);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *data)
{
	GHashTableIter it;
	gpointer key, value;
	FILE *f = fopen(outfile, "w");

	(void)id;
	(void)data;
	if (!f) {
		fprintf(stderr, "tbprof: cannot write %s\n", outfile);
		return;
	}
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct block *b = value;

		if (b->executed)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)b->insns, (unsigned long long)b->executed);
	}
	fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
							      const qemu_info_t *info, int argc,
							      char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], "outfile=", 8) == 0)
			g_strlcpy(outfile, argv[i] + 8, sizeof(outfile));
	blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
