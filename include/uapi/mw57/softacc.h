/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * softacc_v1: the queue ABI of mw57's software accelerator on uacce
 * (sysfs api "softacc_v1", nodes /dev/softacc-<id>).  Shared by the kernel
 * module (modules/softacc) and userspace.
 *
 * A queue has two regions, mapped by page offset (uacce):
 *
 *   UACCE_QFRT_MMIO (0)  one page, struct softacc_doorbell ("emulated MMIO":
 *                        ordinary memory the engine polls)
 *   UACCE_QFRT_DUS (1)   region_dus_size bytes: struct softacc_dus_header at
 *                        0, the SQ ring at sq_off, the CQ ring at cq_off, the
 *                        data area at data_off, and two status words at the
 *                        very end (TX stopped at size - 4, RX stopped at
 *                        size - 8), set while the queue is stopped.
 *
 * Submitting: write SQEs at sq_off + (n % sq_depth) * sqe_size, then
 * advance doorbell->sq_tail (a free-running count; a store barrier first).
 * Completions: the CQE at (n % cq_depth) is valid when its phase equals
 * ((n / cq_depth) & 1) ^ 1; consume it, then advance doorbell->cq_head.
 * poll() gives POLLIN while completions are unconsumed.  Every buffer is
 * an offset into the data area: there is no SVA, user addresses are never
 * accepted.  UACCE_CMD_START_Q starts a fresh ring (counters and CQ
 * zeroed); UACCE_CMD_PUT_Q stops the engine after the SQE in flight.
 */
#ifndef _MW57_SOFTACC_H
#define _MW57_SOFTACC_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SOFTACC_API		"softacc_v1"
#define SOFTACC_MAGIC		0x43434153	/* "SACC" */
#define SOFTACC_VERSION		1

/* UACCE_DEV_SVA: the uapi header's BIT(0) does not compile in userspace */
#define SOFTACC_UACCE_DEV_SVA	1u

/* Wake the engine now instead of at its next doorbell poll. */
#define SOFTACC_CMD_KICK	_IO('S', 0)

/* engine_state */
#define SOFTACC_ENGINE_STOPPED	0
#define SOFTACC_ENGINE_RUNNING	1

struct softacc_doorbell {
	/* written by userspace */
	__u32 sq_tail;		/* SQEs submitted */
	__u32 cq_head;		/* CQEs consumed */
	__u32 rsvd[14];
	/* written by the engine, read-only for userspace */
	__u32 engine_state;
	__u32 err_count;	/* protocol errors (bad sq_tail) */
	__s32 last_error;
	__u32 sq_head;		/* SQEs consumed by the engine */
	__u32 cq_tail;		/* CQEs written */
};

struct softacc_dus_header {
	__u32 magic;		/* SOFTACC_MAGIC */
	__u32 version;		/* SOFTACC_VERSION */
	__u32 sq_depth;
	__u32 cq_depth;
	__u32 sqe_size;
	__u32 cqe_size;
	__u32 sq_off;
	__u32 cq_off;
	__u32 data_off;
	__u32 data_size;
};

/* opcodes */
#define SOFTACC_OP_NOP		0	/* result 0 */
#define SOFTACC_OP_MEMCPY	1	/* src -> dst; result: bytes copied */
#define SOFTACC_OP_CRC32C	2	/* result: CRC32C of src, seed = CRC so far */
#define SOFTACC_OP_FAIL		3	/* status -EIO: an injected device error */

struct softacc_sqe {
	__u8 opcode;
	__u8 flags;		/* 0 */
	__u16 rsvd0;
	__u32 rsvd1;
	__u64 tag;		/* returned in the CQE */
	__u32 src_off;		/* offsets and lengths within the data area */
	__u32 src_len;
	__u32 dst_off;
	__u32 dst_len;
	__u32 seed;
	__u32 rsvd2[7];
};

/* status: 0, -EINVAL (bad opcode or range), -ERANGE (dst too small), -EIO */
struct softacc_cqe {
	__u64 tag;
	__s16 status;
	__u16 phase;
	__u32 result;
};

#define SOFTACC_DUS_TX_STOPPED(size)	((size) - 4)
#define SOFTACC_DUS_RX_STOPPED(size)	((size) - 8)

#endif /* _MW57_SOFTACC_H */
