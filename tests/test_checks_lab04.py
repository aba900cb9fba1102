"""Lab 04's validators on real dumps from every device and torch version in the fixtures.

The solution's own annotation code must pass on each dump, and the lab's template must fail, so the
annotation check is right on CPU and GPU alike (the grading tests cover the rest end to end).
"""

from pathlib import Path

import pytest

from helpers import checks, inductor
from helpers.checks import lab04
from tests.submissions import cell, lab, solution

FIXTURES = Path(__file__).resolve().parents[1] / "solutions" / "hidden" / "dumps"
TINYHEADS = sorted(FIXTURES.glob("*/tinyhead"))


def softmax_kernel(folder):
    code = inductor.load_dump(folder)
    found = [k for k in code.kernels if lab04.kernel_is_softmax(k)]
    assert len(found) == 1, f"{folder}: {[k.name for k in code.kernels]}"
    return code, found[0]


def annotation_from(nb, kernel) -> str:
    """Run the notebook's annotation cell with `kernel_to_read` set, as the notebook does."""
    ns = {"kernel_to_read": kernel}
    exec(cell(nb, "ex-d").source, ns)
    return ns["ANNOTATION"]


def test_fixtures_cover_cpu_and_gpu():
    devices = {p.parent.name.split("-")[0] for p in TINYHEADS}
    assert {"cpu", "cuda"} <= devices, f"fixtures: {TINYHEADS}"


@pytest.mark.parametrize("folder", TINYHEADS, ids=lambda p: p.parent.name)
def test_solution_annotation_passes_and_template_fails(folder):
    _, kernel = softmax_kernel(folder)
    assert lab04.annotation_problems(annotation_from(solution(), kernel), kernel) == []
    problems = lab04.annotation_problems(annotation_from(lab(), kernel), kernel)
    assert problems and "misses" in problems[0]


@pytest.mark.parametrize("folder", TINYHEADS, ids=lambda p: p.parent.name)
def test_annotation_of_the_other_device_is_caught(folder):
    _, kernel = softmax_kernel(folder)
    others = [p for p in TINYHEADS if p.parent.name.split("-")[0] != folder.parent.name.split("-")[0]]
    for other in others:
        _, other_kernel = softmax_kernel(other)
        text = annotation_from(solution(), other_kernel)
        assert lab04.annotation_problems(text, kernel), f"an annotation of {other_kernel.name} passed for {kernel.name}"


def test_annotation_messages_name_what_is_missing():
    _, kernel = softmax_kernel(TINYHEADS[0])
    text = annotation_from(solution(), kernel).replace("## Reductions\n", "")      # its text run into 'Output written'
    assert "## Reductions" in " ".join(lab04.annotation_problems(text, kernel))
    text = annotation_from(solution(), kernel).replace("## Reductions\n", "## Notes\nSee the kernel.\n\n## Sums\n")
    assert "## Reductions" not in " ".join(lab04.annotation_problems(text, kernel))     # the text says which section
    notes = annotation_from(solution(), kernel).replace("## Reductions\n", "## Notes\nSee the kernel.\n\n## More notes\n")
    assert lab04.named_sections(notes, lab04.ANNOTATION_SECTIONS, lab04.ANNOTATION_CLUES)[1] == []
    both = notes.replace("See the kernel.", "It keeps the running max in `tmp_acc0` and the sum.")   # two texts fit: neither
    assert "## Reductions" in " ".join(lab04.annotation_problems(both, kernel))


@pytest.mark.parametrize("folder", [p for p in sorted(FIXTURES.glob("*/*")) if (p / "ir_pre_fusion.txt").is_file()],
                         ids=lambda p: f"{p.parent.name}-{p.name}")
def test_scheduler_expectations_hold_on_real_ir(folder):
    code = inductor.load_dump(folder)
    ns = {}
    exec("import re\n" + cell(solution(), "ex-s").source, ns)
    pre, post = ns["scheduler_nodes"](code.ir_pre_fusion), ns["scheduler_nodes"](code.ir_post_fusion)
    assert lab04.scheduler_problems(pre, post) == [] or len(pre) == len(post)


def crossover_answers(find_crossover, cases) -> dict:
    return {"answers": [find_crossover(rows) for c in cases for _, rows in c.orders()],
            "rows": lab04.rows_for((0.5, 2.0), (1, 8))}


@pytest.mark.parametrize("hidden_cases", [False, True], ids=["public", "hidden"])
def test_solution_crossover_is_right_on_every_case(hidden_cases):
    """(The wrong rules, the first faster size among them, are in tests/wrong_answers/lab04.py.)"""
    cases, sweep = hidden_lab04().cases_for("04.crossover", {}) if hidden_cases else checks.spec("04.crossover").public_cases()
    sweep = lab04.SweepCase()
    ns = {}
    exec(cell(solution(), "ex-e").source, {"torch": None, "bench": None, "device": None, **ns}, ns)
    assert lab04.crossover_problems(crossover_answers(ns["find_crossover"], cases), cases, sweep, reveal=True) == []


def hidden_lab04():
    from helpers.grading import hidden

    return hidden.load_hidden("04")


def test_gpu_written_annotation_passes_the_hidden_check_on_any_grader():
    """An honest annotation of a stored GPU dump is judged against every dump it may describe (issue: fairness)."""
    gpu = [p for p in TINYHEADS if p.parent.name.startswith("cuda")][0]
    cpu = [p for p in TINYHEADS if p.parent.name.startswith("cpu")][0]
    _, gpu_kernel = softmax_kernel(gpu)
    _, cpu_kernel = softmax_kernel(cpu)
    case = hidden_lab04().cases_for("04.annotation", {"tinyhead": inductor.load_dump(cpu)})
    text = annotation_from(solution(), gpu_kernel)
    assert lab04.best_annotation_problems(text, [lab04.kernel_facts(k) for k in case.kernels]) == []
    wrong = annotation_from(lab(), gpu_kernel)
    assert lab04.best_annotation_problems(wrong, [lab04.kernel_facts(k) for k in case.kernels])


