#!/usr/bin/env python3
"""Checks the links of the project's Markdown files: every relative link (and every link into this repository on
GitHub, https://github.com/obsmcp/obsmcp/blob/main/...) must name a file that exists, and an anchor must name a heading
of that file, by GitHub's rules for heading ids. Links inside code are not links.

    python3 .ci/check-links.py              check the repository (exit 1 when a link is broken)
    python3 .ci/check-links.py --self-test  show that a planted broken file link and anchor are found
"""
import os
import re
import sys
import tempfile
import urllib.parse

REPOSITORY = "https://github.com/obsmcp/obsmcp/blob/main/"
SKIP = {".git", "node_modules", "target", "fuzz/target", ".venv"}
# Vaults the tests read: their links are test data (some lead nowhere on purpose), not documentation.
VAULTS = ("obsidian-plugin/test/fixtures/", "tests/vectors/")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files(root):
    for folder, folders, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        folders[:] = [f for f in folders if f not in SKIP and os.path.join(rel, f).lstrip("./") not in SKIP]
        if (rel.replace(os.sep, "/") + "/").startswith(VAULTS):
            continue
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def without_code(text):
    """The text with fenced blocks and inline code blanked (line breaks kept, so line numbers stay)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "``", line))
    return "\n".join(out)


def slug(heading):
    """GitHub's id for a heading: lower case, punctuation but hyphens and spaces dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, ids = {}, set()
        fenced = False
        for line in open(path, encoding="utf-8").read().split("\n"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            found = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if found:
                base = slug(found.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                ids.add(base if count == 0 else f"{base}-{count}")
        cache[path] = ids
    return cache[path]


def broken_links(root):
    problems = []
    for path in sorted(markdown_files(root)):
        text = without_code(open(path, encoding="utf-8").read())
        for number, line in enumerate(text.split("\n"), 1):
            for match in LINK.finditer(line):
                target = match.group(1) or match.group(2)
                if target.startswith(REPOSITORY):
                    file_part, _, anchor = target[len(REPOSITORY):].partition("#")
                    file_part = os.path.join(root, file_part)
                elif re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                else:
                    file_part, _, anchor = target.partition("#")
                    file_part = os.path.join(os.path.dirname(path), file_part) if file_part else path
                file_part = urllib.parse.unquote(file_part)
                where = f"{os.path.relpath(path, root)}:{number}"
                if not os.path.exists(file_part):
                    problems.append(f"{where}: {target}: no such file")
                elif anchor and file_part.endswith(".md") and anchor not in anchors(file_part):
                    problems.append(f"{where}: {target}: no heading with the id #{anchor}")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "a.md"), "w") as f:
            f.write("# Title\n\n## Some `code` heading?\n\n[ok](#some-code-heading) [ok](b.md#b) "
                    "[bad file](missing.md) [bad anchor](b.md#nowhere) `[in code](gone.md)`\n"
                    f"[repo bad]({REPOSITORY}docs/none.md)\n")
        with open(os.path.join(root, "b.md"), "w") as f:
            f.write("# B\n")
        found = broken_links(root)
        expected = ["missing.md", "b.md#nowhere", "docs/none.md"]
        if len(found) != 3 or not all(any(e in p for p in found) for e in expected):
            print("check-links self-test failed, found:\n" + "\n".join(found), file=sys.stderr)
            return 1
    print("check-links self-test: the planted broken links were found")
    return 0


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = broken_links(root)
    for problem in problems:
        print(problem, file=sys.stderr)
    files = sum(1 for _ in markdown_files(root))
    print(f"check-links: {len(problems)} broken link(s) in {files} Markdown files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
