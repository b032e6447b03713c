#!/usr/bin/env python3
"""Lists the longest function bodies in C++ sources (a brace-matching heuristic).

usage: scripts/longest-functions.py [N] [PATH...]   (default: 15 longest under src/)
"""
import os
import re
import sys

CONTROL = re.compile(r'^\s*(if|for|while|switch|catch|else|do|try)\b|\belse\s*(if\b.*)?$')
SIG = re.compile(r'\)\s*(const)?\s*(noexcept)?\s*(override|final)?\s*(->\s*[\w:<>]+)?\s*$')


def strip(text):
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\])'", "''", text)
    return text


def functions(path):
    text = strip(open(path, encoding='utf-8', errors='replace').read())
    stack = []
    line = 1
    for i, ch in enumerate(text):
        if ch == '\n':
            line += 1
        elif ch == '{':
            head = text[max(0, i - 400):i]
            head_line = head.split(';')[-1].split('}')[-1].split('{')[-1]
            flat = ' '.join(head_line.split())
            is_fn = bool(SIG.search(flat)) and not CONTROL.search(flat) and '=' not in flat.split('(')[0]
            name = ''
            if is_fn:
                m = re.search(r'([~\w:<>]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$', flat)
                name = m.group(1) if m else flat[:60]
            stack.append((line, is_fn, name))
        elif ch == '}' and stack:
            start, is_fn, name = stack.pop()
            if is_fn and not any(f for _, f, _ in stack):
                yield (line - start + 1, path, start, name)


def main():
    args = sys.argv[1:]
    n = int(args.pop(0)) if args and args[0].isdigit() else 15
    roots = args or ['src']
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root) if os.path.isdir(root) else [('', [], [root])]:
            for f in files:
                if f.endswith(('.cpp', '.h')):
                    found.extend(functions(os.path.join(dirpath, f)))
    for length, path, start, name in sorted(found, reverse=True)[:n]:
        print(f'{length:5d}  {path}:{start}  {name}')


main()
