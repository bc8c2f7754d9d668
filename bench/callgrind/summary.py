# summary.py N DIR...: per dump of the main thread (callgrind.out.*-01), instructions per request: the
# total, and "steady": less TurboFan compilation and full collections, which come in bursts (ADR 0044).
import sys, glob, re, subprocess
n = int(sys.argv[1])
for d in sys.argv[2:]:
    for f in sorted(glob.glob(d + '/callgrind.out.*-01')):
        head = open(f, errors='replace').read(4000)
        trig = re.search(r'^desc: Trigger: dump (\S+)', head, re.M)
        if not trig: continue
        out = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=100', f], capture_output=True, text=True).stdout
        def inc(pat):
            m = re.search(r'^\s*([\d,]+) \([^)]*\)\s+\S*' + pat, out, re.M)
            return int(m.group(1).replace(',', '')) if m else 0
        total = int(re.search(r'^([\d,]+) .*PROGRAM TOTALS', out, re.M).group(1).replace(',', ''))
        comp = inc(r'v8::internal::Runtime_CompileOptimized\(')
        mc = inc(r'v8::internal::MarkCompactCollector::CollectGarbage\(')
        sc = inc(r'v8::internal::ScavengerCollector::CollectGarbage\(')
        print(f'{d.split("/")[-1]:14} {trig.group(1):12} total {total/n:9,.0f}  steady {(total-comp-mc)/n:9,.0f}  (compile {comp/n:7,.0f}, mark-compact {mc/n:6,.0f}, scavenge {sc/n:6,.0f})')
