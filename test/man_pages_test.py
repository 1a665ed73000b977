#!/usr/bin/env python3
"""The man pages lint clean and document everything fiber has.

Checks, against the built fiber, and prints each thing missing and where:
  - `mandoc -Tlint -W warning` says nothing about any page;
  - every setting (`fiber __complete settings`: key, variable, flag) has an
    entry in the SETTINGS section of fiber-config(5) that names its
    variable and its flag;
  - every command `fiber --help` lists, and every one nested under it
    (`fiber image --help`, ...), has a page that names it (fiber-rm(1) is
    also fiber-prune: the NAME section counts) or is named in the COMMANDS
    section of fiber(1);
  - every long flag each command's --help prints appears in its own page
    (section 1), or in fiber(1) when it has none; the settings flags are
    checked once, in fiber-config(5), and --help once, in fiber(1).
Pages are read as mandoc renders them (HTML), so what is checked is what a
reader sees, not the roff source. Without mandoc it skips (status 77).

Usage: man_pages_test.py FIBER_BINARY MAN_DIR
"""
import html.parser
import pathlib
import re
import shutil
import subprocess
import sys

SKIP = 77


def squash(text):
    return " ".join(text.split())


def names(word, text):
    """Whether text has word on its own (--image is not in --image-files)."""
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


class Page(html.parser.HTMLParser):
    """A rendered page: its text, its sections' text and its tagged entries
    (.TP, .IP: tag and body, with the section they are in)."""

    def __init__(self, path, rendered):
        super().__init__(convert_charrefs=True)
        self.name = path.name
        self.section = ""
        self.sections = {}
        self.entries = []  # [section, tag, body]
        self.open = []  # [element, text parts, entry index for a dd]
        self.parts = []
        self.feed(rendered)
        self.close()
        self.text = squash("".join(self.parts))
        self.sections = {k: squash("".join(v)) for k, v in self.sections.items()}
        head = self.sections.get("NAME", "").split(" - ")[0]
        self.names = [n.strip() for n in head.split(",") if n.strip()]

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "dt", "dd"):
            self.open.append([tag, [], len(self.entries) - 1])

    def handle_endtag(self, tag):
        if tag not in ("h1", "h2", "dt", "dd") or not self.open:
            return
        element, parts, entry = self.open.pop()
        text = squash("".join(parts))
        if element == "h1":
            self.section = text
            self.sections.setdefault(text, [])
        elif element == "dt":
            self.entries.append([self.section, text, ""])
        elif element == "dd" and entry >= 0:
            self.entries[entry][2] = text

    def handle_data(self, data):
        self.parts.append(data)
        for item in self.open:
            item[1].append(data)
        if self.open and self.open[0][0] == "h1":
            return
        self.sections.setdefault(self.section, []).append(data)

    def entry(self, section, tag):
        for s, t, body in self.entries:
            if s == section and t == tag:
                return body
        return None


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def help_of(fiber, path):
    """The long flags and the subcommands `fiber PATH... --help` lists."""
    flags, subcommands, heading = [], [], None
    for line in run([fiber, *path, "--help"]).splitlines():
        if line and not line[0].isspace():
            heading = line.rstrip(":") if line.endswith(":") else None
        elif re.match(r"  \S", line):
            first = line.split()[0]
            if heading == "Options":
                flags += [f for f in first.split(",") if f.startswith("--")]
            elif heading == "Subcommands":
                subcommands.append(first)
    return flags, subcommands


def main():
    fiber, man_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    if not shutil.which("mandoc"):
        print("fiber-test skipped: man-pages: mandoc is not installed (.ci/install-deps installs it)")
        return SKIP
    paths = sorted(p for p in man_dir.glob("fiber*.[1-9]"))
    if not paths:
        sys.exit(f"FAIL: no man pages in {man_dir}")
    missing = []

    for path in paths:
        lint = subprocess.run(["mandoc", "-Tlint", "-W", "warning", str(path)], capture_output=True, text=True)
        for line in (lint.stdout + lint.stderr).splitlines():
            missing.append(f"{path.name}: mandoc -Tlint: {line}")
        if lint.returncode != 0 and not (lint.stdout + lint.stderr).strip():
            missing.append(f"{path.name}: mandoc -Tlint exited {lint.returncode}")

    pages = {}
    for path in paths:
        rendered = run(["mandoc", "-Thtml", "-O", "fragment", str(path)])
        pages[path.name] = Page(path, rendered)
    main_page = pages.get("fiber.1")
    config_page = pages.get("fiber-config.5")
    if not main_page or not config_page:
        sys.exit("FAIL: fiber.1 or fiber-config.5 is missing")
    if not names("--help", main_page.sections.get("COMMANDS", "")):
        missing.append("fiber.1: COMMANDS does not say that every command takes --help")

    settings = [line.split("\t") for line in run([fiber, "__complete", "settings"]).splitlines()]
    if len(settings) < 20 or any(len(s) != 3 for s in settings):
        sys.exit(f"FAIL: fiber __complete settings listed {len(settings)} settings, or not as key, variable, flag")
    setting_flags = {flag for _, _, flag in settings}
    for key, variable, flag in settings:
        body = config_page.entry("SETTINGS", key)
        if body is None:
            missing.append(f"fiber-config.5: SETTINGS has no entry for the setting {key} ({variable}, {flag})")
            continue
        for word in (variable, flag):
            if not names(word, body):
                missing.append(f"fiber-config.5: the SETTINGS entry {key} does not name {word}")

    # Each command, top level first: its path, the pages that document it
    # (those naming fiber-TOP, and fiber.1).
    checked_commands, checked_flags = 0, 0
    queue = [[]]
    while queue:
        path = queue.pop(0)
        flags, subcommands = help_of(fiber, path)
        command = " ".join(["fiber", *path])
        own = [p for p in pages.values() if path and p.name.endswith(".1") and f"fiber-{path[0]}" in p.names]
        where = own or [main_page]
        if path:
            checked_commands += 1
            named = any(names(command, p.text) for p in own) or any(
                names(command, f"{tag} {body}") for s, tag, body in main_page.entries if s == "COMMANDS")
            if not named:
                missing.append(f"{command}: no page names it (fiber-{path[0]}.N), nor an entry of COMMANDS in fiber.1")
        for flag in flags:
            if flag in setting_flags or flag == "--help":
                continue  # its setting's entry in fiber-config.5 names it; fiber.1 says every command takes --help
            checked_flags += 1
            if not any(names(flag, p.text) for p in where):
                missing.append(f"{command} --help: {flag} is in none of " + ", ".join(p.name for p in where))
        queue += [path + [s] for s in subcommands]

    if checked_commands < 10:
        sys.exit(f"FAIL: fiber --help listed only {checked_commands} commands")
    for line in missing:
        print(f"FAIL: {line}")
    if missing:
        print(f"{len(missing)} missing from the man pages")
        return 1
    print(f"{len(paths)} pages lint clean; {len(settings)} settings, {checked_commands} commands and "
          f"{checked_flags} flags besides the settings' are documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
