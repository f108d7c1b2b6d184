"""check_docs.py ROOT: the user documentation against the tree.

1. Each public header include/H.h has a page docs/reference/H.md, and each
   MNS_API function declared in H.h has an entry there: a heading
   "### name" or a table row starting "| `name`". An entry whose name is no
   MNS_API call of that header fails too (a removed or renamed call).
2. Every relative link in README.md, CHANGES.md and docs/**/*.md resolves to
   a file or directory of the tree.
3. The user-facing text (README.md, CHANGES.md, docs/, python/) does not
   narrate rounds of work: no "session" in any text file there.
Prints every failure, exits 1 if there is one."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def public_calls(header_text):
    """Function names of the MNS_API declarations (not the macro itself)."""
    code = strip_c_comments(header_text)
    names = []
    for m in re.finditer(r"\bMNS_API\b([^;{]*?)\b(mns_\w+)\s*\(", code):
        if "#define" in code[code.rfind("\n", 0, m.start()) + 1:m.start() + 1]:
            continue
        names.append(m.group(2))
    return names


def documented(page_text):
    heads = re.findall(r"^#{2,4}\s+`?(mns_\w+)`?\s*(?:\(.*\))?\s*$", page_text, re.M)
    rows = re.findall(r"^\|\s*`(mns_\w+)`", page_text, re.M)
    return heads, rows


def check_reference():
    inc = os.path.join(ROOT, "include")
    total = 0
    for h in sorted(os.listdir(inc)):
        if not h.endswith(".h"):
            continue
        calls = public_calls(read(os.path.join(inc, h)))
        page = os.path.join(ROOT, "docs", "reference", h[:-2] + ".md")
        if not os.path.isfile(page):
            fail(f"include/{h} has no reference page docs/reference/{h[:-2]}.md")
            continue
        heads, rows = documented(read(page))
        have = set(heads) | set(rows)
        for c in calls:
            total += 1
            if c not in have:
                fail(f"{c} (include/{h}) has no entry in docs/reference/{h[:-2]}.md")
        for name in heads:
            if name not in calls:
                fail(f"docs/reference/{h[:-2]}.md has an entry for {name}, not a public call of include/{h}")
        for name in rows:
            # table rows may also name constants and types of the header
            if name not in calls and not re.search(r"\b%s\b" % re.escape(name), read(os.path.join(inc, h))):
                fail(f"docs/reference/{h[:-2]}.md names {name}, which include/{h} does not declare")
    print(f"{total} public calls checked against docs/reference/")


SKIP_DIRS = ("build", "dist", "__pycache__", "csrc")


def user_files(dirs, suffix=""):
    """README.md, CHANGES.md, then the files under dirs (build output skipped)."""
    for top in ("README.md", "CHANGES.md"):
        p = os.path.join(ROOT, top)
        if os.path.isfile(p):
            yield p
    for d in dirs:
        for dirpath, dirnames, files in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = [x for x in dirnames if x not in SKIP_DIRS and not x.endswith(".egg-info")]
            for f in files:
                if f.endswith(suffix):
                    yield os.path.join(dirpath, f)


def check_links():
    n = 0
    for md in user_files(["docs"], ".md"):
        text = re.sub(r"```.*?```", "", read(md), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#")[0]
            n += 1
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(md), path))):
                fail(f"{os.path.relpath(md, ROOT)}: broken link {target}")
    print(f"{n} relative links checked")


def check_narration():
    n = 0
    for path in user_files(["docs", "python"]):
        try:
            text = read(path)
        except UnicodeDecodeError:
            continue  # images
        n += 1
        for i, line in enumerate(text.split("\n"), 1):
            if re.search(r"session", line, re.I):
                fail(f"{os.path.relpath(path, ROOT)}:{i}: narrates a round of work: {line.strip()[:80]}")
    print(f"{n} text files checked for narration")


check_reference()
check_links()
check_narration()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("docs: OK")
