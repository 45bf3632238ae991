#!/usr/bin/env python3
# Usage: python3 scripts/doc-links.py [ROOT]. Checks that every relative link (and its #anchor, when given) in the repository's markdown resolves.
import pathlib, re, sys
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
files = [p for p in root.rglob('*.md') if 'target' not in p.parts and '.git' not in p.parts]
def anchors(p):
    out = set()
    for line in p.read_text().split('\n'):
        m = re.match(r'#+\s+(.*)', line)
        if m:
            a = m.group(1).strip().lower()
            a = re.sub(r'[^\w\- ]', '', a).replace(' ', '-')
            out.add(a)
    return out
bad = 0; n = 0
for f in files:
    text = f.read_text()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        link = m.group(1)
        if re.match(r'[a-z]+:', link):
            continue
        n += 1
        path, _, frag = link.partition('#')
        target = (f.parent / path).resolve() if path else f
        if not target.exists():
            print(f'{f.relative_to(root)}: missing {link}'); bad += 1; continue
        if frag and target.is_file() and frag not in anchors(target):
            print(f'{f.relative_to(root)}: no anchor {link}'); bad += 1
print(f'{n} relative links checked, {bad} broken')
sys.exit(1 if bad else 0)
