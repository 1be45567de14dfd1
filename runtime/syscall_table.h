/*
 * syscall_table.h - system-call numbers and names of the architecture
 * ktap runs on (raw_syscalls records carry only the number).
 */
#ifndef KTAP_SYSCALL_TABLE_H
#define KTAP_SYSCALL_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The name of system call @nr, or NULL when the table has none. */
const char *sct_name(int64_t nr);

/* The number of system call @name (@len bytes), or -1. */
int64_t sct_number(const char *name, size_t len);

/* Entry @i of the table (in number order): its name, and its number
   in *@nr; NULL past the end.  The compiler reads the whole table to
   turn syscall_name() tests into number tests. */
const char *sct_entry(size_t i, int64_t *nr);

/* Does this build have a table (x86_64 only, for now)? */
int sct_available(void);

#endif
