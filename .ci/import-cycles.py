#!/usr/bin/env python3
"""Fails when the modules of a Rust crate import each other in a circle.

usage: .ci/import-cycles.py SRC_FOLDER...
       .ci/import-cycles.py --self-test

Each file is a module (`mod.rs` is its folder's). An edge is a path in code (comments and unit-test modules left out)
from one module to another that is neither its ancestor nor its descendant: a parent declaring its children and a
child using its parent's own items are how Rust modules nest, not a circle. The paths are those of `crate::…`,
`super::…` and `self::…` in code and every path of a `use` tree, braces expanded (`use super::{a, b::C}` names `a` and
`b`). A path that reaches an item through a re-export (`pub use`, `pub(crate) use`, globs included) is followed to the
module that defines it: `crate::tools::ToolError`, re-exported by `tools` from `tools::types`, is an edge to
`tools::types`, which may be a circle where an edge to `tools` is nesting. Circles among the rest are printed, and the
exit status is 1 when there is any.

`--self-test` plants circles the older check missed (one through a use tree, one through a re-export) in a temporary
crate and fails unless both are found.
"""

import os
import re
import sys
import tempfile

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# A path in code: `crate::a::b`, `super::super::a`, `self::a`.
CODE_PATH = re.compile(rf"(?<![:\w])((?:crate|self|super)(?:::(?:super|{IDENT}))*)")
# A `use` declaration, with its visibility (group 1) and its tree (group 2).
USE = re.compile(r"(?<![\w:])((?:pub(?:\s*\([^)]*\))?\s+)?)use\s+([^;]+);", re.S)
TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*mod tests \{.*", re.S)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def modules_of(root):
    """Every module of the crate under `root`, as a tuple path, with its file."""
    modules = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".rs"):
                continue
            file = os.path.join(folder, name)
            path = os.path.relpath(file, root)[:-3].split(os.sep)
            if path[-1] in ("mod", "lib", "main"):
                path = path[:-1]
            modules[tuple(path)] = file
    return modules


def code_of(file):
    """The file's text without its unit-test module, its comments and its string literals."""
    text = open(file, encoding="utf-8").read()
    text = STRING.sub('""', COMMENT.sub("", text))
    return TEST_MODULE.sub("", text)


def split_top(text):
    """`a, b::{c, d}, e` split at its top-level commas."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [part.strip() for part in parts if part.strip()]


def expand(tree, prefix=()):
    """The paths of a use tree, each as (segments, name it binds or '*' for a glob)."""
    tree = tree.strip()
    alias = None
    # `path as name`, told by the spaces around `as` (a name like `tasks` holds the letters too).
    match = re.match(rf"^([^{{}}]*?)\s+as\s+({IDENT})$", tree, re.S)
    if match:
        tree, alias = match.group(1), match.group(2)
    brace = tree.find("{")
    if brace >= 0 and tree.endswith("}"):
        # The inner parts keep their spaces, by which each names its own alias.
        head = [segment for segment in re.sub(r"\s+", "", tree[:brace]).split("::") if segment]
        found = []
        for part in split_top(tree[brace + 1 : -1]):
            found.extend(expand(part, prefix + tuple(head)))
        return found
    tree = re.sub(r"\s+", "", tree)
    segments = [segment for segment in tree.split("::") if segment]
    if segments == ["self"]:
        segments = []
    elif segments and segments[-1] == "self":
        segments = segments[:-1]
    full = prefix + tuple(segments)
    if not full:
        return []
    if full[-1] == "*":
        return [(full[:-1], "*")]
    return [(full, alias or full[-1])]


def absolute(module, segments):
    """A path as seen from `module`, made absolute (a list of names), or None when it leaves the crate."""
    segments = list(segments)
    if not segments:
        return None
    if segments[0] == "crate":
        return segments[1:]
    if segments[0] in ("self", "super"):
        base = list(module)
        while segments and segments[0] in ("self", "super"):
            if segments.pop(0) == "super":
                if not base:
                    return None
                base.pop()
        return base + segments
    # A 2018-style relative path: a child module of this one (the crate root's `use tools::x` included).
    return list(module) + segments


class Crate:
    def __init__(self, root):
        self.root = root
        self.modules = modules_of(root)
        self.codes = {module: code_of(file) for module, file in self.modules.items()}
        # Per module: name → re-exported absolute path, and the paths it re-exports every name of.
        self.reexports = {module: {} for module in self.modules}
        self.globs = {module: [] for module in self.modules}
        for module, code in self.codes.items():
            for match in USE.finditer(code):
                if not match.group(1).strip():
                    continue
                for segments, name in expand(match.group(2)):
                    path = absolute(module, segments)
                    if path is None:
                        continue
                    if name == "*":
                        self.globs[module].append(path)
                    else:
                        self.reexports[module][name] = path

    def owner(self, path, depth=0):
        """The module that defines what `path` names: its longest module prefix, through re-exports."""
        for length in range(len(path), -1, -1):
            module = tuple(path[:length])
            if module not in self.modules:
                continue
            rest = path[length:]
            if rest and depth < 16:
                followed = self.reexports[module].get(rest[0])
                if followed is not None and followed != path[: length + 1]:
                    return self.owner(followed + rest[1:], depth + 1)
                for glob in self.globs[module]:
                    inner = self.owner(glob + rest, depth + 1)
                    if inner is not None and inner != tuple(glob) or self.defines(tuple(glob), rest[0]):
                        return inner
            return module
        return None

    def defines(self, module, name):
        """Whether `module`'s own code declares an item called `name`."""
        code = self.codes.get(module)
        if code is None:
            return False
        pattern = rf"\b(?:fn|struct|enum|trait|type|const|static|mod|macro_rules!)\s+{re.escape(name)}\b"
        return re.search(pattern, code) is not None

    def imports_of(self, module):
        """The modules that `module`'s code names."""
        code = self.codes[module]
        paths = []
        for match in USE.finditer(code):
            for segments, _ in expand(match.group(2)):
                paths.append(absolute(module, segments))
        without_uses = USE.sub("", code)
        for match in CODE_PATH.finditer(without_uses):
            paths.append(absolute(module, match.group(1).split("::")))
        found = set()
        for path in paths:
            if path is None:
                continue
            owner = self.owner(path)
            if owner is not None:
                found.add(owner)
        return found


