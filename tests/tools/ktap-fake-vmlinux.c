/*
 * ktap-fake-vmlinux.c - stands in for a kernel's DWARF in the host tests
 * of kernel.function("NAME@FILE") (tests/harness/kdwarf.sh): built with
 * -g as tests/tools/kdebug/vmlinux, which ktap finds through
 * KTAP_DEBUGINFO_PATH.  Only its debug information matters; the plans
 * ktap makes from it are printed (-p3), never run.  A static function of
 * the same name with another parameter lives in ktap-fake-vmlinux2.c.
 */
struct ktap_fake_inode {
	unsigned long i_ino;
	unsigned int i_mode;
};

struct ktap_fake_file {
	unsigned int f_flags;
	struct ktap_fake_inode *f_inode;
	const char *f_name;
};

int ktap_fake_dup2(int b);

/* Out of line whatever the optimisation level: the tests probe it. */
__attribute__((noinline)) static int ktap_fake_dup(int a)
{
	return a + 1;
}

long ktap_fake_read(struct ktap_fake_file *file, char *buf, unsigned long count)
{
	return (long)count + file->f_flags + (buf != 0) + ktap_fake_dup((int)count);
}

int main(void)
{
	struct ktap_fake_inode i = { 7, 0644 };
	struct ktap_fake_file f = { 2, &i, "x" };

	return (int)ktap_fake_read(&f, 0, 3) + ktap_fake_dup2(1);
}
