#!/usr/bin/env python3
"""Names with internal linkage that two files of one target both define.

The sanitized build is a unity build: meson pastes a target's files together
in groups, and which files share a group changes whenever one is added. Two
files that each define the same name in an anonymous namespace (or as a
static function, or a macro) of the same enclosing namespace then fail to
compile together, or, worse, an overload from the other file is called. This
check fails on any such name in any of the given folders (one folder a
target), so the collision is found when it is written, not when a new file
regroups the build. Aliases with the same definition in each file are no
collision and pass.

Usage: unity_names_test.py FOLDER...
"""
import collections
import pathlib
import re
import sys

DECLARES_TYPE = re.compile(r"\b(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)")
ALIAS = re.compile(r"^\s*using\s+(\w+)\s*=")
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"const", "constexpr", "static", "inline", "thread_local", "auto", "void", "int",
            "operator", "template", "typename", "unsigned", "long", "bool", "char", "double"}


def strip(text):
    """The code without comments, string and character literals, or
    preprocessor lines (kept as blank lines so nothing else moves)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            delim = text[i + 2:text.find("(", i)]
            end = text.find(")" + delim + '"', i)
            i = n if end < 0 else end + len(delim) + 2
            out.append('""')
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        elif c == "#" and (i == 0 or text[text.rfind("\n", 0, i) + 1:i].strip() == ""):
            # A preprocessor line, with its continuations.
            j = i
            while True:
                j = text.find("\n", j)
                if j < 0 or text[j - 1] != "\\":
                    break
                j += 1
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def declared_name(statement):
    """The name a declaration at namespace scope defines, or None."""
    s = " ".join(statement.split())
    if not s or s.startswith(("using namespace", "namespace", "static_assert", "friend", "extern \"")):
        return None
    alias = ALIAS.match(s)
    if alias:
        return alias.group(1)
    head, cut = s, False
    depth = 0
    for k, c in enumerate(s):  # the part before "(" or "=" outside template brackets
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and c in "(=[":
            head, cut = s[:k], True
            break
    if not cut:
        t = DECLARES_TYPE.search(s)
        if t and not s.endswith(")"):
            return t.group(1)
    if "operator" in head:
        return None
    names = [w for w in IDENT.findall(re.sub(r"<[^<>]*>", " ", head)) if w not in KEYWORDS]
    return names[-1] if names else None


def internal_names(code):
    """(enclosing namespace, name, statement) for each name defined in an
    anonymous namespace or as a static function at namespace scope."""
    found = []
    stack = []  # ("ns", name) | ("anon",) | ("block",)
    statement = []
    pending_close = False
    for c in code:
        at_namespace = all(s[0] != "block" for s in stack)
        if c == "{":
            text = "".join(statement)
            ns = re.search(r"\bnamespace\s*([\w:]*)\s*$", text)
            if ns and at_namespace:
                stack.append(("ns", ns.group(1)) if ns.group(1) else ("anon",))
            else:
                if at_namespace:
                    record(found, stack, text)
                stack.append(("block",))
            statement = []
        elif c == "}":
            closed = stack.pop() if stack else None
            pending_close = closed == ("block",) and all(s[0] != "block" for s in stack)
            statement = []
        elif c == ";":
            if at_namespace and not pending_close:
                record(found, stack, "".join(statement))
            statement = []
            pending_close = False
        else:
            if not c.isspace():
                pending_close = False
            statement.append(c)
    return found


def record(found, stack, text):
    named = "::".join(s[1] for s in stack if s[0] == "ns")
    anonymous = bool(stack) and stack[-1] == ("anon",)
    static = re.match(r"\s*static\b", text) is not None
    if not (anonymous or static):
        return
    name = declared_name(text)
    if name:
        found.append((named, name, " ".join(text.split())))


def main(folders):
    collisions = 0
    for folder in folders:
        where = collections.defaultdict(dict)  # (namespace, name) -> {file: statement}
        for path in sorted(pathlib.Path(folder).rglob("*.cpp")):
            text = path.read_text()
            for name in set(DEFINE.findall(text)):
                where[("#define", name)].setdefault(str(path), "#define")
            for namespace, name, statement in internal_names(strip(text)):
                where[(namespace, name)].setdefault(str(path), statement)
        for (namespace, name), files in sorted(where.items()):
            if len(files) < 2:
                continue
            if len(set(files.values())) == 1 and ALIAS.match(next(iter(files.values()))):
                continue
            collisions += 1
            print(f"{name} (in {namespace or 'the global namespace'}) is defined in "
                  f"{len(files)} files of {folder}, which a unity build may join: "
                  + ", ".join(sorted(files)))
    if collisions:
        print(f"{collisions} name(s) to rename or to define once in a header of their own")
    return 1 if collisions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