# Free text judged on facts, in any words: five or more phrasings of each fact, in different styles, and the
# statements that are wrong.
ROLE_PHRASINGS = [
    ("`x0` walks the rows, `x1` the columns of a row", {"x0": "rows", "x1": "columns"}),
    ("the row index is x0 and the column index is x1", {"x0": "rows", "x1": "columns"}),
    ("x0 picks the batch row; `x1` steps along its 600 logits", {"x0": "rows", "x1": "columns"}),
    ("Rows are indexed by x0, while x1 iterates over the elements of a row.", {"x0": "rows", "x1": "columns"}),
    ("x1 → columns (the 600 classes), x0 → rows", {"x0": "rows", "x1": "columns"}),
    ("Here x0 goes down the batch and x1 runs across the logits of the row.", {"x0": "rows", "x1": "columns"}),
    ("each row is handled by x0; r0_1 covers the reduction dimension", {"x0": "rows", "r0_1": "columns"}),
    ("x0 walks the columns and x1 walks the rows", {"x0": "columns", "x1": "rows"}),   # wrong, but read as said
    # along one row is the columns, though the word "row" is in it (these once read as "x1 walks the rows")
    ("`x0` picks the row (stride 600), and `x1` moves along that row, one element at a time", {"x0": "rows", "x1": "columns"}),
    ("x0 selects a row; x1 runs along each row.", {"x0": "rows", "x1": "columns"}),
    ("x0 walks the rows and x1 steps within a row", {"x0": "rows", "x1": "columns"}),
    ("`x1` walks each row's 600 columns and `x0` walks the 2 rows", {"x0": "rows", "x1": "columns"}),
    ("`x0` is the row, `x1` the offset within the row", {"x0": "rows", "x1": "columns"}),
    ("`x0` is the row index and `x1` indexes the 600 values of a row", {"x0": "rows", "x1": "columns"}),
    ("x0 iterates over rows, x1 over columns", {"x0": "rows", "x1": "columns"}),
    ("`x0` ∈ [0, 2) is the row; `x1` ∈ [0, 600) is the column", {"x0": "rows", "x1": "columns"}),
    ("x0 moves across rows; x1 moves across columns", {"x0": "rows", "x1": "columns"}),
    ("x0 moves along the row and x1 walks the rows", {"x0": "columns", "x1": "rows"}),   # wrong, but read as said
]


@pytest.mark.parametrize("text,roles", ROLE_PHRASINGS)
def test_loop_variable_roles_are_read_in_any_words(text, roles):
    assert {v: r for v, r in lab04.stated_roles(text).items() if v in roles} == roles


NOT_STORED_SAID = [
    "exp(x - max) is never written to memory: it stays in registers.",
    "There is no buffer for the exponentials.",
    "The shifted values x - max live in registers only and never touch global memory.",
    "The exponentials are computed on the fly.\nThose values never reach main memory.",
    "Nothing stores the numerator e^(x - max); the second loop recomputes it.",
    "No intermediate tensor is materialised for exp(x − max).",
]
NOT_STORED_WRONG = [
    "exp(x - max) is written to buf1 and read back.",
    "The max is not stored.",
    "The kernel writes the probabilities to out_ptr0.",
    "The exponentials go to a buffer in global memory.",
    "",
]


LOGITS_NOT_STORED = [       # the logits (the addmm's output) said to have no buffer: the kernel reads them from one
    "The intermediate logits (the Linear's output) never get a buffer of their own in memory.",
    "The output of the matmul is never materialised: the kernel computes it on the fly.",
]
LOGITS_AND_EXP = [          # exp(x - max) said, the logits mentioned beside it: not that mistake
    "exp(x - max) is the intermediate. It never gets a buffer of its own, unlike the logits, which the addmm writes.",
    "The shifted logits z - max and their exponentials are never written to memory.",
    "exp(x - max) never gets a [rows, 600] buffer in memory.",
]


@pytest.mark.parametrize("text", LOGITS_NOT_STORED)
def test_the_logits_said_not_stored_are_named_as_such(text):
    assert lab04.says_logits_not_stored(text)


@pytest.mark.parametrize("text", LOGITS_AND_EXP + NOT_STORED_SAID)
def test_exp_said_not_stored_is_not_taken_for_the_logits(text):
    assert not lab04.says_logits_not_stored(text)


def test_an_op_the_kernel_does_not_hold_is_named_in_the_op_list():
    """The Linear's bias add and the layer itself are not in the softmax kernel (the add is inside the library addmm)."""
    _, kernel = softmax_kernel(TINYHEADS[0])
    text = annotation_from(solution(), kernel)
    first = ", ".join(kernel.aten_ops)
    for op in ("add", "linear"):
        problems = lab04.annotation_problems(text.replace(first, f"{op}, {first}", 1), kernel)
        assert any(f"lists {op}," in p for p in problems), problems
    assert lab04.annotation_problems(text.replace(first, f"{first} (the Linear before it is not fused)", 1), kernel) == []


@pytest.mark.parametrize("text", NOT_STORED_SAID)
def test_not_stored_is_read_in_any_words(text):
    assert lab04.says_not_stored(text)


@pytest.mark.parametrize("text", NOT_STORED_WRONG)
def test_not_stored_is_not_read_into_other_statements(text):
    assert not lab04.says_not_stored(text)


