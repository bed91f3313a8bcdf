#!/usr/bin/env python3
"""Counts a kernel crate's library lines the way issue 24 does: every .rs file
under src/ (SSSP's buckets.rs excluded), without blank lines, comment lines
(//, ///, //!) and #[cfg(test)] modules. Usage: count_lines.py CRATE_DIR..."""
import os, re, sys

def count_file(path):
    lines = open(path).read().split('\n')
    n, i = 0, 0
    in_block_comment = False
    while i < len(lines):
        t = lines[i].strip()
        if in_block_comment:
            if '*/' in t: in_block_comment = False
            i += 1; continue
        if t.startswith('/*'):
            in_block_comment = '*/' not in t
            i += 1; continue
        if t == '#[cfg(test)]':
            # skip the item that follows (a mod block), by brace depth
            j = i + 1
            depth = 0; started = False
            while j < len(lines):
                depth += lines[j].count('{') - lines[j].count('}')
                if '{' in lines[j]: started = True
                j += 1
                if started and depth <= 0: break
                if not started and lines[j-1].strip().endswith(';'): break
            i = j; continue
        if t == '' or t.startswith('//'):
            i += 1; continue
        n += 1; i += 1
    return n

for crate in sys.argv[1:]:
    total = 0
    for root, _, files in os.walk(os.path.join(crate, 'src')):
        for f in sorted(files):
            if not f.endswith('.rs'): continue
            if f == 'buckets.rs' and 'sssp' in crate: continue
            c = count_file(os.path.join(root, f)); total += c
            print(f"  {os.path.join(root, f)}: {c}")
    print(f"{crate}: {total}")
