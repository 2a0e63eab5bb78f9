// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 The mw57 authors.
 *
 * tunkey PIN REMOTE LOCAL: load a tc (SCHED_CLS) program that gives every
 * packet the IPv4 tunnel key REMOTE -> LOCAL, TTL 64, with
 * bpf_skb_set_tunnel_key(), and pin it at PIN (a path on a bpf file
 * system) for "tc filter ... bpf da object-pinned PIN".
 *
 * For IPv4 keys that helper sets the key's flow flags to
 * FLOWI_FLAG_ANYSRC, the only in-tree source of tunnel flow flags: a
 * tunnel's route lookup that honours them accepts a LOCAL that is not an
 * address of the host, one that ignores them fails.  The program is
 * eighteen instructions, written out here so that the test needs no BPF
 * compiler.  Exits 0 when pinned, 1 with the verifier's log otherwise.
 */
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ST(sz, d, o, i)	INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* the key on the program's stack, 8-byte aligned */
#define KEY	(-(int)((sizeof(struct bpf_tunnel_key) + 7) & ~7UL))
#define AT(f)	(KEY + (int)offsetof(struct bpf_tunnel_key, f))

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	static char log[65536];
	struct in_addr remote, local;
	union bpf_attr attr;
	int fd;

	if (argc != 4 || inet_pton(AF_INET, argv[2], &remote) != 1 ||
	    inet_pton(AF_INET, argv[3], &local) != 1) {
		fprintf(stderr, "usage: tunkey PIN REMOTE LOCAL (IPv4)\n");
		return 2;
	}
	/* the helper takes the addresses in host order */
	struct bpf_insn prog[] = {
		MOV_REG(BPF_REG_6, BPF_REG_1),
		ST(BPF_DW, BPF_REG_10, KEY, 0),
		ST(BPF_DW, BPF_REG_10, KEY + 8, 0),
		ST(BPF_DW, BPF_REG_10, KEY + 16, 0),
		ST(BPF_DW, BPF_REG_10, KEY + 24, 0),
		ST(BPF_DW, BPF_REG_10, KEY + 32, 0),
		ST(BPF_DW, BPF_REG_10, KEY + 40, 0),
		ST(BPF_W, BPF_REG_10, AT(remote_ipv4), (int)ntohl(remote.s_addr)),
		ST(BPF_B, BPF_REG_10, AT(tunnel_ttl), 64),
		ST(BPF_W, BPF_REG_10, AT(local_ipv4), (int)ntohl(local.s_addr)),
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, KEY),
		MOV_IMM(BPF_REG_3, sizeof(struct bpf_tunnel_key)),
		MOV_IMM(BPF_REG_4, 0),
		MOV_REG(BPF_REG_1, BPF_REG_6),
		CALL(BPF_FUNC_skb_set_tunnel_key),
		MOV_IMM(BPF_REG_0, TC_ACT_OK),
		EXIT(),
	};

	_Static_assert(sizeof(struct bpf_tunnel_key) <= 48,
		       "the key must fit the six stores");
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	attr.insns = (unsigned long)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		perror("tunkey: BPF_PROG_LOAD");
		fputs(log, stderr);
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)argv[1];
	attr.bpf_fd = fd;
	if (bpf(BPF_OBJ_PIN, &attr)) {
		perror("tunkey: BPF_OBJ_PIN");
		return 1;
	}
	return 0;
}
