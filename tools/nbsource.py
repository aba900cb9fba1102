"""Author a notebook as plain text: `# %% [code|markdown] id=ID tags=a,b exercise=X` headers → .ipynb.

Used only to write a solution notebook the first time; from then on the .ipynb
in solutions/ is the source and is edited like any notebook.
    python tools/nbsource.py SOURCE.txt solutions/NN_name.ipynb
"""

import re
import sys

import nbformat

HEADER = re.compile(r"^# %% \[(code|markdown)\](.*)$")


def parse(text: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.nbformat_minor = 5
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    cells, current = [], None
    for line in text.split("\n"):
        m = HEADER.match(line)
        if m:
            current = {"type": m.group(1), "meta": dict(kv.split("=", 1) for kv in m.group(2).split()), "lines": []}
            cells.append(current)
        elif current is not None:
            current["lines"].append(line)
    for c in cells:
        src = "\n".join(c["lines"]).strip("\n")
        cell = nbformat.v4.new_code_cell(src) if c["type"] == "code" else nbformat.v4.new_markdown_cell(src)
        cell.id = c["meta"]["id"]
        if "tags" in c["meta"]:
            cell.metadata["tags"] = c["meta"]["tags"].split(",")
        if "exercise" in c["meta"]:
            cell.metadata["workbook"] = {"exercise": c["meta"]["exercise"].replace("_", " ")}
        nb.cells.append(cell)
    return nb


if __name__ == "__main__":
    nbformat.write(parse(open(sys.argv[1]).read()), sys.argv[2])