ROWS = [{"batch": 1, "eager_ms": 0.0306, "compiled_ms": 0.0725}, {"batch": 64, "eager_ms": 0.0412, "compiled_ms": 0.0401}]
TABLES = [
    "| batch | eager ms | compiled ms |\n|---:|---:|---:|\n| 1 | 0.0306 | 0.0725 |\n| 64 | 0.0412 | 0.0401 |",
    "batch | eager ms | compiled ms\n--- | --- | ---\n1 | 0.0306 | 0.0725\n64 | 0.0412 | 0.0401",
    "| batch | eager | compiled | speedup |\n|:-|:-|:-|:-|\n| 1 | 0.0306 ms | 0.0725 ms | 0.42× |\n| 64 | 0.0412 ms | 0.0401 ms | 1.03× |",
    "Batch | Eager (ms) | Compiled (ms) |\n:---:|:---:|:---:|\n**1** | 3.06e-2 | 7.25e-2 |\n**64** | 4.12e-2 | 4.01e-2 |",
    # a unit in each cell, as the values call for it, and none in the header
    "| batch | eager | compiled |\n|---|---|---|\n| 1 | 30.6 µs | 72.5 us |\n| 64 | 0.0412 ms | 40.1 µs |",
    # turned round: the batch sizes as the columns, a row per quantity
    "| batch | 1 | 64 |\n|---|---|---|\n| eager ms | 0.0306 | 0.0412 |\n| compiled ms | 0.0725 | 0.0401 |\n| speedup | 0.42× | 1.03× |",
    "| | **B=1** | **B=64** |\n|:-|-:|-:|\n| eager | 30.6 µs | 41.2 µs |\n| compiled | 72.5 µs | 40.1 µs |\n| verdict | slower | no difference |",
    # a bullet list, one size a line, in any order of words
    "- batch 1: eager 0.0306 ms, compiled 0.0725 ms, speedup 0.42×, slower\n- batch 64: eager 0.0412 ms, compiled 0.0401 ms, speedup 1.03×",
    "1. **B = 1** — 30.6 µs eager vs 72.5 µs compiled (slower)\n2. **B = 64** — 41.2 µs eager vs 40.1 µs compiled",
    "* 1 row: eager 0.0306 ms; compiled (Inductor) 0.0725 ms\n* 1,024 rows → not measured\n* 64 rows: eager 0.0412 ms; compiled 0.0401 ms",
    # the batch sizes as columns, headed "bs=64" or "64 rows"; a bullet's speedup told with its interval or its formula
    "| metric | bs=1 | bs=64 |\n|---|---|---|\n| eager ms | 0.0306 | 0.0412 |\n| compiled ms | 0.0725 | 0.0401 |\n| speedup | 0.42 | 1.03 |",
    "| | 1 row | 64 rows |\n|---|---|---|\n| eager (µs) | 30.6 | 41.2 |\n| compiled (µs) | 72.5 | 40.1 |",
    "- batch 1 — eager 0.0306 ms / compiled 0.0725 ms (speedup 0.42×): slower\n- batch 64 — eager 0.0412 ms / compiled 0.0401 ms (speedup 1.03×)",
    "- batch 1: eager 0.0306 ms, compiled 0.0725 ms, speedup 0.42× (95% CI 0.40–0.44)\n"
    "- batch 64: eager 0.0412 ms, compiled 0.0401 ms, speedup (eager/compiled): 1.03",
    # a bullet per size, its times as sub-items
    "- batch 1\n  - eager 0.0306 ms\n  - compiled 0.0725 ms\n  - slower\n- batch 64\n  - eager 0.0412 ms\n  - compiled 0.0401 ms",
    # value pairs, in a bullet, a column or a row; the unit in the corner cell alone
    "- batch 1: eager/compiled: 0.0306/0.0725 ms, speedup 0.42×\n- batch 64: eager/compiled: 0.0412/0.0401 ms",
    "- B=1: 30.6/72.5 µs (eager/compiled)\n- B=64: 41.2/40.1 µs (eager/compiled)",
    "| batch | eager/compiled (ms) | speedup |\n|---|---|---|\n| 1 | 0.0306/0.0725 | 0.42× |\n| 64 | 0.0412 / 0.0401 | 1.03× |",
    "| batch | 1 | 64 |\n|---|---|---|\n| compiled/eager (µs) | 72.5/30.6 | 40.1/41.2 |",
    "| µs | 1 | 64 |\n|---|---|---|\n| eager | 30.6 | 41.2 |\n| compiled | 72.5 | 40.1 |",
    "| ms | eager | compiled |\n|---|---|---|\n| 1 | 0.0306 | 0.0725 |\n| 64 | 0.0412 | 0.0401 |",
    # HTML, tab-separated cells, CRLF line ends, a sweep in prose
    "<table><tr><th>batch</th><th>eager (&micro;s)</th><th>compiled (&micro;s)</th></tr>\n<tr><td>1</td><td>30.6</td>"
    "<td>72.5</td></tr><tr><td>64</td><td>41.2</td><td>40.1</td></tr></table>",
    "batch\teager ms\tcompiled ms\n1\t0.0306\t0.0725\n64\t0.0412\t0.0401",
    "| batch | eager ms | compiled ms |\r\n|---|---|---|\r\n| 1 | 0.0306 | 0.0725 |\r\n| 64 | 0.0412 | 0.0401 |\r\n",
    "At batch 1, eager took 30.6 µs and compiled 72.5 µs (slower); at batch 64, eager took 41.2 µs and compiled 40.1 µs.",
    # decimal commas, in the cells and in the speedup ("1,024" stays a batch of a thousand and twenty-four)
    "| batch | eager (ms) | compiled (ms) | speedup |\n|---|---|---|---|\n| 1 | 0,0306 | 0,0725 | 0,42× |\n"
    "| 64 | 0,0412 | 0,0401 | 1,03× |",
    "| batch | eager (µs) | compiled (µs) |\n|---|---|---|\n| 1 | 30,6 | 72,5 |\n| 64 | 41,2 | 40,1 |",
]


@pytest.mark.parametrize("table", TABLES)
def test_profile_table_is_read_in_any_layout(table):
    assert lab04.profile_problems(table, ROWS) == []


def test_a_cell_unit_is_read_before_the_header_unit():
    table = "| batch | eager (ms) | compiled (ms) |\n|---|---|---|\n| 1 | 30.6 µs | 0.0725 |\n| 64 | 0.0412 | 0.0401 s |"
    assert lab04.profile_table(table) == {1: (pytest.approx(0.0306), 0.0725, None), 64: (0.0412, pytest.approx(40.1), None)}