def nested(a, b):
    """Whether one module is the other or inside it."""
    return a[: len(b)] == b or b[: len(a)] == a


def circles(edges):
    """The strongly connected parts of more than one module (Tarjan's algorithm, without recursion)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def check(root, quiet=False):
    """Prints the circles of one crate; returns them."""
    crate = Crate(root)
    edges = {
        module: {other for other in crate.imports_of(module) if not nested(module, other)}
        for module in crate.modules
    }
    found = circles(edges)
    for part in found:
        names = ["::".join(module) or "crate" for module in part]
        # One edge per member, so that the reader sees where each goes.
        shown = []
        for module in part:
            targets = sorted("::".join(target) for target in edges[module] if target in part)
            shown.append(f"{'::'.join(module) or 'crate'} -> {', '.join(targets)}")
        if not quiet:
            print(f"{root}: import circle among {', '.join(names)}:\n    " + "\n    ".join(shown))
    if not quiet:
        print(f"{root}: {len(found)} import circles among {len(crate.modules)} modules")
    return found


def self_test():
    """Plants the two kinds of circle the older check missed; true when both are found and a clean crate passes."""
    planted = {
        # A use tree: `a` names `b` only inside braces.
        "tree/lib.rs": "mod a;\nmod b;\n",
        "tree/a.rs": "use super::{b, c};\npub fn f() { b::g() }\n",
        "tree/b.rs": "pub fn g() { crate::a::f() }\n",
        # A re-export: `user` names `tools::Error`, which `tools` re-exports from `tools::types`, and `types` uses
        # `user`; an edge to `tools` alone would be nesting, not a circle.
        "export/lib.rs": "mod tools;\nmod user;\n",
        "export/tools/mod.rs": "mod types;\npub use types::Error;\n",
        "export/tools/types.rs": "pub struct Error;\npub fn h() { crate::user::k() }\n",
        "export/user.rs": "use crate::tools::Error;\npub fn k() {}\n",
        # No circle: a child using its parent, and a re-export used from outside by a module it does not use.
        "clean/lib.rs": "mod tools;\nmod user;\n",
        "clean/tools/mod.rs": "mod types;\npub use types::Error;\npub fn top() {}\n",
        "clean/tools/types.rs": "pub struct Error;\npub fn h() { super::top() }\n",
        "clean/user.rs": "use crate::tools::Error;\n",
    }
    with tempfile.TemporaryDirectory() as folder:
        for name, text in planted.items():
            path = os.path.join(folder, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
        results = {
            crate: check(os.path.join(folder, crate), quiet=True) for crate in ("tree", "export", "clean")
        }
    expected = {
        "tree": [[("a",), ("b",)]],
        "export": [[("tools", "types"), ("user",)]],
        "clean": [],
    }
    good = True
    for crate, want in expected.items():
        verdict = "ok" if results[crate] == want else "WRONG"
        good = good and results[crate] == want
        print(f"self-test {crate}: found {results[crate]}, expected {want}: {verdict}")
    return good


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(0 if self_test() else 1)
    total = sum(len(check(root)) for root in sys.argv[1:])
    sys.exit(1 if total else 0)
