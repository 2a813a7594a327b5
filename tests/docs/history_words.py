#!/usr/bin/env python3
"""History lives in git: no file of the repository names an issue, a round
or a session by its number (`git grep -iE 'issue [0-9]|round [0-9]'` finds
nothing, nor a session's number or a branch named after an issue).

usage: history_words.py SOURCE_DIR

Reads the files git tracks (every file under SOURCE_DIR but build trees and
.git when it is not a git checkout); binary files are skipped. Standard
library only.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

WORDS = re.compile(r"issue[ -]#?[0-9]|round [0-9]|session [0-9]", re.IGNORECASE)


def files(source):
    listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z"], capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        return [source / name for name in listed.stdout.decode().split("\0") if name]
    found = []
    for directory, subdirectories, names in os.walk(source):
        subdirectories[:] = [d for d in subdirectories if d != ".git" and not d.startswith("build")]
        found.extend(Path(directory) / n for n in names)
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(sys.argv[1]).resolve()
    checked, problems = 0, []
    for path in files(source):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        checked += 1
        for n, line in enumerate(text.splitlines(), 1):
            m = WORDS.search(line)
            if m:
                problems.append("%s:%d: '%s' (say what changed, not when: history lives in git): %s"
                                % (path.relative_to(source), n, m.group(0), line.strip()[:160]))
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    if checked == 0:
        print("history_words: no text file found under %s" % source, file=sys.stderr)
        return 1
    print("history_words: %d text files, none names an issue, a round or a session by number" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
