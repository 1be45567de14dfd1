/*
 * driver.h - the ktap command: options, passes, exit status.
 */
#ifndef KTAP_DRIVER_H
#define KTAP_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Run ktap with @argc/@argv; returns the process exit status. */
int drv_main(int argc, char **argv);

struct ktap_session;

/* Pass 5: run the lowered plan (driver_run.c); returns the exit status. */
int drv_pass5(struct ktap_session *s);

/*
 * --dump-functions (s->opt.dump 1) or --dump-probe-aliases (2): print
 * the tapset's public functions and the builtins, or its probe aliases,
 * to @out (driver_dump.c).  Needs pass 1 over the library; returns 0.
 */
int drv_dump(struct ktap_session *s, FILE *out);

/*
 * Fuzzing entry point: parse @data as a script (with and without guru
 * mode), run passes 2 and 3 on it (probe points resolve against
 * $KTAP_TRACEFS, which the fuzz target points at the fixture), print
 * every pass's result to nowhere and free everything.  Always returns 0.
 */
int drv_fuzz_one(const uint8_t *data, size_t size);

#endif
