#!/usr/bin/env python3
"""The README's table of contents, made from its headings.

    tools/readme-toc.py [README.md]           rewrite it in place
    tools/readme-toc.py --check [README.md]   exit 1 when it is out of date

The contents list the ## sections and their ### subsections, between the
<!-- toc --> markers, just before the first section.
"""
import re
import sys


def strip_toc(text):
    return re.sub(r'<!-- toc -->.*?<!-- /toc -->\n\n', '', text, flags=re.S)


def toc(body):
    lines, fence, seen = [], False, {}
    for line in body.split('\n'):
        if line.startswith('```'):
            fence = not fence
        m = None if fence else re.match(r'(##|###) (.*)$', line)
        if not m:
            continue
        title = m.group(2)
        anchor = re.sub(r'[^\w\- ]', '', title.lower().replace('`', ''))
        anchor = anchor.replace(' ', '-')
        seen[anchor] = seen.get(anchor, -1) + 1
        if seen[anchor]:
            anchor += '-%d' % seen[anchor]
        indent = '' if m.group(1) == '##' else '  '
        lines.append('%s- [%s](#%s)' % (indent, title, anchor))
    return ('<!-- toc -->\nContents:\n\n' + '\n'.join(lines)
            + '\n<!-- /toc -->\n\n')


def main(argv):
    check = '--check' in argv
    paths = [a for a in argv if a != '--check']
    path = paths[0] if paths else 'README.md'
    text = open(path, encoding='utf-8').read()
    body = strip_toc(text)
    at = body.index('\n## ') + 1
    new = body[:at] + toc(body) + body[at:]
    if check:
        if new != text:
            print('%s: the table of contents is out of date; run '
                  'tools/readme-toc.py' % path)
            return 1
        return 0
    open(path, 'w', encoding='utf-8').write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