@pytest.mark.parametrize("line,crossover,ok", [
    ("Crossover (compiled faster by its verdict from this batch on): batch 64.", 64, True),   # the sentence's period
    ("Crossover: batch 64. Plot: sweep.png.", 64, True),
    ("Crossover: batch 1,024.", 1024, True),
    ("Crossover: batch 640.", 64, False),
    ("Crossover: batch 64.5", 64, False),
    ("Crossover: none.", 64, False),
])
def test_the_crossover_is_read_at_the_end_of_a_sentence(line, crossover, ok):
    assert (lab04.crossover_stated_problems(line, "", crossover) == []) is ok


def test_profile_table_with_other_numbers_is_caught():
    assert lab04.profile_problems(TABLES[1].replace("0.0401", "0.0301"), ROWS)
    assert lab04.profile_problems(TABLES[0].replace("| 64 | 0.0412 | 0.0401 |", ""), ROWS)
    assert lab04.profile_problems(TABLES[5].replace("0.0725", "0.0625"), ROWS)                 # turned round
    assert lab04.profile_problems(TABLES[5].replace("| eager ms |", "| compiled ms |", 1)
                                  .replace("| compiled ms | 0.0725", "| eager ms | 0.0725"), ROWS)  # rows labelled the other way
    assert "batch 64" in lab04.profile_problems(TABLES[7].splitlines()[0], ROWS)[0]          # a bullet list a size short
    assert "speedup" in lab04.profile_problems(TABLES[7].replace("0.42×", "2.37×"), ROWS)[0]
    assert lab04.profile_problems(TABLES[10].replace("0.0725", "0.0625"), ROWS)                # bs=1 columns
    assert "speedup" in lab04.profile_problems(TABLES[12].replace("0.42×", "2.37×"), ROWS)[0]   # speedup in parentheses
    assert "batch 64" in lab04.profile_problems(TABLES[14].replace("  - compiled 0.0401 ms", ""), ROWS)[0]  # sub-item short


def test_pairs_corners_and_other_layouts_holding_a_mistake_are_caught():
    assert lab04.profile_problems(TABLES[15].replace("0.0306/0.0725", "0.0725/0.0306"), ROWS)   # pair against its label
    assert lab04.profile_problems(TABLES[17].replace("eager/compiled (ms)", "compiled/eager (ms)"), ROWS)
    assert lab04.profile_problems(TABLES[19].replace("| µs |", "| ms |"), ROWS)                 # the corner's unit
    assert lab04.profile_problems(TABLES[21].replace("eager (&micro;s)", "compiled (&micro;s)", 1)
                                  .replace("<th>compiled (&micro;s)</th></tr>", "<th>eager (&micro;s)</th></tr>"), ROWS)
    assert lab04.profile_problems(TABLES[24].replace("eager took 30.6 µs and compiled 72.5", "eager took 72.5 µs and "
                                                     "compiled 30.6"), ROWS)
    assert "speedup" in lab04.profile_problems(TABLES[15].replace("0.42×", "2.37×"), ROWS)[0]
    assert lab04.profile_table("| batch | eager ms | compiled ms |\n|---|---|---|\n| 8\u202f192 | 1.0 | 2.0 |") == {8192: (1.0, 2.0, None)}
    prose = "Compiled was slower at every size. " + TABLES[24]
    assert lab04.profile_table(TABLES[0] + "\n\n" + prose) == lab04.profile_table(TABLES[0])    # prose only without a table


def test_a_heading_that_names_no_section_is_read_by_its_text():
    report = ("# Report\n\n## Compile match\nmax abs error 3e-08\n\n## Kernel\nkernel.cpp, KERNEL_ANNOTATION.md\n\n"
              "## Results\n" + TABLES[0] + "\n\n## Discussion\n" + "Compiled was slower at batch 1 and no faster at 64. " * 4)
    found, missing = lab04.named_sections(report, lab04.REPORT_SECTIONS, lab04.REPORT_CLUES)
    assert missing == [] and "0.0725" in found["profile"] and "slower" in found["when compiling pays"]
    no_table = report.replace(TABLES[0], "see the plot")
    assert lab04.named_sections(no_table, lab04.REPORT_SECTIONS, lab04.REPORT_CLUES)[1] == ["Profile"]


def test_a_sweep_the_check_cannot_read_is_said_how_to_write():
    problems = lab04.profile_problems("Compiled was slower at batch 1 (0.0725 ms against 0.0306 ms) and even at 64.", ROWS)
    assert "one row per batch size" in problems[0]


def test_a_bullet_of_the_sweep_does_not_state_the_crossover():
    bullets = TABLES[7].replace("1.03×", "1.03×, faster")
    assert lab04.crossover_stated_problems("## Profile\n" + bullets, bullets, 64)
    said = bullets + "\nCompiled is faster by its verdict from batch 64 on."
    assert lab04.crossover_stated_problems("## Profile\n" + said, said, 64) == []


