#!/usr/bin/env python3
"""Recount the tbench exchange sizes of dbench 4.0's client.txt.

Reads the loadfile as dbench 4.0's child_run() (child.c) does and sizes each operation's
request and reply as its sockio.c backend does; prints the table that
src/workload/generators/tbench_sizes.cpp holds, one row per distinct exchange:
    {kind, request bytes, reply bytes, bytes tbench counts, occurrences}
Usage: scripts/tbench_sizes.py [/usr/share/dbench/client.txt]
"""
import collections
import sys

# The path dbench prefixes to every file name: options.directory, "." by default (dbench.c).
DIRECTORY = "."


def tokens(line):
    """next_token() of util.c: split on spaces, a double quote toggles quoting and is dropped."""
    out, cur, quoted, any_char = [], [], False, False
    for ch in line:
        if ch == '"':
            quoted, any_char = not quoted, True
        elif ch == " " and not quoted:
            if any_char:
                out.append("".join(cur))
            cur, any_char = [], False
        else:
            cur.append(ch)
            any_char = True
    if any_char:
        out.append("".join(cur))
    return out


def exchange(p):
    """(kind, request, reply, counted) of one parsed line, or None when it sends nothing."""
    def name(i):
        # child_run(): a parameter starting with '/' is a path under the directory; "client1"
        # becomes the client's own name, the same length for clients 0-9.
        return DIRECTORY + p[i] if len(p) > i and p[i].startswith("/") else ""
    f, f2 = name(1), name(2)
    k = p[0]
    # sockio.c, the nb_* function of each operation: do_packets(send_size, recv_size).
    if k in ("Unlink", "Mkdir", "Rmdir"):
        return k, 39 + 2 + len(f) * 2 + 2, 39, 0
    if k == "NTCreateX":
        return k, 70 + 2 + len(f) * 2 + 2, 39 + 12 * 4, 0
    if k == "WriteX":  # nb_writex(handle, offset, size, ret_size): child->bytes += size
        size = int(p[3], 0)
        return k, 39 + 20 + size, 39 + 16, size
    if k == "ReadX":  # nb_readx(handle, offset, size, ret_size): child->bytes += ret_size
        ret = int(p[4], 0)
        return k, 39 + 20, 39 + 20 + ret, ret
    if k == "Close":
        return k, 39 + 8, 39, 0
    if k == "Rename":
        return k, 39 + 8 + 2 * len(f) + 2 * len(f2), 39, 0
    if k == "Flush":
        return k, 39 + 2, 39, 0
    if k == "QUERY_PATH_INFORMATION":
        return k, 39 + 16 + 2 * len(f), 39 + 32, 0
    if k in ("QUERY_FILE_INFORMATION", "QUERY_FS_INFORMATION"):
        return k, 39 + 20, 39 + 32, 0
    if k == "FIND_FIRST":  # nb_findfirst(fname, level, maxcnt, count)
        return k, 39 + 20 + len(f) * 2, 39 + 90 * int(p[4], 0), 0
    if k == "SET_FILE_INFORMATION":
        return k, 39 + 32, 39 + 8, 0
    if k in ("LockX", "UnlockX"):
        return k, 39 + 12, 39, 0
    if k in ("Deltree", "Sleep"):  # nb_deltree() sends nothing; nb_sleep() only sleeps
        return None
    raise SystemExit(f"unknown operation {k}")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/dbench/client.txt"
    rows = collections.Counter()
    with open(path, encoding="latin-1") as f:
        for line in f:
            # child_run(): backslashes become '/', then " /" becomes " ".
            line = line.rstrip("\n").replace("\\", "/").replace(" /", " ")
            p = tokens(line)
            if len(p) < 2 or p[0].startswith("#"):
                continue
            if p[0][0].isdigit():  # a timed line: the first field is its time
                p = p[1:]
            if not (p[-1].startswith("NT_STATUS_") or p[-1].startswith("0x")):
                continue  # "Badly formed status": child_run() skips the line
            x = exchange(p)
            if x is not None:
                rows[x] += 1
    for (k, req, rep, counted), n in sorted(rows.items()):
        print(f'    {{"{k}", {req}, {rep}, {counted}, {n}}},')


if __name__ == "__main__":
    main()
