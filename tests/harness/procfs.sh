#!/bin/sh
# procfs.sh - procfs("NAME").read and .write probes as FIFOs, and the
# JSON tapset on them (TAP): the contents each reader gets, exactly, one
# probe run per reader; .maxsize(N) beyond MAXSTRINGLEN and as a cut; the
# default name "command"; a reader that leaves early; what writers write,
# the files' modes; stap's metadata.json and
# data.json byte for byte, and the JSON macros' errors; the files and
# their directory gone after the run.  The -c command is the reader.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

# Its runs start pass 5 (an instance as root).
live_lock
D=$TMP/procfs
KTAP_PROCFS_DIR=$D
export KTAP_PROCFS_DIR

# 1. two readers, two runs of the probe; the directory made and removed
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n
probe procfs("hello").read { n++; $value = sprintf("hello %d\n", n); $value .= "bye\n" }' \
	-c "sh -c 'cat $D/hello; cat $D/hello; ls -l $D | cut -c1'"
expect_text "procfs(\"hello\").read: each reader gets the probe's \$value; the file is a FIFO" "hello 1
bye
hello 2
bye
t
p"
if [ ! -e "$D" ]; then ok "the procfs directory is removed at the end"; else not_ok "$D is left"; fi

# 2. maxsize: beyond MAXSTRINGLEN, and a cut; procfs.read is "command"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXSTRINGLEN=8 -D STP_PROCFS_BUFSIZE=3 -e '
probe procfs("long").read.maxsize(40) { for (i = 0; i < 6; i++) $value .= "012345\n" }
probe procfs.read.maxsize(5) { $value = "abcdefg" }
probe procfs("short").read { $value = "ABCDEF" }' \
	-c "sh -c 'cat $D/long; cat $D/command; cat $D/short; echo'"
expect_text ".maxsize(40): appends of MAXSTRINGLEN-long pieces reach 40 bytes; maxsize(5) and STP_PROCFS_BUFSIZE=3 cut" "012345
012345
012345
012345
012345
01234abcdeABC"

# 3. a reader that stops reading (head) ends nothing; the next one is served
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n
probe procfs("big").read.maxsize(300000) {
	n++
	for (i = 0; i < 3000; i++) $value .= sprintf("%099d\n", n) }
probe end { printf("served %d\n", n) }' \
	-c "sh -c 'head -c 3 $D/big; echo; tail -c 4 $D/big'"
expect_text "a reader that leaves early (EPIPE) ends nothing; the next one gets it all" "000
002
served 2"

# 4. write probes: $value is what was written; exit() from one; stap's
#    permissions (0200 write, 0400 read, 0444 less .umask(N)), plus what
#    ktap's own side needs
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global total
probe procfs("ctl").write { total += strlen($value); printf("got [%s]\n", $value)
	if ($value == "stop\n") exit() }
probe procfs("stat").umask(0040).read { $value = sprintf("%d bytes\n", total) }
probe procfs.read { $value = "123456" }
probe end { printf("end %d\n", total) }' \
	-c "sh -c 'ls -l $D | cut -c1-10; echo hello >$D/ctl; sleep 0.3; cat $D/stat; cat $D/command; echo; echo stop >$D/ctl; sleep 5'"
expect_text "procfs(\"ctl\").write: each write's data as \$value, exit() from it; stap's modes" "total 0
prw-------
prw-------
prw----r--
got [hello
]
6 bytes
123456
got [stop
]
end 11"

# 5. the JSON tapset: stap's metadata.json and data.json
cat >"$TMP/json.stp" <<'EOS'
global reads, name
probe begin {
	json_set_prefix("demo")
	json_add_numeric_metric("reads", "Number of reads", "calls")
	json_add_string_metric("name", "")
	json_add_array("procs", "Per process")
	json_add_array_numeric_metric("procs", "count", "calls", "")
	json_add_array_string_metric("procs", "comm", "Command")
	reads = 42; name = "x"
}
probe json_data {
	@json_output_data_start
	@json_output_numeric_value("reads", reads)
	@json_output_string_value("name", name)
	@json_output_array_numeric_value("procs", "1", "count", 7)
	@json_output_array_string_value("procs", "1", "comm", "sh")
	@json_output_array_numeric_value("procs", "2", "count", 9)
	@json_output_data_end
	reads++
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" json.stp \
	-c "sh -c 'cat $D/metadata.json; cat $D/data.json; cat $D/data.json | grep reads'"
expect_text "json: metadata.json and data.json as stap writes them, data afresh per read" '{
  "prefix": "demo",
  "metrics": [
    {
      "name": "reads",
      "pointer": "/reads",
      "type": "integer",
      "description": "Number of reads",
      "units": "calls"
    },
    {
      "name": "name",
      "pointer": "/name",
      "type": "string"
    },
    {
      "name": "procs",
      "pointer": "/procs",
      "type": "array",
      "description": "Per process",
      "index": "/__id",
      "metrics": [
        {
          "name": "count",
          "pointer": "/count",
          "type": "integer",
          "description": "calls"
        },
        {
          "name": "comm",
          "pointer": "/comm",
          "type": "string",
          "description": "Command"
        }
      ]
    }
  ]
}
{
  "reads": 42,
  "name": "x",
  "procs": [
    {
      "__id": "1",
      "count": 7,
      "comm": "sh"
    },
    {
      "__id": "2",
      "count": 9
    }
  ]
}
  "reads": 43,'

# 6. the macros' errors are stap's
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { json_add_numeric_metric("n", "", "") }
probe json_data {
	@json_output_data_start
	@json_output_numeric_value("n", 1)
	@json_output_numeric_value("n", 2)
	@json_output_data_end
}' -c "cat $D/data.json"
if [ "$rc" -eq 1 ] && grep -q "^ERROR: Metric 'n' already output" "$TMP/err"; then
	ok "json: a metric output twice is stap's error"
else
	not_ok "json: a metric output twice (exit status $rc)"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { json_add_string_metric("s", "")
	json_add_numeric_metric("s", "", ""); exit() }
probe json_data { }'
if [ "$rc" -eq 1 ] && grep -q "^ERROR: Metric 's' already exists" "$TMP/err"; then
	ok "json: a metric declared twice is stap's error"
else
	not_ok "json: a metric declared twice (exit status $rc)"
	diag_file "$TMP/err"
fi

done_testing
