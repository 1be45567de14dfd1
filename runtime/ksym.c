/* ksym.c - kernel symbolisation from a kallsyms text (runtime).
 *
 * In:  /proc/kallsyms text.  Out: a table sorted by address, lookups and
 * stap-format strings (ksym.h).  The names live in one copy of the text
 * (NUL-terminated in place); entries hold offsets into it.
 */
#define _GNU_SOURCE
#include "ksym.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ksym_entry {
	uint64_t addr;
	uint64_t size;      /* 0: unknown (last of its module) */
	uint32_t name;      /* offset in strings */
	uint32_t module;    /* offset in strings; 0 is "kernel" */
	uint32_t order;     /* line order, for aliases */
};

struct ksym_table {
	char *strings;      /* "kernel\0" then the text, split in place */
	struct ksym_entry *e;
	size_t n, skipped;
	int hidden;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *ksym_hidden_message(void)
{
	return "kernel addresses are hidden: /proc/kallsyms shows every address as 0 "
	       "(kernel.kptr_restrict is set or CAP_SYSLOG is missing); kernel frames "
	       "print as hex addresses. Run as root with kernel.kptr_restrict=0 or 1 "
	       "to get symbols";
}

/* Parses "HEX TYPE NAME[\t[MOD]]" in the NUL-terminated LINE, cutting it
 * in place.  Returns 0, -1 for a malformed line, 1 for a line to drop. */
static int parse_line(char *line, uint64_t *addr, char *type, char **name, char **mod)
{
	char *s = line;
	uint64_t v = 0;
	int digits = 0;
	for (; *s && *s != ' '; s++, digits++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (digits >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (digits == 0 || s[0] != ' ' || !s[1] || s[2] != ' ' || !s[3])
		return -1;
	*addr = v;
	*type = s[1];
	*name = s + 3;
	*mod = NULL;
	char *tab = strchr(*name, '\t');
	if (tab) {
		*tab = '\0';
		char *m = tab + 1;
		size_t ml = strlen(m);
		if (ml < 3 || m[0] != '[' || m[ml - 1] != ']')
			return -1;
		m[ml - 1] = '\0';
		*mod = m + 1;
	}
	if (strchr(*name, ' ') || !**name)
		return -1;
	return (*type == 'a' || *type == 'A' || *type == 'U') ? 1 : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ksym_entry *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sizes: the distance to the next higher address of the same module. */
static void compute_sizes(struct ksym_table *t)
{
	size_t next = t->n; /* first entry with a higher address */
	for (size_t i = t->n; i-- > 0;) {
		if (i + 1 < t->n && t->e[i + 1].addr > t->e[i].addr)
			next = i + 1;
		const struct ksym_entry *nx = next < t->n ? &t->e[next] : NULL;
		int same = nx && strcmp(t->strings + nx->module, t->strings + t->e[i].module) == 0;
		t->e[i].size = same ? nx->addr - t->e[i].addr : 0;
	}
}

int ksym_parse(const char *text, size_t len, struct ksym_table **out, char *err, size_t errlen)
{
	*out = NULL;
	if (len > UINT32_MAX - 16) {
		seterr(err, errlen, "kallsyms text too large");
		return -1;
	}
	struct ksym_table *t = calloc(1, sizeof(*t));
	if (!t || !(t->strings = malloc(len + 8))) {
		free(t);
		seterr(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t->strings, "kernel", 7);
	char *s = t->strings + 7;
	memcpy(s, text, len);
	s[len] = '\0';
	size_t cap = 0, nonzero = 0;
	uint32_t order = 0;
	for (char *line = s; line < s + len;) {
		char *nl = memchr(line, '\n', (size_t)(s + len - line));
		char *next = nl ? nl + 1 : s + len;
		if (nl)
			*nl = '\0';
		uint64_t addr;
		char type, *name, *mod;
		size_t ll = (size_t)((nl ? nl : s + len) - line);
		int r = ll == 0 ? 1 /* blank line */
			: memchr(line, '\0', ll) ? -1
						 : parse_line(line, &addr, &type, &name, &mod);
		if (r < 0)
			t->skipped++;
		if (r == 0) {
			if (t->n == cap) {
				cap = cap ? 2 * cap : 4096;
				struct ksym_entry *v = realloc(t->e, cap * sizeof(*v));
				if (!v) {
					ksym_free(t);
					seterr(err, errlen, "out of memory");
					return -1;
				}
				t->e = v;
			}
			struct ksym_entry *e = &t->e[t->n++];
			e->addr = addr;
			e->name = (uint32_t)(name - t->strings);
			e->module = mod ? (uint32_t)(mod - t->strings) : 0;
			e->order = order++;
			nonzero += addr != 0;
		}
		line = next;
	}
	if (t->n == 0) {
		ksym_free(t);
		seterr(err, errlen, "no symbol in the kallsyms text");
		return -1;
	}
	t->hidden = nonzero == 0;
	qsort(t->e, t->n, sizeof(*t->e), cmp_entry);
	compute_sizes(t);
	*out = t;
	return 0;
}

int ksym_load(const char *path, struct ksym_table **out, char *err, size_t errlen)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	/* /proc/kallsyms has st_size 0: read until the end. */
	size_t n = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			close(fd);
			seterr(err, errlen, "out of memory");
			return -1;
		}
		if (n == cap) {
			char *v = realloc(buf, cap * 2);
			if (!v) {
				free(buf);
				buf = NULL;
				continue;
			}
			buf = v;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			seterr(err, errlen, "cannot read %s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	int rc = ksym_parse(buf, n, out, err, errlen);
	free(buf);
	return rc;
}

void ksym_free(struct ksym_table *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->strings);
	free(t);
}

size_t ksym_count(const struct ksym_table *t)
{
	return t->n;
}

size_t ksym_skipped(const struct ksym_table *t)
{
	return t->skipped;
}

int ksym_hidden(const struct ksym_table *t)
{
	return t->hidden;
}

int ksym_lookup(const struct ksym_table *t, uint64_t addr, struct ksym_info *info)
{
	if (!t || t->hidden || t->n == 0 || addr < t->e[0].addr)
		return -1;
	size_t lo = 0, hi = t->n; /* last entry with e.addr <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->e[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	while (lo > 0 && t->e[lo - 1].addr == t->e[lo].addr)
		lo--; /* the first alias, as the kernel picks */
	const struct ksym_entry *e = &t->e[lo];
	uint64_t off = addr - e->addr;
	if (e->size ? off >= e->size : off >= KSYM_LAST_SPAN)
		return -1;
	info->name = t->strings + e->name;
	info->module = t->strings + e->module;
	info->addr = e->addr;
	info->offset = off;
	info->size = e->size;
	return 0;
}

/* stap's %p and %#lx: "0x" then lower-case hex, 0 as "0x0". */
#define HX "0x%llx"
#define U(x) ((unsigned long long)(x))

int ksym_format_parts(const char *name, const char *module, uint64_t addr, uint64_t offset,
		      uint64_t size, enum ksym_fmt fmt, int inexact, char *buf, size_t len)
{
	const char *ex = inexact && fmt != KSYM_FMT_HEX ? " (inexact)" : "";
	if (name && name[0] == '.')
		name++; /* as stap: ppc64 ".func" entry points print as "func" */
	const char *base = module;
	switch (fmt) {
	case KSYM_FMT_SYMBOL:
		if (name)
			return snprintf(buf, len, "%s%s", name, ex);
		break;
	case KSYM_FMT_BRIEF:
		if (name)
			return snprintf(buf, len, "%s+" HX "%s\n", name, U(offset), ex);
		return snprintf(buf, len, HX "%s\n", U(addr), ex);
	case KSYM_FMT_SIMPLE:
		if (base && strrchr(base, '/'))
			base = strrchr(base, '/') + 1;
		if (name && base)
			return snprintf(buf, len, "%s+" HX " [%s]%s\n", name, U(offset), base, ex);
		if (name)
			return snprintf(buf, len, "%s+" HX "%s\n", name, U(offset), ex);
		if (base)
			return snprintf(buf, len, HX " [%s+" HX "]%s\n", U(addr), base, U(offset), ex);
		return snprintf(buf, len, HX "%s\n", U(addr), ex);
	case KSYM_FMT_DATA:
		if (name && module)
			return snprintf(buf, len, "%s+" HX "/" HX " [%s]%s", name, U(offset), U(size),
					module, ex);
		if (name)
			return snprintf(buf, len, "%s+" HX "/" HX "%s", name, U(offset), U(size), ex);
		if (module)
			return snprintf(buf, len, HX " [%s+" HX "/" HX "]%s", U(addr), module, U(offset),
					U(size), ex);
		break;
	case KSYM_FMT_FULL:
		if (name && module)
			return snprintf(buf, len, " " HX " : %s+" HX "/" HX " [%s]%s\n", U(addr), name,
					U(offset), U(size), module, ex);
		if (name)
			return snprintf(buf, len, " " HX " : %s+" HX "/" HX "%s\n", U(addr), name,
					U(offset), U(size), ex);
		if (module)
			return snprintf(buf, len, " " HX " [%s+" HX "/" HX "]%s\n", U(addr), module,
					U(offset), U(size), ex);
		return snprintf(buf, len, " " HX "%s\n", U(addr), ex);
	case KSYM_FMT_HEX:
		return snprintf(buf, len, HX " ", U(addr));
	}
	return snprintf(buf, len, HX "%s", U(addr), ex);
}

int ksym_format(const struct ksym_table *t, uint64_t addr, enum ksym_fmt fmt, int inexact,
		char *buf, size_t len)
{
	struct ksym_info in;
	if (ksym_lookup(t, addr, &in) < 0)
		return ksym_format_parts(NULL, NULL, addr, 0, 0, fmt, inexact, buf, len);
	return ksym_format_parts(in.name, in.module, addr, in.offset, in.size, fmt, inexact, buf, len);
}

/* ---- by name: the hist stacktrace key's frames back to addresses ---- */

struct ksym_names {
	const struct ksym_table *t;
	uint32_t *idx;		/* entries sorted by name, then module */
	size_t n;
};

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct ksym_table *t = arg;
	const struct ksym_entry *x = &t->e[*(const uint32_t *)a];
	const struct ksym_entry *y = &t->e[*(const uint32_t *)b];
	int c = strcmp(t->strings + x->name, t->strings + y->name);

	return c ? c : strcmp(t->strings + x->module, t->strings + y->module);
}

struct ksym_names *ksym_names_new(const struct ksym_table *t)
{
	struct ksym_names *ns = calloc(1, sizeof(*ns));
	size_t i;

	if (!ns || !t || !(ns->idx = malloc((t->n + 1) * sizeof(*ns->idx)))) {
		free(ns);
		return NULL;
	}
	ns->t = t;
	ns->n = t->n;
	for (i = 0; i < t->n; i++)
		ns->idx[i] = (uint32_t)i;
	qsort_r(ns->idx, ns->n, sizeof(*ns->idx), cmp_name, (void *)t);
	return ns;
}

void ksym_names_free(struct ksym_names *ns)
{
	if (ns)
		free(ns->idx);
	free(ns);
}

/* The first index of @ns->idx whose name is not below @name. */
static size_t names_lower(const struct ksym_names *ns, const char *name, size_t len)
{
	size_t lo = 0, hi = ns->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = ns->t->strings + ns->t->e[ns->idx[mid]].name;
		/* below the key iff its first @len bytes are */
		if (strncmp(s, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ksym_frame_addr(const struct ksym_names *ns, const char *frame, uint64_t *addr)
{
	const char *plus = strchr(frame, '+'), *mod = "kernel", *br;
	unsigned long long off, size;
	size_t len, i, modlen = 6;
	int found = 0, sized = 0;
	char *end;

	if (!strncmp(frame, "0x", 2)) {	/* no symbol: the kernel printed the address */
		*addr = strtoull(frame, &end, 16);
		return *end ? -1 : 0;
	}
	if (!ns || ksym_hidden(ns->t) || !plus || plus == frame || plus[1] != '0' || plus[2] != 'x')
		return -1;
	len = (size_t)(plus - frame);
	off = strtoull(plus + 3, &end, 16);
	if (end[0] != '/' || end[1] != '0' || end[2] != 'x')
		return -1;
	size = strtoull(end + 3, &end, 16);
	if (*end == ' ' && end[1] == '[' && (br = strchr(end, ']'))) {
		mod = end + 2;
		modlen = (size_t)(br - mod);
	} else if (*end) {
		return -1;
	}
	/* the same name and module; of several, those of the printed size
	   (a static function's name can repeat) */
	for (i = names_lower(ns, frame, len); i < ns->n; i++) {
		const struct ksym_entry *e = &ns->t->e[ns->idx[i]];
		const char *name = ns->t->strings + e->name, *m = ns->t->strings + e->module;

		if (strncmp(name, frame, len) || name[len])
			break;
		if (strncmp(m, mod, modlen) || m[modlen])
			continue;
		if (!found++ || (e->size == size && !sized))
			*addr = e->addr + off;
		sized += e->size == size;
	}
	if (!found)
		return -1;
	/* ambiguous: another symbol of the kind chosen, elsewhere */
	for (i = names_lower(ns, frame, len); i < ns->n; i++) {
		const struct ksym_entry *e = &ns->t->e[ns->idx[i]];
		const char *name = ns->t->strings + e->name, *m = ns->t->strings + e->module;

		if (strncmp(name, frame, len) || name[len])
			break;
		if (!strncmp(m, mod, modlen) && !m[modlen] && (!sized || e->size == size) &&
		    e->addr + off != *addr)
			return 1;
	}
	return 0;
}
