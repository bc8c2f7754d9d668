# names.py DUMP PERF_MAP OUT: writes DUMP with its JIT-code addresses named from V8's perf map
# (node --perf-basic-prof, which also keeps code from moving), so that callgrind_annotate shows
# JavaScript functions as `JS:*name file:line:column` (`*` optimized, `^` baseline, `~` interpreted).
# An address takes the name of the last map entry that contains it. count.sh runs it with NAMES=1.
import bisect, re, sys

dump, perf_map, out = sys.argv[1:4]
entries = {}
for line in open(perf_map, errors='replace'):
    parts = line.rstrip('\n').split(' ', 2)
    if len(parts) == 3:
        start = int(parts[0], 16)
        entries[start] = (start + int(parts[1], 16), parts[2].replace(' ', '_'))
starts = sorted(entries)


def name(address):
    i = bisect.bisect_right(starts, address) - 1
    if i >= 0:
        end, found = entries[starts[i]]
        if address < end:
            return found
    return None


UNNAMED = re.compile(r'^(c?fn)=\((\d+)\) 0x([0-9a-f]+)$')
with open(out, 'w') as w:
    for line in open(dump, errors='replace'):
        m = UNNAMED.match(line)
        if m:
            found = name(int(m.group(3), 16))
            if found:
                line = f'{m.group(1)}=({m.group(2)}) {found}\n'
        w.write(line)
