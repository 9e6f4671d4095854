#!/usr/bin/env python3
"""The tables of contents of the README and the doc pages, made from their
headings, and a check of their links.

    tools/readme-toc.py [FILE ...]             rewrite them in place
    tools/readme-toc.py --check [FILE ...]     exit 1 when one is out of date
    tools/readme-toc.py --links [FILE ...]     exit 1 when a relative link
                                               (a file, a heading) is broken

Without FILE: README.md and doc/*.md.  The contents list the ## sections
and their ### subsections, between the <!-- toc --> markers, just before
the first section.  A link is relative when it names no scheme; its file
must exist, and its #anchor must be a heading of that file (a Markdown
file) as GitHub makes anchors of headings.  The links of a YAML file (the
alert rules) are its runbook_url annotations, relative to it.
"""
import glob
import os
import re
import sys


def strip_toc(text):
    return re.sub(r'<!-- toc -->.*?<!-- /toc -->\n\n', '', text, flags=re.S)


def headings(body):
    """(level, title, anchor) of every heading outside fenced code"""
    out, fence, seen = [], False, {}
    for line in body.split('\n'):
        if line.startswith('```') or line.startswith('   ```'):
            fence = not fence
        m = None if fence else re.match(r'(#+) (.*)$', line)
        if not m:
            continue
        title = m.group(2)
        anchor = re.sub(r'[^\w\- ]', '', title.lower().replace('`', ''))
        anchor = anchor.replace(' ', '-')
        seen[anchor] = seen.get(anchor, -1) + 1
        if seen[anchor]:
            anchor += '-%d' % seen[anchor]
        out.append((len(m.group(1)), title, anchor))
    return out


def toc(body):
    lines = []
    for level, title, anchor in headings(body):
        if level in (2, 3):
            indent = '' if level == 2 else '  '
            lines.append('%s- [%s](#%s)' % (indent, title, anchor))
    return ('<!-- toc -->\nContents:\n\n' + '\n'.join(lines)
            + '\n<!-- /toc -->\n\n')


def with_toc(text):
    body = strip_toc(text)
    at = body.index('\n## ') + 1
    return body[:at] + toc(body) + body[at:]


def targets(path):
    """the links of a Markdown file, or a YAML file's runbook_url values"""
    text = open(path, encoding='utf-8').read()
    if path.endswith('.yml'):
        return re.findall(r'^\s*runbook_url:\s*"?([^"\s]+)"?\s*$', text,
                          flags=re.M)
    text = re.sub(r'^ *```.*?^ *```', '', text, flags=re.S | re.M)
    text = re.sub(r'`[^`\n]*`', '', text)
    return re.findall(r'\]\(([^)\s]+)\)', text)


def links(path):
    """the broken relative links of a file, as messages"""
    bad = []
    for target in targets(path):
        if re.match(r'[a-z]+:', target):
            continue
        file, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) \
            if file else path
        if not os.path.exists(dest):
            bad.append('%s: links %s, which does not exist' % (path, target))
            continue
        if anchor and dest.endswith('.md'):
            names = [a for _, _, a in
                     headings(open(dest, encoding='utf-8').read())]
            if anchor not in names:
                bad.append('%s: links %s, a heading %s does not have'
                           % (path, target, dest))
    return bad


def main(argv):
    check = '--check' in argv
    check_links = '--links' in argv
    paths = [a for a in argv if not a.startswith('--')]
    if not paths:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
        paths = [os.path.join(root, 'README.md')] \
            + sorted(glob.glob(os.path.join(root, 'doc', '*.md')))
    status = 0
    for path in paths:
        if check_links:
            for msg in links(path):
                print(msg)
                status = 1
            continue
        text = open(path, encoding='utf-8').read()
        new = with_toc(text)
        if check:
            if new != text:
                print('%s: the table of contents is out of date; run '
                      'tools/readme-toc.py' % path)
                status = 1
            continue
        if new != text:
            open(path, 'w', encoding='utf-8').write(new)
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
