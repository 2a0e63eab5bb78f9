// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg-storage: a USB mass-storage device backed by a file, made with
 * /dev/raw-gadget.  Bulk-Only Transport (USB MSC BOT 1.0) and, with -u,
 * USB Attached SCSI (UAS 1.0) as alternate setting 1: at high speed as
 * USB 2.0 devices speak it (READ/WRITE READY IUs, no streams), at
 * SuperSpeed (-s 5) with bulk streams (each command's data and sense IU on
 * the stream of its tag).  The SCSI commands are the ones Linux's
 * usb-storage, uas and sd use, 512-byte blocks, one LUN.  READ and WRITE
 * move their data with up to DEPTH asynchronous requests of 64 KiB in
 * flight (mw57's SUBMIT and REAP), in the file's transfer area (mmap: the
 * backing file is read into and written from the area, with no copy
 * through the kernel's buffers) where the module has one; under UAS,
 * ST_CMDS reads wait on the command pipe, so the host keeps several
 * commands in flight.
 *
 *   rg-storage [-v] [-d UDC_DEVICE] [-D UDC_DRIVER] [-s SPEED] [-r] [-u]
 *              [-q DEPTH] [-p VID:PID] FILE
 *
 * Not (yet) here: more than one LUN, the CBW validity checks that end in
 * a reset recovery (a bad CBW is skipped).  (Linux's uas driver takes a
 * SuperSpeed device only from a host controller that says it has streams:
 * xhci, and not Debian's dummy_hcd, where usb-storage takes alternate
 * setting 0 instead.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

#define ST_BLOCK	512u
#define ST_CHUNK	65536u
#define ST_DEPTH_MAX	16u
#define CBW_SIG		0x43425355u	/* "USBC" */
#define CSW_SIG		0x53425355u	/* "USBS" */
#define CBW_LEN		31
#define CSW_LEN		13
#define ST_CMDS		8	/* UAS: command-pipe reads in flight */
#define ST_IU_MAX	64	/* UAS: the IUs we take (command IU: 32) */
#define ST_STREAMS_LOG	4	/* UAS at SuperSpeed: 16 streams, tags 1..16 */

/* UAS information units (USB Attached SCSI 1.0, 6.2) */
enum { IU_COMMAND = 1, IU_SENSE = 3, IU_RESPONSE = 4, IU_TASK_MGMT = 5,
	IU_READ_READY = 6, IU_WRITE_READY = 7 };

/* What a completion's tag says: kind in bits 8-9, slot below, offset above. */
enum { ST_DATA, ST_CMD };
#define ST_TAG(off, kind, slot)	((uint64_t)(off) << 10 | (kind) << 8 | (slot))
#define ST_TAG_KIND(t)		((unsigned int)((t) >> 8) & 3)
#define ST_TAG_SLOT(t)		((unsigned int)(t) & 0xff)
#define ST_TAG_OFF(t)		((t) >> 10)

/* USB_DT_PIPE_USAGE, UAS 1.0 5.3.3.1 */
struct st_pipe_usage {
	uint8_t bLength, bDescriptorType, bPipeID, Reserved;
} __attribute__((packed));

#define ST_PIPE(id)	{ 4, 0x24, (id), 0 }

#define ST_BOT_INTF RG_INTERFACE_DESC(2, USB_CLASS_MASS_STORAGE,	\
				      .bInterfaceSubClass = 0x06,	/* SCSI */ \
				      .bInterfaceProtocol = 0x50)	/* BOT */
#define ST_UAS_INTF RG_INTERFACE_DESC(4, USB_CLASS_MASS_STORAGE,	\
				      .bAlternateSetting = 1,		\
				      .bInterfaceSubClass = 0x06,	\
				      .bInterfaceProtocol = 0x62)	/* UAS */

static struct usb_device_descriptor st_device =
	RG_DEVICE_DESC(0x0525, 0xa4a5,
		       .iManufacturer = 1, .iProduct = 2, .iSerialNumber = 3);

/*
 * BOT as alternate setting 0, and UAS as alternate setting 1 when -u
 * offers it (without -u the table ends before .uas).  Full speed takes
 * 64-byte packets on the BOT endpoints.
 */
static struct {
	struct usb_config_descriptor config;
	struct usb_interface_descriptor bot;
	struct rg_endpoint_descriptor bot_in;
	struct rg_endpoint_descriptor bot_out;
	struct usb_interface_descriptor uas;
	struct rg_endpoint_descriptor cmd;
	struct st_pipe_usage cmd_pipe;
	struct rg_endpoint_descriptor status;
	struct st_pipe_usage status_pipe;
	struct rg_endpoint_descriptor din;
	struct st_pipe_usage din_pipe;
	struct rg_endpoint_descriptor dout;
	struct st_pipe_usage dout_pipe;
} __attribute__((packed)) st_hs_config = {
	.config = RG_CONFIG_DESC(st_hs_config),
	.bot = ST_BOT_INTF,
	.bot_in = RG_BULK_EP_DESC(USB_DIR_IN | 1, 512),
	.bot_out = RG_BULK_EP_DESC(USB_DIR_OUT | 2, 512),
	.uas = ST_UAS_INTF,
	.cmd = RG_BULK_EP_DESC(USB_DIR_OUT | 7, 512),
	.cmd_pipe = ST_PIPE(1),
	.status = RG_BULK_EP_DESC(USB_DIR_IN | 6, 512),
	.status_pipe = ST_PIPE(2),
	.din = RG_BULK_EP_DESC(USB_DIR_IN | 1, 512),
	.din_pipe = ST_PIPE(3),
	.dout = RG_BULK_EP_DESC(USB_DIR_OUT | 2, 512),
	.dout_pipe = ST_PIPE(4),
};

/*
 * The same at SuperSpeed: 1024-byte packets, each endpoint's companion (no
 * burst; UAS's status and data pipes have streams).
 */
#define ST_STREAMS RG_SS_COMP_DESC(.bmAttributes = ST_STREAMS_LOG)

static struct {
	struct usb_config_descriptor config;
	struct usb_interface_descriptor bot;
	struct rg_endpoint_descriptor bot_in;
	struct usb_ss_ep_comp_descriptor bot_in_comp;
	struct rg_endpoint_descriptor bot_out;
	struct usb_ss_ep_comp_descriptor bot_out_comp;
	struct usb_interface_descriptor uas;
	struct rg_endpoint_descriptor cmd;
	struct usb_ss_ep_comp_descriptor cmd_comp;
	struct st_pipe_usage cmd_pipe;
	struct rg_endpoint_descriptor status;
	struct usb_ss_ep_comp_descriptor status_comp;
	struct st_pipe_usage status_pipe;
	struct rg_endpoint_descriptor din;
	struct usb_ss_ep_comp_descriptor din_comp;
	struct st_pipe_usage din_pipe;
	struct rg_endpoint_descriptor dout;
	struct usb_ss_ep_comp_descriptor dout_comp;
	struct st_pipe_usage dout_pipe;
} __attribute__((packed)) st_ss_config = {
	.config = RG_CONFIG_DESC(st_ss_config),
	.bot = ST_BOT_INTF,
	.bot_in = RG_BULK_EP_DESC(USB_DIR_IN | 1, 1024),
	.bot_in_comp = RG_SS_COMP_DESC(),
	.bot_out = RG_BULK_EP_DESC(USB_DIR_OUT | 2, 1024),
	.bot_out_comp = RG_SS_COMP_DESC(),
	.uas = ST_UAS_INTF,
	.cmd = RG_BULK_EP_DESC(USB_DIR_OUT | 7, 1024),
	.cmd_comp = RG_SS_COMP_DESC(),
	.cmd_pipe = ST_PIPE(1),
	.status = RG_BULK_EP_DESC(USB_DIR_IN | 6, 1024),
	.status_comp = ST_STREAMS,
	.status_pipe = ST_PIPE(2),
	.din = RG_BULK_EP_DESC(USB_DIR_IN | 1, 1024),
	.din_comp = ST_STREAMS,
	.din_pipe = ST_PIPE(3),
	.dout = RG_BULK_EP_DESC(USB_DIR_OUT | 2, 1024),
	.dout_comp = ST_STREAMS,
	.dout_pipe = ST_PIPE(4),
};

/* The endpoints of both tables, by what they are */
enum { ST_BOT_IN, ST_BOT_OUT, ST_EP_CMD, ST_EP_STATUS, ST_EP_DIN, ST_EP_DOUT,
	ST_EPS };

static const struct rg_endpoint_descriptor *const st_hs_eps[ST_EPS] = {
	&st_hs_config.bot_in, &st_hs_config.bot_out, &st_hs_config.cmd,
	&st_hs_config.status, &st_hs_config.din, &st_hs_config.dout,
};

static const struct rg_endpoint_descriptor *const st_ss_eps[ST_EPS] = {
	&st_ss_config.bot_in, &st_ss_config.bot_out, &st_ss_config.cmd,
	&st_ss_config.status, &st_ss_config.din, &st_ss_config.dout,
};

static const struct usb_ss_ep_comp_descriptor *const st_ss_comps[ST_EPS] = {
	&st_ss_config.bot_in_comp, &st_ss_config.bot_out_comp,
	&st_ss_config.cmd_comp, &st_ss_config.status_comp,
	&st_ss_config.din_comp, &st_ss_config.dout_comp,
};

static const char *const st_strings[] = {
	"mw57", "mw57 rg-storage", "0123456789ab", NULL,
};

struct storage {
	struct rg_device *d;
	int file;
	int readonly;
	uint64_t blocks;
	unsigned int depth;
	int in, out;			/* data handles, or -1 */
	int offer_uas;			/* -u: alternate setting 1 is UAS */
	int ss;				/* SuperSpeed descriptors */
	int uas;			/* alternate setting 1 is on */
	int cmd, status;		/* UAS: the other two pipes, or -1 */
	uint16_t stream;		/* UAS at SuperSpeed: the command's */
	struct rg_thread worker;
	unsigned int outstanding;	/* submitted, not yet reaped */
	unsigned int data_outstanding;	/* of them, data requests */
	uint8_t *bufs;			/* depth chunks */
	int mapped;			/* bufs is the transfer area */
	uint8_t sense_key, asc, ascq;
	/* UAS: command-pipe buffers, and the ones that hold an unhandled IU */
	uint8_t iu[ST_CMDS][512];
	uint32_t iu_len[ST_CMDS];
	unsigned int fifo[ST_CMDS], fifo_head, fifo_n;
	int busy;			/* a command is at hand */
	unsigned int behind_max;	/* most IUs that came in behind it */
};

/* --- data phase ----------------------------------------------------------- */

static void st_sense(struct storage *st, uint8_t key, uint8_t asc,
		     uint8_t ascq)
{
	st->sense_key = key;
	st->asc = asc;
	st->ascq = ascq;
}

/*
 * Reap one completion.  A UAS command IU goes to the FIFO (1); a data
 * request's tag in *tag (0), or -1 when it failed; -2 when there is none
 * (told to stop, the instance failed) or the command pipe was shut down.
 */
static int st_reap_one(struct storage *st, uint64_t *tag, uint32_t *actual)
{
	struct usb_raw_mw57_completion c;
	unsigned int slot;
	int ret;

	do {
		ret = rg_reap(st->d->fd, &c);
	} while (ret == -EINTR && !st->worker.stop);
	if (ret)
		return -2;
	st->outstanding--;
	if (ST_TAG_KIND(c.tag) == ST_CMD) {
		if (c.status)
			return -2;	/* disabled, reset, unbound */
		slot = ST_TAG_SLOT(c.tag);
		st->iu_len[slot] = c.actual;
		st->fifo[(st->fifo_head + st->fifo_n++) % ST_CMDS] = slot;
		/* the host keeps several commands in flight: say how many */
		if (st->busy && st->fifo_n > st->behind_max) {
			st->behind_max = st->fifo_n;
			fprintf(stderr, "rg-storage: UAS: %u commands queued behind the one at hand\n",
				st->behind_max);
		}
		return 1;
	}
	st->data_outstanding--;
	*tag = c.tag;
	*actual = c.actual;
	return c.status ? -1 : 0;
}

/* Reap up to the next data completion: 0 and its tag, -1 or -2. */
static int st_reap(struct storage *st, uint64_t *tag, uint32_t *actual)
{
	int ret;

	do {
		ret = st_reap_one(st, tag, actual);
	} while (ret == 1);
	return ret;
}

static int st_submit(struct storage *st, int handle, unsigned int slot,
		     uint64_t off, uint32_t len, int zero)
{
	int ret = rg_submit_in(st->d->fd, handle, ST_TAG(off, ST_DATA, slot),
			       st->mapped ? st->bufs : NULL,
			       st->bufs + (size_t)slot * ST_CHUNK, len,
			       st->stream, zero ? USB_RAW_IO_FLAGS_ZERO : 0);

	if (!ret) {
		st->outstanding++;
		st->data_outstanding++;
	}
	return ret;
}

/*
 * Wait for every data request in flight; 0 if all succeeded.  A worker
 * told to stop leaves the rest to st_deconfigure(), after the endpoints
 * are off.
 */
static int st_drain(struct storage *st)
{
	uint32_t actual;
	uint64_t tag;
	int ret, bad = 0;

	while (st->data_outstanding) {
		ret = st_reap(st, &tag, &actual);
		if (ret == -2)
			return -1;
		bad |= ret < 0;
	}
	return bad ? -1 : 0;
}

/*
 * Send @len bytes of the file from byte @pos to the host, @depth chunks
 * in flight; a short packet ends it when @len is less than the host asked
 * for (@short_end).  0, or -1 when a transfer or the file failed.
 */
static int st_read_data(struct storage *st, uint64_t pos, uint64_t len,
			int short_end)
{
	uint64_t sent = 0, done = 0, tag;
	unsigned int slot;
	uint32_t actual;

	while (done < len && (sent < len || st->data_outstanding)) {
		while (sent < len && st->data_outstanding < st->depth) {
			uint32_t n = len - sent < ST_CHUNK ? len - sent : ST_CHUNK;

			/* the slot of the oldest request frees first */
			slot = (sent / ST_CHUNK) % st->depth;
			if (pread(st->file, st->bufs + (size_t)slot * ST_CHUNK, n,
				  pos + sent) != n ||
			    st_submit(st, st->in, slot, sent, n,
				      short_end && sent + n == len))
				return st_drain(st), -1;
			sent += n;
		}
		if (st_reap(st, &tag, &actual))
			return st_drain(st), -1;
		done += actual;
	}
	return 0;
}

/* Receive @len bytes from the host into the file at byte @pos. */
static int st_write_data(struct storage *st, uint64_t pos, uint64_t len)
{
	uint64_t asked = 0, done = 0, tag;
	uint32_t actual;

	/* (a short packet from the host ends it early) */
	while (done < len && (asked < len || st->data_outstanding)) {
		while (asked < len && st->data_outstanding < st->depth) {
			uint32_t n = len - asked < ST_CHUNK ? len - asked : ST_CHUNK;

			if (st_submit(st, st->out, (asked / ST_CHUNK) % st->depth,
				      asked, n, 0))
				return st_drain(st), -1;
			asked += n;
		}
		if (st_reap(st, &tag, &actual))
			return st_drain(st), -1;
		if (!st->readonly &&
		    pwrite(st->file, st->bufs + (size_t)ST_TAG_SLOT(tag) * ST_CHUNK,
			   actual, pos + ST_TAG_OFF(tag)) != actual)
			return st_drain(st), -1;
		done += actual;
	}
	return 0;
}

/* A blocking write, on the stream of the command at hand if it has one. */
static int st_write(struct storage *st, int handle, const void *buf,
		    uint32_t len, uint16_t flags)
{
	if (st->stream)
		return rg_ep_write_stream(st->d->fd, handle, st->stream, buf,
					  len, flags);
	return rg_ep_write(st->d->fd, handle, buf, len, flags);
}

/* A short IN reply: at most what the host asked for, then a short packet. */
static uint32_t st_reply(struct storage *st, const void *buf, uint32_t n,
			 uint32_t asked)
{
	if (n > asked)
		n = asked;
	if (!n && st->uas)	/* the sense IU ends it */
		return asked;
	if (st_write(st, st->in, buf, n,
		     n < asked ? USB_RAW_IO_FLAGS_ZERO : 0) < 0)
		return asked;
	return asked - n;
}

/* Take the data the host sends with a command that wants none. */
static void st_discard(struct storage *st, uint32_t len)
{
	if (st->uas)		/* the host cancels what the sense IU refuses */
		return;
	while (len) {
		uint32_t n = len < ST_CHUNK ? len : ST_CHUNK;
		int ret = rg_ep_read(st->d->fd, st->out, st->bufs, n);

		if (ret <= 0)
			return;
		len -= ret;
	}
}

/* --- SCSI ------------------------------------------------------------------ */

/* A command: from a CBW, or from a UAS command IU (len from the CDB). */
struct cbw {
	uint32_t tag, len;
	int in;
	int lun;			/* not 0: no such logical unit */
	const uint8_t *cb;
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/*
 * A command that fails before its data phase: under BOT the host still
 * waits for data (an empty reply ends it) or sends it (taken and dropped).
 */
static void st_no_data(struct storage *st, const struct cbw *c)
{
	if (c->len && c->in)
		st_reply(st, NULL, 0, c->len);
	else if (c->len)
		st_discard(st, c->len);
}

/* READ/WRITE(10) and (16); status 0 or 1, *residue set. */
static int st_rw(struct storage *st, const struct cbw *c, uint32_t *residue)
{
	int write = c->cb[0] == 0x2a || c->cb[0] == 0x8a;
	int sixteen = c->cb[0] == 0x88 || c->cb[0] == 0x8a;
	uint64_t lba = sixteen ? be64(c->cb + 2) : be32(c->cb + 2);
	uint64_t n = sixteen ? be32(c->cb + 10) :
		     (uint32_t)(c->cb[7] << 8 | c->cb[8]);
	uint64_t bytes = n * ST_BLOCK;
	int ret;

	*residue = c->len;
	if (lba > st->blocks || n > st->blocks - lba) {
		st_sense(st, 0x05, 0x21, 0);	/* LBA out of range */
		st_no_data(st, c);
		return 1;
	}
	if (write && st->readonly) {
		st_sense(st, 0x07, 0x27, 0);	/* write protected */
		st_no_data(st, c);
		return 1;
	}
	if (bytes > c->len)
		bytes = c->len - c->len % ST_BLOCK;
	if (!bytes)
		ret = 0;
	else if (write)
		ret = st_write_data(st, lba * ST_BLOCK, bytes);
	else
		ret = st_read_data(st, lba * ST_BLOCK, bytes, bytes < c->len);
	/* the host sent or wants more than the command moves */
	if (!ret && !bytes)
		st_no_data(st, c);
	else if (!ret && write && bytes < c->len)
		st_discard(st, c->len - bytes);
	if (ret) {
		st_sense(st, 0x03, write ? 0x0c : 0x11, 0);	/* medium error */
		return 1;
	}
	*residue = c->len - bytes;
	return 0;
}

/* Fixed-format sense data of the last error into @r (18 bytes); cleared. */
static void st_sense_data(struct storage *st, uint8_t *r)
{
	memset(r, 0, 18);
	r[0] = 0x70;
	r[2] = st->sense_key;
	r[7] = 10;
	r[12] = st->asc;
	r[13] = st->ascq;
	st_sense(st, 0, 0, 0);
}

/* One command; its status (0 good, 1 failed, 2 phase error), residue. */
static int st_command(struct storage *st, const struct cbw *c,
		      uint32_t *residue)
{
	uint8_t r[36] = { 0 };
	uint32_t n = 0;

	*residue = c->len;
	if (c->lun && c->cb[0] == 0x12) {	/* INQUIRY: nothing there */
		r[0] = 0x7f;
		*residue = st_reply(st, r, 36, c->len);
		return 0;
	}
	if (c->lun) {
		st_sense(st, 0x05, 0x25, 0);	/* LUN not supported */
		goto fail_in;
	}
	switch (c->cb[0]) {
	case 0x28: case 0x88:			/* READ(10), READ(16) */
	case 0x2a: case 0x8a:			/* WRITE(10), WRITE(16) */
		if (c->len && c->in != (c->cb[0] == 0x28 || c->cb[0] == 0x88))
			return 2;
		return st_rw(st, c, residue);
	case 0x00:				/* TEST UNIT READY */
	case 0x1e:				/* PREVENT ALLOW MEDIUM REMOVAL */
	case 0x1b:				/* START STOP UNIT */
	case 0x2f:				/* VERIFY(10) */
		return 0;
	case 0x35:				/* SYNCHRONIZE CACHE(10) */
		return fdatasync(st->file) ? (st_sense(st, 0x03, 0x0c, 0), 1) : 0;
	case 0x03:				/* REQUEST SENSE */
		st_sense_data(st, r);
		n = 18;
		break;
	case 0xa0:				/* REPORT LUNS: LUN 0 */
		put_be32(r, 8);
		n = 16;
		break;
	case 0x12:				/* INQUIRY */
		if (c->cb[1] & 1) {		/* no VPD pages */
			st_sense(st, 0x05, 0x24, 0);
			goto fail_in;
		}
		r[2] = 2;			/* SCSI-2, as f_mass_storage */
		r[3] = 2;
		r[4] = 31;
		memcpy(r + 8, "mw57    rg-storage      0001", 28);
		n = 36;
		break;
	case 0x1a:				/* MODE SENSE(6): header only */
		r[0] = 3;
		r[2] = st->readonly ? 0x80 : 0;
		n = 4;
		break;
	case 0x5a:				/* MODE SENSE(10): header only */
		r[1] = 6;
		r[3] = st->readonly ? 0x80 : 0;
		n = 8;
		break;
	case 0x25:				/* READ CAPACITY(10) */
		put_be32(r, st->blocks > 0xffffffffu ? 0xffffffffu :
			    st->blocks - 1);
		put_be32(r + 4, ST_BLOCK);
		n = 8;
		break;
	case 0x9e:				/* READ CAPACITY(16) */
		if ((c->cb[1] & 0x1f) != 0x10) {
			st_sense(st, 0x05, 0x20, 0);
			goto fail_in;
		}
		put_be32(r, (st->blocks - 1) >> 32);
		put_be32(r + 4, st->blocks - 1);
		put_be32(r + 8, ST_BLOCK);
		n = 32;
		break;
	case 0x23:				/* READ FORMAT CAPACITIES */
		r[3] = 8;
		put_be32(r + 4, st->blocks);
		put_be32(r + 8, ST_BLOCK);	/* 24-bit block length */
		r[8] = 0x02;			/* formatted media */
		n = 12;
		break;
	default:
		st_sense(st, 0x05, 0x20, 0);	/* invalid operation code */
		goto fail_in;
	}
	if (!c->len)
		return 0;
	if (!c->in) {
		st_discard(st, c->len);
		return 2;
	}
	*residue = st_reply(st, r, n, c->len);
	return 0;

fail_in:
	st_no_data(st, c);
	return 1;
}

/* --- UAS ------------------------------------------------------------------ */

static uint16_t be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/*
 * A UAS command IU carries no transfer length: the data the CDB moves,
 * and its direction (IN unless a WRITE); 0 for a command we do not know.
 */
static uint32_t st_cdb_len(const uint8_t *cb, int *in)
{
	*in = cb[0] != 0x2a && cb[0] != 0x8a;
	switch (cb[0]) {
	case 0x03: case 0x1a:
		return cb[4];
	case 0x12:
		return be16(cb + 3);
	case 0x23: case 0x5a:
		return be16(cb + 7);
	case 0x25:
		return 8;
	case 0x9e: case 0x88: case 0x8a:
		return cb[0] == 0x9e ? be32(cb + 10) : be32(cb + 10) * ST_BLOCK;
	case 0x28: case 0x2a:
		return be16(cb + 7) * ST_BLOCK;
	case 0xa0:
		return be32(cb + 6);
	default:
		return 0;
	}
}

/* An IU on the status pipe: 0, or -1 when it did not go. */
static int st_status_iu(struct storage *st, const uint8_t *iu, uint32_t len)
{
	return st_write(st, st->status, iu, len, 0) == (int)len ? 0 : -1;
}

/*
 * One IU from the command pipe: a task management function is answered
 * as done (there is never more than the command at hand); a command gets
 * READ or WRITE READY when it moves data, its data, then a sense IU.  At
 * SuperSpeed there is no READY IU: the host has a data request and a
 * status request waiting on the stream of the IU's tag, and the answers
 * go there.
 */
static int st_uas_iu(struct storage *st, const uint8_t *iu, uint32_t len)
{
	uint8_t out[16 + 18] = { 0 };
	struct cbw c = { 0 };
	uint32_t residue;
	int status;

	if (len < 4)
		return 0;
	out[2] = iu[2];			/* the tag */
	out[3] = iu[3];
	if (st->ss) {
		st->stream = be16(iu + 2);
		if (!st->stream || st->stream > 1u << ST_STREAMS_LOG) {
			if (st->d->verbose)
				fprintf(stderr, "rg-storage: UAS: tag %u has no stream\n",
					st->stream);
			return 0;
		}
	}
	if (iu[0] == IU_TASK_MGMT) {
		out[0] = IU_RESPONSE;
		out[7] = 0x00;		/* TMF complete */
		return st_status_iu(st, out, 8);
	}
	if (iu[0] != IU_COMMAND || len < 32)
		return 0;		/* nothing to answer */
	c.cb = iu + 16;
	c.lun = !!memcmp(iu + 8, "\0\0\0\0\0\0\0\0", 8);
	c.len = st_cdb_len(c.cb, &c.in);
	if (c.len && !st->ss) {
		out[0] = c.in ? IU_READ_READY : IU_WRITE_READY;
		if (st_status_iu(st, out, 4))
			return -1;
	}
	status = st_command(st, &c, &residue);
	memset(out + 4, 0, sizeof(out) - 4);
	out[0] = IU_SENSE;
	if (status) {
		out[6] = 0x02;		/* CHECK CONDITION */
		out[15] = 18;
		st_sense_data(st, out + 16);
	}
	return st_status_iu(st, out, status ? sizeof(out) : 16);
}

/* Keep ST_CMDS reads on the command pipe; handle their IUs in order. */
static void *st_uas_worker(void *arg)
{
	struct storage *st = arg;
	unsigned int i, slot;
	uint32_t actual;
	uint64_t tag;
	int ret;

	st->fifo_head = st->fifo_n = 0;
	for (i = 0; i < ST_CMDS; i++) {
		if (rg_submit(st->d->fd, st->cmd, ST_TAG(0, ST_CMD, i), st->iu[i],
			      sizeof(st->iu[i]), 0, 0))
			return NULL;
		st->outstanding++;
	}
	while (!st->worker.stop) {
		if (!st->fifo_n) {
			ret = st_reap_one(st, &tag, &actual);
			if (ret == -2)
				break;
			continue;	/* a stray data completion: none */
		}
		slot = st->fifo[st->fifo_head];
		st->fifo_head = (st->fifo_head + 1) % ST_CMDS;
		st->fifo_n--;
		st->busy = 1;
		ret = st_uas_iu(st, st->iu[slot], st->iu_len[slot]);
		st->busy = 0;
		st->stream = 0;
		if (ret && st->worker.stop)
			break;
		if (rg_submit(st->d->fd, st->cmd, ST_TAG(0, ST_CMD, slot),
			      st->iu[slot], sizeof(st->iu[slot]), 0, 0))
			break;
		st->outstanding++;
	}
	return NULL;
}

/* --- the BOT loop ----------------------------------------------------------- */

static void *st_worker(void *arg)
{
	struct storage *st = arg;
	uint8_t cbw[512], csw[CSW_LEN];
	struct cbw c;
	uint32_t residue;
	int ret, status;

	while (!st->worker.stop) {
		ret = rg_ep_read(st->d->fd, st->out, cbw, sizeof(cbw));
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			break;			/* reset, disconnect, stop */
		if (ret != CBW_LEN || le32(cbw) != CBW_SIG ||
		    cbw[13] || cbw[14] < 1 || cbw[14] > 16) {
			if (st->d->verbose)
				fprintf(stderr, "rg-storage: bad CBW (%d bytes)\n", ret);
			continue;
		}
		memcpy(&c.tag, cbw + 4, 4);	/* echoed as it came */
		c.len = le32(cbw + 8);
		c.lun = 0;
		c.in = !!(cbw[12] & 0x80);
		c.cb = cbw + 15;
		status = st_command(st, &c, &residue);
		if (st->d->verbose)
			fprintf(stderr, "rg-storage: %02x len %u: status %d residue %u\n",
				c.cb[0], c.len, status, residue);
		put_le32(csw, CSW_SIG);
		memcpy(csw + 4, &c.tag, 4);
		put_le32(csw + 8, residue);
		csw[12] = status;
		if (rg_ep_write(st->d->fd, st->in, csw, CSW_LEN, 0) < 0 &&
		    st->worker.stop)
			break;
	}
	return NULL;
}

/* Enable endpoint @i of the table at hand: its handle, or -1 (said why). */
static int st_enable(struct storage *st, unsigned int i)
{
	struct usb_endpoint_descriptor e;
	int h;

	rg_ep_desc(&e, st->ss ? st_ss_eps[i] : st_hs_eps[i]);
	h = st->ss ? rg_ep_enable_ss(st->d->fd, &e, st_ss_comps[i]) :
		     rg_ep_enable(st->d->fd, &e);
	if (h < 0)
		fprintf(stderr, "rg-storage: EP_ENABLE %#x: %s\n",
			e.bEndpointAddress, strerror(-h));
	return h < 0 ? -1 : h;
}

/* Stop the worker, disable every endpoint, reap what that ended. */
static void st_stop(struct rg_device *d)
{
	struct storage *st = d->priv;
	int *h[] = { &st->in, &st->out, &st->cmd, &st->status };
	struct usb_raw_mw57_completion c;
	unsigned int i;

	rg_thread_stop(&st->worker);
	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		if (*h[i] >= 0)
			rg_ep_disable(d->fd, *h[i]);
		*h[i] = -1;
	}
	while (st->outstanding && !rg_reap(d->fd, &c))
		st->outstanding--;
	st->data_outstanding = 0;
}

/* The endpoints and the worker of alternate setting @alt: 0 BOT, 1 UAS. */
/*
 * The data buffers in the transfer area, once the device is open: the
 * area lasts until close, so once is enough.  A module without one
 * (ENODEV) leaves the malloc()ed buffers, which SUBMIT copies.
 */
static void st_map(struct storage *st)
{
	uint8_t *area;

	if (st->mapped)
		return;
	area = rg_map(st->d->fd, (size_t)st->depth * ST_CHUNK);
	if (!area) {
		if (st->d->verbose)
			fprintf(stderr, "rg-storage: no transfer area (%s): copying\n",
				strerror(errno));
		return;
	}
	free(st->bufs);
	st->bufs = area;
	st->mapped = 1;
}

static int st_start(struct rg_device *d, unsigned int alt)
{
	struct storage *st = d->priv;

	st_map(st);
	st->uas = alt == 1;
	if (!st->uas) {
		st->in = st_enable(st, ST_BOT_IN);
		st->out = st_enable(st, ST_BOT_OUT);
		if (st->in < 0 || st->out < 0)
			return -1;
		return rg_thread_start(&st->worker, st_worker, st) ? -1 : 0;
	}
	st->cmd = st_enable(st, ST_EP_CMD);
	st->status = st_enable(st, ST_EP_STATUS);
	st->in = st_enable(st, ST_EP_DIN);
	st->out = st_enable(st, ST_EP_DOUT);
	if (st->cmd < 0 || st->status < 0 || st->in < 0 || st->out < 0)
		return -1;
	return rg_thread_start(&st->worker, st_uas_worker, st) ? -1 : 0;
}

static int st_configure(struct rg_device *d)
{
	return st_start(d, 0);
}

static void st_deconfigure(struct rg_device *d)
{
	st_stop(d);
}

/* uas switches to alternate setting 1; usb-storage stays on 0. */
static int st_set_interface(struct rg_device *d, unsigned int alt)
{
	struct storage *st = d->priv;

	if (alt > (st->offer_uas ? 1u : 0u))
		return -1;
	st_stop(d);
	return st_start(d, alt);
}

/* BOT class requests: GET MAX LUN (one LUN) and the mass-storage reset. */
static int st_control(struct rg_device *d, const struct usb_ctrlrequest *c)
{
	static const uint8_t max_lun;

	if (c->bRequestType == (USB_DIR_IN | USB_TYPE_CLASS |
				USB_RECIP_INTERFACE) &&
	    c->bRequest == 0xfe && c->wLength >= 1)
		return rg_ep0_write(d->fd, &max_lun, 1) < 0 ? -1 : 0;
	if (c->bRequestType == (USB_DIR_OUT | USB_TYPE_CLASS |
				USB_RECIP_INTERFACE) &&
	    c->bRequest == 0xff && !c->wLength)
		return rg_ep0_read(d->fd, NULL, 0) < 0 ? -1 : 0;
	return -1;
}

static const struct rg_device_ops st_ops = {
	.configure = st_configure,
	.deconfigure = st_deconfigure,
	.control = st_control,
	.set_interface = st_set_interface,
};

/* The descriptors for @speed: UAS's alternate setting only when offered. */
static void st_tables(struct storage *st, struct rg_device *d,
		      enum usb_device_speed speed)
{
	size_t len;

	st->ss = speed == USB_SPEED_SUPER;
	if (st->ss) {
		st_device.bcdUSB = 0x0300;
		st_device.bMaxPacketSize0 = 9;	/* 2^9 */
		len = st->offer_uas ? sizeof(st_ss_config) :
		      offsetof(__typeof__(st_ss_config), uas);
		st_ss_config.config.wTotalLength = len;
		d->config = &st_ss_config;
	} else {
		if (speed != USB_SPEED_HIGH) {
			st_device.bcdUSB = 0x0110;
			st_hs_config.bot_in.wMaxPacketSize = 64;
			st_hs_config.bot_out.wMaxPacketSize = 64;
		}
		len = st->offer_uas ? sizeof(st_hs_config) :
		      offsetof(__typeof__(st_hs_config), uas);
		st_hs_config.config.wTotalLength = len;
		d->config = &st_hs_config;
	}
	d->config_len = len;
}

int main(int argc, char **argv)
{
	struct storage st = {
		.depth = 4, .in = -1, .out = -1, .cmd = -1, .status = -1,
	};
	struct rg_device d = {
		.device = &st_device,
		.strings = st_strings,
		.ops = &st_ops,
		.priv = &st,
	};
	struct rg_options o;
	struct stat sb;
	int opt, ret, bad = 0;

	rg_options_init(&o);
	while ((opt = getopt(argc, argv, RG_OPTSTRING "ruq:")) != -1) {
		ret = rg_option(opt, optarg, &o, &d, &st_device);
		if (ret > 0)
			continue;
		if (!ret && opt == 'r')
			st.readonly = 1;
		else if (!ret && opt == 'u')
			st.offer_uas = 1;
		else if (!ret && opt == 'q')
			st.depth = strtoul(optarg, NULL, 0);
		else
			bad = 1;
	}
	if (bad || optind != argc - 1 || !st.depth || st.depth > ST_DEPTH_MAX ||
	    (st.offer_uas && o.speed != USB_SPEED_HIGH &&
	     o.speed != USB_SPEED_SUPER)) {
		fprintf(stderr, "usage: rg-storage " RG_USAGE " [-r] [-u (high or SuperSpeed)] [-q DEPTH (1..16)] FILE\n");
		return 2;
	}
	st_tables(&st, &d, o.speed);
	st.file = open(argv[optind], st.readonly ? O_RDONLY : O_RDWR);
	if (st.file < 0 || fstat(st.file, &sb) || sb.st_size < ST_BLOCK) {
		fprintf(stderr, "rg-storage: %s: %s\n", argv[optind],
			st.file < 0 ? strerror(errno) : "smaller than one block");
		return 1;
	}
	st.blocks = sb.st_size / ST_BLOCK;
	st.bufs = malloc((size_t)st.depth * ST_CHUNK);
	if (!st.bufs) {
		perror("rg-storage");
		return 1;
	}
	st.d = &d;
	ret = rg_device_main(&d, &o, "rg-storage");
	if (st.mapped)
		munmap(st.bufs, (size_t)st.depth * ST_CHUNK);
	else
		free(st.bufs);
	close(st.file);
	return ret;
}