# A section's title in other words (a question most often) names that section; a heading that names another section,
# or two, names none.
ANNOTATION, REPORT = lab04.ANNOTATION_SECTIONS, lab04.REPORT_SECTIONS
HEADINGS_IN_OTHER_WORDS = [
    (REPORT, "Compile match", ["Does the compiled model match eager?", "Do eager and compiled agree?", "Did the compile match?",
                              "How close is compiled to eager?", "Correctness", "Max abs error",
                              "Does the compiled head give the same output?", "Did compilation change the numbers?"]),
    (REPORT, "Kernel", ["Which kernels did Inductor fuse?", "Where is the kernel?", "What code did Inductor generate?"]),
    (REPORT, "Profile", ["What does the profile show?", "What did the sweep measure?", "Timings",
                         "How fast is compiled vs eager?", "What did we measure?", "How long does each batch take?"]),
    (REPORT, "When compiling pays", ["When does compiling pay?", "Does torch.compile pay off?", "Is compiling worth it?",
                                     "When is compiling faster?", "When should you compile?",
                                     "Why is compiled slower at small batches?"]),
    (ANNOTATION, "Fused ATen ops", ["Which ATen ops does the kernel fuse?", "What did Inductor fuse?", "Which ops are fused?",
                                    "Which ops does the kernel compute?"]),
    (ANNOTATION, "Input read", ["What does the kernel read?", "Where does the input come from?", "Which pointer is loaded?"]),
    (ANNOTATION, "Output written", ["What does the kernel write?", "Where is the output stored?"]),
    (ANNOTATION, "Reductions", ["Which reductions does it perform?", "How does the kernel reduce a row?"]),
    (ANNOTATION, "What is not there", ["What is missing?", "What isn't there?", "What's not there?",
                                       "Which intermediate is never written to memory?", "What never gets a buffer?",
                                       "What does the kernel avoid storing?", "What is not in the kernel?",
                                       "What does not appear?"]),
]
HEADINGS_OF_ANOTHER_SECTION = [
    (REPORT, "Compile match", "Does compiling pay, and does the output match?"),     # two sections
    (REPORT, "When compiling pays", "When does compiling make a difference?"),
    (ANNOTATION, "Input read", "What does the kernel write?"),
    (ANNOTATION, "Output written", "What is never written?"),
    (ANNOTATION, "Fused ATen ops", "What did Inductor not fuse?"),
    (ANNOTATION, "Reductions", "Sums and maxima"),
    (REPORT, "Profile", "Why is compiled slower at small batches?"),    # the explanation's question, not the profile's
    (REPORT, "When compiling pays", "How fast is compiled vs eager?"),
    (REPORT, "Compile match", "How long does each batch take?"),
    (ANNOTATION, "Fused ATen ops", "Which op writes the output?"),
    (ANNOTATION, "What is not there", "Which ops are fused into the kernel?"),
]


def with_heading(titles: tuple, title: str, heading: str, document_title: str = "# My notes") -> str:
    return document_title + "\n\n" + "\n\n".join(f"## {heading if t == title else t}\n{t} text" for t in titles)


@pytest.mark.parametrize("titles,title,heading", [(ts, t, h) for ts, t, hs in HEADINGS_IN_OTHER_WORDS for h in hs])
def test_a_heading_that_names_its_section_in_other_words_is_read(titles, title, heading):
    found, missing = lab04.named_sections(with_heading(titles, title, heading), titles)
    assert missing == [] and found[title.lower()].strip() == f"{title} text"


@pytest.mark.parametrize("titles,title,heading", HEADINGS_OF_ANOTHER_SECTION)
def test_a_heading_that_names_another_section_is_not_read_as_this_one(titles, title, heading):
    assert lab04.named_sections(with_heading(titles, title, heading), titles)[1] == [title]


def test_a_document_title_that_names_a_section_is_not_that_section():
    text = with_heading(ANNOTATION, "Fused ATen ops", "Which ATen ops does it compute?", "# The fused softmax kernel")
    assert lab04.named_sections(text, ANNOTATION)[0]["fused aten ops"].strip() == "Fused ATen ops text"


@pytest.mark.parametrize("body,max_err,ok", [
    ("max |eager − compiled| = 2.98e-08 (criterion: ≤ 1e-6).", 2.98e-8, True),
    ("max |eager − compiled| = nan (criterion: ≤ 1e-6).", float("nan"), True),     # faithful: part A charges it
    ("max |eager − compiled| = nan (criterion: ≤ 1e-6).", 2.98e-8, False),
    ("max |eager − compiled| = 3.1e-08", float("nan"), False),
    ("max |eager − compiled| = not measured (criterion: ≤ 1e-6).", None, True),   # part A undone: charged there
    ("it matched", 2.98e-8, False),
])
def test_compile_match_states_part_a_faithfully(body, max_err, ok):
    assert (lab04.compile_match_problems(body, max_err) == []) is ok


def test_the_report_is_spared_the_sweep_only_while_measure_sweep_is_its_stub():
    """04.report asks nothing of the Profile while part E is a stub; a written measure_sweep that raises the stub's
    message on some inputs (an empty list) is written, and the report must then give the sweep."""
    from helpers.checks import Learner, lab04
    from helpers.notebooks import remember_source

    def defined(source: str) -> dict:
        ns: dict = {}
        exec(compile(source, remember_source(source, f"<cell sweep {hash(source)}>"), "exec"), ns)
        return ns

    stub = defined('def measure_sweep(model, compiled, batch_sizes, d=64):\n    """Compare."""\n'
                   '    raise NotImplementedError("E: sweep and crossover: write your solution here")\n')
    dodging = defined('def measure_sweep(model, compiled, batch_sizes, d=64):\n    if not batch_sizes:\n'
                      '        raise NotImplementedError("E: sweep and crossover: write your solution here")\n'
                      '    return [{"batch": b} for b in batch_sizes]\n')
    assert not lab04.sweep_written(Learner(stub))
    assert lab04.sweep_written(Learner(dodging))
    assert not lab04.sweep_written(Learner({}))


@pytest.mark.parametrize("body", ["max abs error 4.66e-10", "max abs error 4.66 × 10⁻¹⁰", "error 4.7x10^-10",
                                  "error 4.66*10**-10 (below the 1e-6 tolerance)", "error 4.66 · 10^(-10)",
                                  "max |compiled − eager| = 0.000000000466", "error below 1e-9"])
def test_compile_match_reads_the_error_however_it_is_written(body):
    from helpers.checks.lab04 import compile_match_problems

    assert compile_match_problems(body, 4.66e-10) == []


@pytest.mark.parametrize("body", ["error 3.7e-09", "error 3.7 × 10⁻⁹", "within the 1e-6 tolerance"])
def test_compile_match_refuses_an_error_that_is_not_the_measured_one(body):
    from helpers.checks.lab04 import compile_match_problems

    assert compile_match_problems(body, 4.66e-10)


