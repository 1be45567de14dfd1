// SPDX-License-Identifier: GPL-2.0
/*
 * ktapmod.c - a kernel module for ktap's tests of kernel DWARF: built
 * out of tree with -g against Debian's headers (tests/vm/build-kmod.sh),
 * without BTF of its own, so ktap must read its types, parameters and
 * source files from the module's DWARF.
 *
 * Writing a number N to /proc/ktapmod calls ktapmod_handle() with a
 * request whose fields are derived from N (the tests compute the same
 * values), and ktapmod_handle() returns 2 * N + 1.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>

struct ktapmod_inner {
	short level;
	unsigned int flag : 3;
	unsigned int mode : 5;
};

struct ktapmod_req {
	int id;
	long len;
	char tag[16];
	const char *label;
	struct ktapmod_inner in;
	struct ktapmod_req *next;
};

static struct ktapmod_req ktapmod_head = { .id = 1000, .label = "head" };
/* What the last call saw: a side effect, so the call cannot be dropped. */
static long ktapmod_last;

/*
 * Kept out of line so that the probe sees a real call with its arguments;
 * it reads every member, or the compiler (which sees the whole module)
 * could leave out the caller's stores to members it knows are unread.
 */
noinline long ktapmod_handle(struct ktapmod_req *req, int n)
{
	WRITE_ONCE(ktapmod_last, req->id + req->len + req->tag[0] + strlen(req->label) +
		   req->in.level + req->in.flag + req->in.mode + req->next->id);
	return 2 * (long)n + 1;
}

static ssize_t ktapmod_write(struct file *file, const char __user *buf, size_t count,
			     loff_t *pos)
{
	struct ktapmod_req req = { 0 };
	char text[24];
	int n;

	if (count >= sizeof(text) || copy_from_user(text, buf, count))
		return -EINVAL;
	text[count] = '\0';
	if (kstrtoint(strim(text), 10, &n) || n < 0 || n > 1000)
		return -EINVAL;
	req.id = n;
	req.len = 10L * n;
	snprintf(req.tag, sizeof(req.tag), "req-%d", n);
	req.label = n % 2 ? "odd" : "even";
	req.in.level = (short)-n;
	req.in.flag = n & 7;
	req.in.mode = n & 31;
	req.next = &ktapmod_head;
	return ktapmod_handle(&req, n) == 2 * (long)n + 1 ? (ssize_t)count : -EIO;
}

static const struct proc_ops ktapmod_ops = {
	.proc_write = ktapmod_write,
};

static int __init ktapmod_init(void)
{
	return proc_create("ktapmod", 0200, NULL, &ktapmod_ops) ? 0 : -ENOMEM;
}

static void __exit ktapmod_exit(void)
{
	remove_proc_entry("ktapmod", NULL);
}

module_init(ktapmod_init);
module_exit(ktapmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktap test module: a function with typed arguments");
