#!/usr/bin/env python3
"""Fails when the modules of a Rust crate import each other in a circle.

usage: .ci/import-cycles.py SRC_FOLDER...

Each file is a module (`mod.rs` is its folder's). An edge is a `crate::…` or `super::…` path in code (comments and
unit-test modules left out) from one module to another that is neither its ancestor nor its descendant: a parent
declaring its children and a child using its parent's items are how Rust modules nest, not a circle. Circles among
the rest are printed, and the exit status is 1 when there is any.
"""

import os
import re
import sys

CRATE_PATH = re.compile(r"\bcrate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)")
SUPER_PATH = re.compile(r"(?<![:\w])((?:super::)+)((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)")
TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*mod tests \{.*", re.S)


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
    """The file's text without its unit-test module and its comment lines."""
    text = TEST_MODULE.sub("", open(file, encoding="utf-8").read())
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def imports_of(module, file, modules):
    """The modules that `module`'s code names: the longest prefix of each path that is a module."""

    def owner(path):
        for length in range(len(path), 0, -1):
            if tuple(path[:length]) in modules:
                return tuple(path[:length])
        return None

    text = code_of(file)
    named = [match.group(1).split("::") for match in CRATE_PATH.finditer(text)]
    for match in SUPER_PATH.finditer(text):
        levels = match.group(1).count("super::")
        base = list(module[: max(len(module) - levels, 0)])
        named.append(base + match.group(2).split("::"))
    return {found for found in map(owner, named) if found is not None}


def nested(a, b):
    """Whether one module is the other or inside it."""
    return a[: len(b)] == b or b[: len(a)] == a


def circles(edges):
    """The strongly connected parts of more than one module (Tarjan's algorithm, without recursion)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in edges:
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
                    work.append((target, iter(sorted(edges[target]))))
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
                    found.append(part)
    return found


def check(root):
    """Prints the circles of one crate; returns how many there are."""
    modules = modules_of(root)
    edges = {
        module: {other for other in imports_of(module, file, modules) if not nested(module, other)}
        for module, file in modules.items()
    }
    found = circles(edges)
    for part in found:
        print(f"{root}: import circle: " + " -> ".join("::".join(module) for module in part))
    print(f"{root}: {len(found)} import circles among {len(modules)} modules")
    return len(found)


if __name__ == "__main__":
    total = sum(check(root) for root in sys.argv[1:])
    sys.exit(1 if total else 0)
