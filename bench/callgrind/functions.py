# functions.py N A B [TOP]: self instructions per request by function, B less A, largest first, from two
# named dumps (names.py) of N counted requests; TurboFan, the collectors and other V8 internals are left
# out (their cost moves with how far V8 has optimized), and the totals by group are printed first.
import re, subprocess, sys

n = int(sys.argv[1]); a, b = sys.argv[2], sys.argv[3]; top = int(sys.argv[4]) if len(sys.argv) > 4 else 60
V8_INTERNAL = re.compile(
    r'compiler::|Heap|GC|Sweep|Evacuat|Marking|Scaveng|MarkCompact|Zone|Pipeline|Marker|Compact|Collector|'
    r'RememberedSet|SlotSet|Deoptimiz|Scavenger|RecordMigrated|MigrateObject|IterateObjectCache|ObjectVisitor|'
    r'BodyDescriptor|Bytecode|AstNode|Scope::|Compiler::|interpreter::|FreeList|PagedSpace|MemoryAllocator|'
    r'LocalHeap|Page::|popcount|Rb_tree|Visit|SafepointTable|RelocIterator|Code::')


def load(path):
    text = subprocess.run(['callgrind_annotate', '--inclusive=no', '--threshold=100', path],
                          capture_output=True, text=True).stdout
    costs = {}
    for line in text.splitlines():
        m = re.match(r'^\s*([\d,]+) \([^)]*\)\s+(.*)$', line)
        if not m or 'PROGRAM TOTALS' in line:
            continue
        key = re.sub(r' \[[^\]]*\]$', '', m.group(2)).replace('???:', '')
        # The same function in two builds: no build directory, no tier marker, no line.
        key = re.sub(r'file://[^ ]*?/dist/', 'dist/', key)
        key = re.sub(r':\d+:\d+$', '', re.sub(r'^([A-Za-z]+:)[*~^]', r'\1', key))
        costs[key] = costs.get(key, 0) + int(m.group(1).replace(',', '')) / n
    return costs


def group(key):
    if V8_INTERNAL.search(key): return 'V8 internals (left out)'
    if key.startswith('JS:') or key.startswith('RegExp:'): return 'JavaScript'
    if key.startswith('Builtins_'): return 'V8 built-ins'
    if 'llhttp' in key: return 'llhttp'
    if 'node::' in key: return 'Node C++'
    if key.startswith('v8::'): return 'V8 runtime'
    return 'libc and other'


A, B = load(a), load(b)
totals = {}
for key in set(A) | set(B):
    ta, tb = totals.get(group(key), (0, 0))
    totals[group(key)] = (ta + A.get(key, 0), tb + B.get(key, 0))
for g, (ta, tb) in sorted(totals.items()):
    print(f'{g:26} {ta:10,.0f} {tb:10,.0f} {tb - ta:+9,.0f}')
keys = [k for k in set(A) | set(B) if not V8_INTERNAL.search(k)]
print(f'{"all but V8 internals":26} {sum(A.get(k, 0) for k in keys):10,.0f} {sum(B.get(k, 0) for k in keys):10,.0f}')
for key in sorted(keys, key=lambda k: -abs(B.get(k, 0) - A.get(k, 0)))[:top]:
    print(f'{A.get(key, 0):9,.0f} {B.get(key, 0):9,.0f} {B.get(key, 0) - A.get(key, 0):+8,.0f}  {key[:150]}')
