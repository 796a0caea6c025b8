"""bench/results.md holds one section per benchmark (the kernel rows of bench.py, the whole
models of bench/models/), each between `<!-- results:NAME -->` and `<!-- /results:NAME -->`,
so each benchmark rewrites its own section and leaves the others as they are."""

import os

TITLE = "# mlvm benchmark results\n"


def replace_section(path, name, body):
    begin, end = f"<!-- results:{name} -->", f"<!-- /results:{name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = TITLE
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    a, b = text.find(begin), text.find(end)
    if a >= 0 and b > a:
        text = text[:a] + block + text[b + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)