def test_a_ratio_column_is_the_learners_to_define_a_speedup_column_is_not():
    from helpers.checks.lab04 import profile_table

    ratio = "| batch | eager ms | compiled ms | ratio (compiled ÷ eager) |\n|---|---|---|---|\n| 4 | 2.0 | 1.0 | 0.50 |\n"
    assert profile_table(ratio) == {4: (2.0, 1.0, 2.0)}             # either direction may be honest: judged as headed
    assert profile_table(ratio.replace(" (compiled ÷ eager)", "")) == {4: (2.0, 1.0, None)}   # a bare ratio: not judged
    assert profile_table(ratio.replace("compiled ÷ eager", "eager/compiled").replace("0.50", "2.00"))[4][2] == 2.0
    speedup = ratio.replace("ratio (compiled ÷ eager)", "speedup")
    assert profile_table(speedup) == {4: (2.0, 1.0, 0.5)}           # judged against eager ÷ compiled


def test_stand_in_kernels_read_as_their_language_and_a_source_search_for_exp_finds_every_triton_kernel():
    """The look-alikes' sources have their language's shape: a Triton signature holds tl.constexpr, so a learner who
    looks for "exp" in the source text instead of the fused ops picks a reducing Triton kernel that is no softmax."""
    kernels = [*lab04.look_alikes(), *lab04.online_softmax_kernels(), lab04.template_kernel()]
    for k in kernels:
        assert ("tl.constexpr" in k.source) == (k.kind != "cpp"), k.name
    assert [k.name for k in lab04.online_softmax_kernels() if k.reductions and "exp" in k.source][0] != \
        [k.name for k in lab04.online_softmax_kernels() if lab04.kernel_is_softmax(k)][0]


@pytest.mark.parametrize("again, says", [
    (None, None), ({"written": True, "root_changed": False, "explanation_shown": True, "report_hashed": True}, None),
    ({"written": False, "root_changed": True}, "not the folder it is given"),
    ({"written": True, "root_changed": False, "explanation_shown": False}, "not the explanation write_report is given"),
    ({"written": True, "root_changed": False, "explanation_shown": True, "report_hashed": False}, "write REPORT.md first"),
    ({"raised": "raised KeyError: 'x'"}, "run once more by the check")])
def test_report_written_again_elsewhere_says_what_it_did_wrong(again, says):
    problems = lab04.report_again_problems(again)
    assert (problems == []) if says is None else says in problems[0], problems


def test_the_dump_probe_gets_the_time_three_cold_compiles_take_on_a_busy_gpu_host():
    """04.debug_dump's probe compiles three times with the caches off: the grader must not stop it at its default 60 s
    (the notebook's own check took 48-62 s on an idle H100 host; an honest dump lost its points under load)."""
    class Recording(checks.Context):
        timeouts: list = []

        def probe(self, probe, *args, timeout=None, **kwargs):
            self.timeouts.append((probe.__name__, timeout))
            raise checks.CheckFailed("recorded")

    spec = checks.spec("04.debug_dump")
    checks.run(spec, Recording(), spec.public_cases())
    assert Recording.timeouts == [("probe_debug_dump", lab04.DUMP_PROBE_TIMEOUT)]
    assert lab04.DUMP_PROBE_TIMEOUT >= 180


def solution_write_report():
    import json
    from pathlib import Path

    ns = {"Path": Path, "json": json}
    exec(cell(solution(), "ex-g").source, ns)
    return ns["write_report"]


FACTS = {"max_err": 4.66e-10, "kernel_file": "kernel.cpp", "kernel_name": "cpp_fused__softmax_0", "crossover": None,
         "device": "CPU (2 cores)", "versions": {"torch": "2.13.0"},
         "sweep_rows": [dict(r, q25=0) for r in lab04.rows_for((0.4, 0.7, 0.96), (2, 64, 1024),
                                                               (lab04.SLOWER, lab04.SLOWER, lab04.SAME))]}


def test_the_checks_own_facts_need_the_verdicts_not_the_speedups():
    """The facts the report check passes write_report: the same batches, other times, a 'faster' row whose speedup is
    below 1 and a 'no difference' row above 1, and the crossover the solution's rule finds in them."""
    fake = lab04.synthetic_facts(FACTS)
    rows = fake["sweep_rows"]
    assert [r["batch"] for r in rows] == [2, 64, 1024] and all(set(r) == set(FACTS["sweep_rows"][0]) for r in rows)
    assert [(r["verdict"], r["speedup"] > 1) for r in rows] == [(lab04.SAME, True), (lab04.FASTER, False), (lab04.FASTER, True)]
    assert fake["crossover"] == 64 and fake["max_err"] != FACTS["max_err"]
    assert lab04.rows_problems(rows, "rows") == []
    shuffled = lab04.synthetic_facts({**FACTS, "sweep_rows": FACTS["sweep_rows"][::-1]})
    assert shuffled["crossover"] == 64 and [r["batch"] for r in shuffled["sweep_rows"]] == [1024, 64, 2]
    assert lab04.synthetic_facts({**FACTS, "sweep_rows": FACTS["sweep_rows"][:1]}) is None


def test_a_report_from_the_facts_shows_them_and_one_from_elsewhere_does_not(tmp_path):
    write_report = solution_write_report()
    fake = lab04.synthetic_facts(FACTS)

    def judged(facts) -> list[str]:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        write_report(folder, facts, "An explanation.")
        run = {"report": (folder / "REPORT.md").read_text(), "max_err": fake["max_err"],
               "sweep_rows": fake["sweep_rows"], "crossover": fake["crossover"]}
        return lab04.synthetic_problems(run)

    assert judged(fake) == []
    assert "Compile match" in judged({**fake, "max_err": FACTS["max_err"]})[0]
    assert "times and speedups" in judged({**fake, "sweep_rows": FACTS["sweep_rows"]})[0]
    by_speedup = [dict(r, verdict=lab04.FASTER if r["speedup"] > 1 else lab04.SLOWER) for r in fake["sweep_rows"]]
    assert "own verdict" in judged({**fake, "sweep_rows": by_speedup})[0]
    assert "crossover" in judged({**fake, "crossover": None})[0]


