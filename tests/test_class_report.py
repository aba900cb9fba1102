"""The class report: summary.png and summary.html from a gradebook's results, flagging checks nobody passes."""

from helpers.checks import Result
from helpers.grading import gradebook
from helpers.grading.class_report import flagged, pass_rates, write_class_report
from helpers.grading.gradebook import SubmissionResult

NAMES = ["04.a", "04.b", "04.c"]


def result(name: str, scores, status="ok", seconds=30.0) -> SubmissionResult:
    checks = [Result(n, "passed" if s else "failed", s, 1, "") for n, s in zip(NAMES, scores)]
    return SubmissionResult(submission=name, key=f"{name}-0000", sha256="x", lab="04", status=status, message="",
                            checks=checks, seconds=seconds)


def class_of_five() -> list[SubmissionResult]:
    return [result("ann", (1, 1, 0)), result("ben", (1, 0, 0), seconds=80), result("cy", (1, 1, 0)),
            result("dee", (0, 1, 0)), result("eve", (0, 0, 0), status="timeout", seconds=1200)]


def test_pass_rates_count_only_notebooks_that_ran_and_flag_what_nobody_passes():
    rates = pass_rates(class_of_five(), NAMES)
    assert rates == {"04.a": (3, 4), "04.b": (3, 4), "04.c": (0, 4)}
    assert flagged(rates) == ["04.c"]
    assert flagged(pass_rates([result("x", (0, 0, 0), status="crashed")], NAMES)) == []   # nothing ran: no verdict


def test_report_files(tmp_path):
    results = class_of_five()
    for r in results:
        gradebook.save_result(tmp_path, r)
    page = write_class_report(tmp_path, gradebook.load_results(tmp_path), NAMES, {"04.c": "the hard one"}, "04")
    text = page.read_text()
    assert (tmp_path / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Almost nobody passes <code>04.c</code>" in text and "the hard one" in text
    assert "<td>timeout</td>" in text and "feedback/eve-0000.html" in text and "data:image/png;base64," in text
    assert "5 submissions" in text and not list(tmp_path.glob(".*.tmp"))


def test_an_empty_gradebook_still_gets_a_report(tmp_path):
    page = write_class_report(tmp_path, [], NAMES, {}, "04")
    assert "0 submissions" in page.read_text()
