#!/usr/bin/env python3
"""check-links.py ROOT: every relative link in the documentation resolves.

README.md, docs/*.md and kernel-patches/README.md link one another: a link
whose file does not exist, or whose #anchor names no heading of the file it
points at (GitHub's anchors: the heading's text lowercased, punctuation
dropped, spaces made hyphens, a repeat numbered -1, -2), is printed as
"FILE:LINE: ..." and the exit status is 1.  Links with a scheme (https:,
mailto:) are not fetched.  Run by `make lint` and tests/t0050-doc-links.sh.
"""
import glob
import os
import re
import sys

LINK = re.compile(r'(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]*)\)')
SCHEME = re.compile(r'^[a-z][a-z0-9+.-]*:', re.I)


def prose(text):
    """The text with fenced code blocks and code spans blanked (line numbers kept)."""
    out, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('')
        elif fenced:
            out.append('')
        else:
            out.append(re.sub(r'`[^`]*`', lambda m: ' ' * len(m.group(0)), line))
    return '\n'.join(out)


def slug(heading):
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)   # a link's text only
    text = text.strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        seen, found, fenced = {}, set(), False
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.lstrip().startswith('```'):
                    fenced = not fenced
                m = None if fenced else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
                if not m:
                    continue
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else '%s-%d' % (s, n))
        cache[path] = found
    return cache[path]


def check(root, rel):
    path = os.path.join(root, rel)
    errors = []
    text = prose(open(path, encoding='utf-8').read())
    for m in LINK.finditer(text):
        target = m.group(2)
        line = text.count('\n', 0, m.start()) + 1
        if not target or SCHEME.match(target):
            continue
        file, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(dest):
            errors.append('%s:%d: link to "%s": no such file' % (rel, line, target))
        elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
            errors.append('%s:%d: link to "%s": no heading "#%s" in %s'
                          % (rel, line, target, anchor, os.path.relpath(dest, root)))
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    files = ['README.md', 'kernel-patches/README.md']
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, 'docs', '*.md')))
    errors = []
    for rel in files:
        if os.path.exists(os.path.join(root, rel)):
            errors += check(root, rel)
        elif rel == 'README.md':
            errors.append('README.md: missing')
    for e in errors:
        print('check-links: ' + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