def test_a_global_mode_setting_is_seen_and_put_back():
    import torch._inductor.config as inductor_config

    assert lab04.global_mode_settings() == []
    inductor_config.coordinate_descent_tuning = True
    try:
        assert lab04.global_mode_settings(restore=True) == ["coordinate_descent_tuning"]
        assert not inductor_config.coordinate_descent_tuning and lab04.global_mode_settings() == []
    finally:
        inductor_config.coordinate_descent_tuning = False
    problems = lab04.compiled_problems({"global_mode": ["coordinate_descent_tuning"], "optimized": True, "same": True}, None, "")
    assert "default mode" in problems[0]


def test_a_look_alike_holds_exp_and_softmax_in_its_ops_letters_only():
    expand = lab04.look_alikes()[-1]
    assert expand.reductions and not lab04.kernel_is_softmax(expand)
    assert any("exp" in op for op in expand.aten_ops) and any("softmax" in op for op in expand.aten_ops)
    mixed, _ = lab04.decoys([])
    assert mixed.index(expand) == 1                          # before the kernels given: a first match finds it


def test_a_crossover_given_as_a_row_and_scheduler_names_that_are_no_names_are_said_so():
    case = lab04.CrossoverCase((0.5, 1.5), (1, 8), 8)
    rows = case.orders()
    info = {"answers": [{"batch": 8, "verdict": "faster"} for _ in rows]}
    assert "not the row itself" in lab04.crossover_problems(info, [case], lab04.SweepCase(), reveal=False)[0]
    ir = lab04.IRCase("a sample", lab04.SCHEDULER_CASE, ("op0", "op1_op2", "op3"))
    junk = ["op0", "NodeUser(node=SchedulerNode(name='op1'), can_inplace=False, is_weak=False),", "op1_op2", "op3"]
    assert "NodeUser" in lab04.scheduler_case_problems([junk], [ir], reveal=False)[0]


def test_the_pages_explanation_does_not_quote_a_sweep_whose_ratio_it_happens_to_match():
    rows = [{"batch": 2, "speedup": 0.24, "ci": [0.23, 0.25]}, {"batch": 1024, "speedup": 1.1, "ci": [1.08, 1.13]}]
    page = ("On CPU, the compiled version may be 1.1×–2× faster, or in our tiny case possibly slower, because overhead "
            "dominates for small models.")
    assert lab04.explanation_problems(page, rows)
    assert lab04.explanation_problems("Compiled was slower at batch 2 (0.23–0.25×) and faster at batch 1024.", rows) == []
    assert lab04.explanation_problems("Compiled was slower for the small sizes (0.24×) and faster at the largest (1.10×).",
                                      rows) == []


SWEEP = [{"batch": b, "eager_ms": e, "compiled_ms": c, "speedup": e / c, "verdict": v, "ci": ci}
         for b, e, c, v, ci in [(1, 0.0306, 0.0725, "slower", [0.41, 0.44]), (2, 0.0310, 0.0730, "slower", [0.41, 0.45]),
                                (1024, 0.52, 0.47, "no difference", [0.95, 1.2]), (8192, 4.1, 3.2, "faster", [1.2, 1.35])]]
PRINTED = """```
 batch   eager ms  compiled ms  speedup  compiled vs eager
     1     0.0306       0.0725    0.42×  slower (speedup 0.41–0.44×, 95 % CI)
     2     0.0310       0.0730    0.42×  slower (speedup 0.41–0.45×, 95 % CI)
  1024      0.520        0.470    1.11×  no difference (speedup 0.95–1.20×, 95 % CI)
  8192       4.10         3.20    1.28×  faster (speedup 1.20–1.35×, 95 % CI)
crossover: batch 8192 (compiled faster by its verdict there and at every larger size) | measured on cpu
```"""


def sweep_problems(profile: str) -> list[str]:
    return lab04.profile_problems(profile, SWEEP) or lab04.verdict_rows_problems(profile, SWEEP)


def test_the_sweep_as_the_notebook_prints_it_is_read_and_its_mistakes_are_seen():
    assert sweep_problems(PRINTED) == []
    swapped = PRINTED.replace("0.0306       0.0725", "0.0725       0.0306")
    assert "do not match" in sweep_problems(swapped)[0]
    inverse = PRINTED.replace("1.28×  faster", "0.78×  faster")
    assert "speedup" in sweep_problems(inverse)[0]
    assert "holds no sweep" in sweep_problems("Eager took 0.03 ms.  Compiled took 0.07 ms.  Speedup 0.42.\n1 is a number")[0]


def test_a_table_of_another_size_beside_the_sweep_is_not_the_sweep():
    fixed = "| | eager | compiled |\n|---|---|---|\n| a whole call at batch 2 | 0.0290 ms | 0.0800 ms |\n\n"
    three = "\n\n| batch | five ops ms | eager ms | compiled ms |\n|---|---|---|---|\n| 4096 | 0.9 | 0.5 | 0.4 |\n"
    sweep = "| batch | eager ms | compiled ms | speedup | verdict |\n|---|---|---|---|---|\n" + "\n".join(
        f"| {r['batch']} | {r['eager_ms']} | {r['compiled_ms']} | {r['speedup']:.2f} | {r['verdict']} |" for r in SWEEP)
    assert sweep_problems(fixed + sweep + three) == []
    assert "do not match" in sweep_problems(fixed + sweep.replace("| 8192 |", "| 4096 |") + three)[0]
    assert "do not match" in sweep_problems(fixed + sweep + "\n| 3000 | 0.1 | 0.2 | 0.3 | slower |" + three)[0]


