"""The module graph of a Rust crate's sources, and whether it has a cycle.

Usage: python3 tests/module_graph.py [SRC_DIR] [--print]

Reads every `.rs` file under SRC_DIR (default `engine/src`), leaves out
comments (doc comments too) and string literals, and finds every path that
names another module: `crate::a::b`, `super::x`, `self::x` and a child
module named first in a path (`fold::Folder` in `tokenizer/mod.rs`). Each
path counts as an edge to the deepest module it names. Modules are those of
the files (`a.rs` and `a/mod.rs` are `a`, `a/b.rs` is `a::b`) and the
inline `mod name { ... }` blocks (a file's `mod tests`).

The graph is checked at three granularities, each of which must have no
cycle: every module; every file (inline modules folded into their file);
every top-level module (submodules folded into it). With `--print`, the
file graph is printed, a line a module with what it uses. Exits 1 and
prints the cycles found when there are any.
"""

import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(source):
    """`source` with comments and the contents of string and character
    literals replaced by spaces (line breaks kept)."""
    out = []
    i = 0
    n = len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif source.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif re.match(r'(?:b|c)?r(#*)"', source[i:i + 260]) and (
            i == 0 or not re.match(r"[A-Za-z0-9_]", source[i - 1])
        ):
            m = re.match(r'(?:b|c)?r(#*)"', source[i:])
            close = '"' + m.group(1)
            end = source.find(close, i + m.end())
            end = n if end < 0 else end + len(close)
            out.append(re.sub(r"[^\n]", " ", source[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", source[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", source[i:])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def file_module(src, path):
    """The module path of the file at `path` under `src`, as a tuple."""
    parts = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return tuple(parts)


def read_crate(src):
    """Every module of the crate under `src` and the code that is its own:
    {module: (file module, stripped code)}, inline modules apart."""
    modules = {}
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                code = strip(f.read())
            module = file_module(src, path)
            split_inline(module, module, code, modules)
    return modules


def split_inline(module, file, code, modules):
    """Adds `module`'s own code, and that of each inline `mod name { ... }`
    in it, to `modules`, all held by the file module `file`."""
    own = []
    i = 0
    for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", code):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        own.append(code[i:m.start()])
        split_inline(module + (m.group(1),), file, code[m.end():j - 1], modules)
        i = j
    own.append(code[i:])
    modules[module] = (file, "".join(own))


def paths(code):
    """Every path of two segments or more in `code`, as a list of names,
    with the paths of `use` groups (`a::{b, c::d}`) spelled out and a glob
    (`a::*`) as its module."""
    found = []
    for m in re.finditer(r"(?<![A-Za-z0-9_:])((?:" + IDENT + r"\s*::\s*)+)(\{|\*|" + IDENT + ")", code):
        head = [p.strip() for p in m.group(1).split("::") if p.strip()]
        if m.group(2) == "{":
            found.extend(head + rest for rest in group(code, m.end()))
        elif m.group(2) == "*":
            found.append(head)
        else:
            found.append(head + [m.group(2)])
    return found


def group(code, start):
    """The paths of the `use` group whose `{` ends just before `start`."""
    depth, j = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        j += 1
    inner = code[start:j - 1]
    items, depth, begin = [], 0, 0
    for k, c in enumerate(inner + ","):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(inner[begin:k].strip())
            begin = k + 1
    out = []
    for item in filter(None, items):
        item = re.sub(r"\s+as\s+" + IDENT + "$", "", item)
        if "{" in item:
            head = [p.strip() for p in item[: item.index("{")].split("::") if p.strip()]
            out.extend(head + rest for rest in group(item, item.index("{") + 1))
        else:
            out.append([p.strip() for p in item.split("::")])
    return out


def target(module, path, modules):
    """The deepest module that `path`, written in `module`, names; None for
    a path outside the crate."""
    first = path[0]
    if first == "crate":
        base, rest = (), path[1:]
    elif first in ("super", "self"):
        base = module
        rest = list(path)
        while rest and rest[0] in ("super", "self"):
            base = base[:-1] if rest[0] == "super" else base
            rest = rest[1:]
    elif module + (first,) in modules:
        base, rest = module, path
    else:
        return None
    best = base
    for name in rest:
        if best + (name,) not in modules:
            break
        best = best + (name,)
    return best


def edges(modules, fold):
    """{node: {node it uses}} with each module mapped through `fold`."""
    graph = {}
    for module, (_, code) in modules.items():
        node = fold(module)
        graph.setdefault(node, set())
        for path in paths(code):
            to = target(module, path, modules)
            if to is not None and fold(to) != node:
                graph[node].add(fold(to))
    return graph


def cycles(graph):
    """The strongly connected components of `graph` with more than one node
    (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def name(module):
    """`module` as Rust spells it."""
    return "::".join(("crate",) + module) if module else "crate"


def main():
    """Reads the crate, prints the graph when asked, and checks the three
    views for cycles."""
    args = [a for a in sys.argv[1:] if a != "--print"]
    src = args[0] if args else "engine/src"
    modules = read_crate(src)
    views = {
        "module": lambda m: m,
        "file": lambda m: modules[m][0],
        "top-level module": lambda m: m[:1],
    }
    if "--print" in sys.argv:
        graph = edges(modules, views["file"])
        for node in sorted(graph):
            uses = ", ".join(name(t) for t in sorted(graph[node]))
            print(f"{name(node)} -> {uses or '(nothing)'}")
    failed = False
    for view, fold in views.items():
        for component in cycles(edges(modules, fold)):
            failed = True
            print(f"cycle among {view}s: " + " <-> ".join(map(name, component)))
    if not failed:
        print(f"{src}: no cycle among modules, files or top-level modules")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