def test_quartile_columns_leave_the_medians_to_compare():
    head = "| batch | eager q25 | eager median (ms) | eager q75 | compiled q25 | compiled median (ms) | compiled q75 | verdict |\n|-|-|-|-|-|-|-|-|\n"
    rows = "\n".join(f"| {r['batch']} | {r['eager_ms'] * 0.9:.4f} | {r['eager_ms']} | {r['eager_ms'] * 1.1:.4f} | "
                     f"{r['compiled_ms'] * 0.9:.4f} | {r['compiled_ms']} | {r['compiled_ms'] * 1.1:.4f} | {r['verdict']} |" for r in SWEEP)
    assert sweep_problems(head + rows) == []


def test_an_explanation_that_reads_the_sweep_backwards_is_caught_and_hedges_are_not():
    right = ("Compiled was slower at batch 1, 2 (0.41–0.44×, 0.41–0.45×), no different at batch 1024 and faster at "
             "batch 8192 (1.20–1.35×): a compiled call pays guards and a wrapper, which only a large batch amortises.")
    assert lab04.explanation_problems(right, SWEEP) == []
    backwards = right.replace("Compiled was slower", "Compiled was faster")
    assert "compiled was faster at batch 1, 2" in lab04.explanation_problems(backwards, SWEEP)[0]
    eager_side = ("Eager was slower than compiled at batch 1 (0.41–0.44×) because of the guards and the wrapper, which "
                  "every compiled call pays before its kernel runs, at every size of the sweep.")
    assert "compiled was faster at batch 1" in lab04.explanation_problems(eager_side, SWEEP)[0]
    hedged = ("Compiled was not faster at batch 1 (0.41–0.44×); one would expect compiled to be faster at batch 2, and "
              "eager was slower than compiled at batch 8,192 (1.20–1.35×), compiled was faster at batch 8192, 1.28×.")
    assert lab04.explanation_problems(hedged, SWEEP) == []


def test_roles_said_respectively_in_parentheses_or_as_labels_are_read():
    said = lab04.stated_roles
    assert said("`x0` and `x1` walk the 2 rows (step 600) and the 600 columns of a row, respectively.") == \
        {"x0": "rows", "x1": "columns"}
    assert said("Rows and columns are indexed by `x0` and `x1` respectively.") == {"x0": "rows", "x1": "columns"}
    assert said("`x1` and `x0` walk the rows and the columns, respectively.") == {"x1": "rows", "x0": "columns"}
    assert said("The outer loop (`x0`) runs over the rows and the inner loop (`x1`) over the 600 columns.") == \
        {"x0": "rows", "x1": "columns"}
    assert said("row `x0`, column `x1`.") == {"x0": "rows", "x1": "columns"}
    assert said("`x0` is the outer (row) loop and `x1` the inner (column) loop.") == {"x0": "rows", "x1": "columns"}
    assert said("`x0` selects the sample, `x1` the class.") == {"x0": "rows", "x1": "columns"}


def test_what_is_not_there_in_other_words():
    for text in ("exp(x − max) exists only inside the kernel, one row at a time in the scratch array.",
                 "The exponentials are computed on the fly into a one-row scratch and never leave the core's cache."):
        assert lab04.says_not_stored(text), text
    assert not lab04.says_not_stored("Nothing: exp(x - max) is written to memory like every other intermediate.")


def test_a_verdict_said_of_either_side_or_in_a_winner_column_is_read_as_said():
    """"eager faster" is compiled slower, "eager wins" too; a "winner" column names the faster side or a tie. The same
    words at a size whose verdict went the other way are the sweep read backwards."""
    head = "| batch | eager ms | compiled ms | speedup | {} |\n|---|---|---|---|---|\n"

    def table(words, column="verdict"):
        return head.format(column) + "\n".join(f"| {r['batch']} | {r['eager_ms']} | {r['compiled_ms']} | "
                                               f"{r['speedup']:.2f} | {w} |" for r, w in zip(SWEEP, words))
    assert sweep_problems(table(["eager faster", "eager is faster", "no difference", "compiled faster"])) == []
    assert sweep_problems(table(["eager wins", "compiled loses", "tie", "compiled wins (eager slower)"])) == []
    assert sweep_problems(table(["eager", "eager", "tie", "compiled"], "winner")) == []
    assert sweep_problems(table(["eager", "Eager", "neither", "torch.compile"], "faster")) == []
    assert sweep_problems(table(["eager", "eager", "—", "compiled"], "faster side")) == []
    # read backwards: eager named the faster at a size where compiled was, or the reverse
    assert "its row" in sweep_problems(table(["eager faster", "eager faster", "no difference", "eager faster"]))[0]
    assert "its row" in sweep_problems(table(["compiled faster", "eager faster", "no difference", "compiled faster"]))[0]
    assert "its row" in sweep_problems(table(["eager", "eager", "tie", "eager"], "winner"))[0]
    assert "its row" in sweep_problems(table(["compiled", "eager", "tie", "compiled"], "winner"))[0]
    # a tie said with its nuance is a tie; both sides called faster is no verdict
    assert sweep_problems(table(["eager faster", "eager faster", "no difference (eager slightly faster)",
                                 "compiled faster"])) == []
    assert "its row" in sweep_problems(table(["eager faster, compiled faster"] * 2 + ["tie", "compiled faster"]))[0]
    assert "its row" in sweep_problems(table(["eager faster", "eager faster", "tie", "eager faster, compiled faster"]))[0]


def test_a_side_named_beside_a_time_is_not_a_verdict_of_that_side():
    """"eager 41 faster" is a time and a verdict on compiled, not "eager faster"."""
    rows = "\n".join(f"| {r['batch']} | eager {r['eager_ms']} | compiled {r['compiled_ms']} | {r['speedup']:.2f} | "
                     f"eager {round(r['eager_ms'])} {r['verdict']} |" for r in SWEEP)
    assert sweep_problems("| batch | eager ms | compiled ms | speedup | verdict |\n|---|---|---|---|---|\n" + rows) == []
